"""Labels in Catalan (the regulator's language, the default) and English."""

from __future__ import annotations

LANGS = ("ca", "en")

LABELS: dict[str, dict[str, str]] = {
    "expected": {"ca": "esperat", "en": "expected"},
    "observed": {"ca": "observat", "en": "observed"},
    "title": {"ca": "Informe d'auditoria de joc", "en": "Gaming audit report"},
    "subtitle": {"ca": "Decret 455/2025, Reglament de les llicències majors", "en": "Decret 455/2025, Regulation of major licences"},
    "compliant": {"ca": "CONFORME", "en": "COMPLIANT"},
    "not_compliant": {"ca": "NO CONFORME", "en": "NOT COMPLIANT"},
    "verdict_note": {"ca": "{n} incidències de gravetat {fail_on} o superior", "en": "{n} findings of severity {fail_on} or above"},
    "rules_applied": {"ca": "{run} de {total} regles aplicades", "en": "{run} of {total} rules run"},
    "nothing_checked": {"ca": "cap regla no s'ha aplicat: l'auditoria no ha comprovat res", "en": "no rule ran: the audit checked nothing"},
    "no_files": {"ca": "el lot no té cap fitxer del format: no s'ha auditat cap jugada", "en": "the bundle holds no file of the log format: no play was audited"},
    "casino": {"ca": "Casino", "en": "Casino"},
    "period": {"ca": "Període auditat", "en": "Audit period"},
    "bundle": {"ca": "Lot de registres", "en": "Log bundle"},
    "tables": {"ca": "Taules", "en": "Tables"},
    "ruleset": {"ca": "Normativa aplicada", "en": "Ruleset"},
    "generated": {"ca": "Generat", "en": "Generated"},
    "findings": {"ca": "Incidències", "en": "Findings"},
    "by_severity": {"ca": "Incidències per gravetat", "en": "Findings by severity"},
    "critical": {"ca": "crítica", "en": "critical"},
    "major": {"ca": "greu", "en": "major"},
    "minor": {"ca": "lleu", "en": "minor"},
    "never": {"ca": "cap", "en": "never"},
    "by_rule": {"ca": "Incidències per regla", "en": "Findings by rule"},
    "over_time": {"ca": "Incidències per dia", "en": "Findings per day"},
    "per_table": {"ca": "Xifres per taula", "en": "Per-table figures"},
    "table": {"ca": "Taula", "en": "Table"},
    "game": {"ca": "Joc", "en": "Game"},
    "rounds": {"ca": "Jugades", "en": "Rounds"},
    "staked": {"ca": "Apostat", "en": "Staked"},
    "paid": {"ca": "Pagat", "en": "Paid"},
    "cagnotte": {"ca": "Cagnotte", "en": "Cagnotte"},
    "house_result": {"ca": "Resultat de la casa", "en": "House result"},
    "rule": {"ca": "Regla", "en": "Rule"},
    "severity": {"ca": "Gravetat", "en": "Severity"},
    "count": {"ca": "Nombre", "en": "Count"},
    "article": {"ca": "Article", "en": "Article"},
    "regulation_text": {"ca": "Text del reglament", "en": "Regulation text (Catalan)"},
    "what_must_hold": {"ca": "Què s'ha de complir", "en": "What must hold"},
    "round": {"ca": "Jugada", "en": "Round"},
    "item": {"ca": "Element", "en": "Item"},
    "time": {"ca": "Hora (UTC)", "en": "Time (UTC)"},
    "message": {"ca": "Descripció", "en": "Description"},
    "evidence": {"ca": "Evidència", "en": "Evidence"},
    "source": {"ca": "Origen", "en": "Source"},
    "shown": {"ca": "Se'n mostren {shown} de {total}; la llista completa és a violations.jsonl.", "en": "Showing {shown} of {total}; the full list is in violations.jsonl."},
    "tables_shown": {"ca": "Se'n mostren {shown} de {total} taules; totes són a summary.json.", "en": "Showing {shown} of {total} tables; all of them are in summary.json."},
    "no_findings": {"ca": "Cap incidència.", "en": "No findings."},
    "inputs": {"ca": "Fitxers d'entrada", "en": "Input files"},
    "file": {"ca": "Fitxer", "en": "File"},
    "ignored_files": {"ca": "Fitxers no llegits (no formen part del format de registre)", "en": "Files not read (not part of the log format)"},
    "and_more": {"ca": "i {n} més (tots són a summary.json)", "en": "and {n} more (all of them are in summary.json)"},
    "rows_read": {"ca": "Files llegides", "en": "Rows read"},
    "rows_audited": {"ca": "Files auditades", "en": "Rows audited"},
    "rows_quarantined": {"ca": "Files en quarantena", "en": "Rows quarantined"},
    "error": {"ca": "Error", "en": "Error"},
    "parameters": {"ca": "Paràmetres", "en": "Parameters"},
    "parameter": {"ca": "Paràmetre", "en": "Parameter"},
    "value": {"ca": "Valor", "en": "Value"},
    "since": {"ca": "Des de", "en": "From"},
    "reference": {"ca": "Referència", "en": "Reference"},
    "rules_not_run": {"ca": "Regles no aplicades", "en": "Rules not run"},
    "rules_failed": {"ca": "Regles que no s'han pogut aplicar (auditoria incompleta)", "en": "Rules that failed (audit incomplete)"},
    "not_checkable": {"ca": "No verificable amb aquests registres", "en": "Not checkable from these logs"},
    "not_checkable_list": {
        "ca": "Cerimònia d'escarteig i tall, dors de les cartes de dos colors, funcions del personal, llista de l'inspector, refús de la banca dues vegades, consells del crupier, procediments d'error (epígraf 8, VIII), requisament dels daus, tancament de la taula amb la tapa.",
        "en": "Shuffling and cutting ceremony, card backs of two colours, staff functions, the inspector's list, refusing the bank twice, advice given by the croupier, error procedures (epígraf 8, VIII), dice seizure procedure, table closing with the lid.",
    },
    "contents": {"ca": "Índex", "en": "Contents"},
    "ev_punt": {"ca": "punt", "en": "punt"},
    "ev_banca": {"ca": "banca", "en": "banker"},
    "ev_mode": {"ca": "mode", "en": "mode"},
    "ev_outcome": {"ca": "resultat registrat", "en": "recorded outcome"},
    "ev_bank": {"ca": "banca en joc", "en": "bank"},
    "ev_banker_result": {"ca": "resultat del banquer", "en": "banker's result"},
    "ev_cagnotte": {"ca": "cagnotte", "en": "cagnotte"},
    "ev_garage": {"ca": "garatge", "en": "garage"},
    "ev_bank_after": {"ca": "banca després", "en": "bank after"},
    "ev_event": {"ca": "banca (esdeveniment · banquer)", "en": "bank (event · banker)"},
    "ev_stake": {"ca": "aposta", "en": "stake"},
    "ev_revolutions": {"ca": "revolucions", "en": "revolutions"},
    "ev_slot": {"ca": "casella", "en": "slot"},
    "ev_symbol": {"ca": "símbol", "en": "symbol"},
    "ev_status": {"ca": "estat", "en": "status"},
    "ev_pivot": {"ca": "pivot / obstacle", "en": "pivot / obstructed"},
    "ev_bet": {"ca": "aposta", "en": "bet"},
    "ev_dice": {"ca": "daus", "en": "dice"},
    "ev_result": {"ca": "resultat", "en": "result"},
    "ev_set": {"ca": "terna / llançador", "en": "dice set / launcher"},
    "ev_null": {"ca": "nul", "en": "null"},
    "ev_fees": {"ca": "quotes", "en": "fees"},
    "ev_costs": {"ca": "despeses", "en": "costs"},
    "ev_prizes": {"ca": "premis", "en": "prizes"},
    "ev_starts": {"ca": "inici", "en": "starts"},
    "ev_notified": {"ca": "comunicat", "en": "notified"},
    "ev_authorised": {"ca": "autorització", "en": "authorised"},
    "ev_venue": {"ca": "lloc", "en": "venue"},
    "games": {
        "ca": "log:Registre|chemin_de_fer:Chemin de fer|wheel_of_fortune:Roda de la fortuna|banca_francesa:Banca francesa|tournament:Tornejos",
        "en": "log:Log|chemin_de_fer:Chemin de fer|wheel_of_fortune:Wheel of fortune|banca_francesa:Banca francesa|tournament:Tournaments",
    },
}


def label(key: str, lang: str) -> str:
    entry = LABELS.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]


def labels(lang: str) -> dict[str, str]:
    return {key: label(key, lang) for key in LABELS}


def game_name(game: str, lang: str) -> str:
    names = dict(item.split(":", 1) for item in label("games", lang).split("|"))
    return names.get(game, game)
