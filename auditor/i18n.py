"""Labels in Catalan (the regulator's language, the default) and English."""

from __future__ import annotations

LANGS = ("ca", "en")

LABELS: dict[str, dict[str, str]] = {
    "expected": {"ca": "esperat", "en": "expected"},
    "observed": {"ca": "observat", "en": "observed"},
}


def label(key: str, lang: str) -> str:
    entry = LABELS.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]
