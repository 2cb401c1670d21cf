"""The Catalan text of Decret 455/2025 (public domain, art. 4.2 of Andorra's copyright law), shipped
with the package so reports and `auditor explain` can quote the article a rule enforces."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from auditor.rules.base import EPIGRAF_FILES, Citation

TEXT_DIR = Path(__file__).resolve().parent / "data" / "regulation"
HEADING = re.compile(r"^(?P<num>[IVX]+)\. ", re.MULTILINE)
WORD = re.compile(r"[\wàèéíïòóúüç·]{3,}", re.IGNORECASE)


@cache
def _text(epigraf: str) -> str:
    name = EPIGRAF_FILES.get(epigraf)
    if not name or not (TEXT_DIR / name).is_file():
        return ""
    return (TEXT_DIR / name).read_text(encoding="utf-8")


def section_text(epigraf: str, section: str) -> str:
    text = _text(epigraf)
    numeral = re.match(r"[IVX]+", section.strip()) if epigraf != "annex II" else None
    if not text or not numeral:
        return "\n".join(text.splitlines()[2:]).strip() if text else ""
    heads = list(HEADING.finditer(text))
    for i, head in enumerate(heads):
        if head.group("num") == numeral.group(0):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            return text[head.start() : end].strip()
    return ""


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.:;])\s+(?=[A-ZÀÈÉÍÒÓÚ“\"])|\n+", text) if s.strip()]


@cache
def article_text(citation: Citation, limit: int = 3) -> str:
    """The sentences of the cited sections ("V, VII") that best match the rule's quote, in text order."""
    numerals = re.findall(r"\b[IVX]+\b", citation.section) or [citation.section]
    section = "\n".join(section_text(citation.epigraf, n) for n in numerals)
    if not section:
        return ""
    sentences = _sentences(section)
    words = {w.lower() for w in WORD.findall(citation.quote)}
    if not words:
        return " ".join(sentences[:limit])
    scores = [len(words & {w.lower() for w in WORD.findall(s)}) for s in sentences]
    best = max(scores, default=0)
    if best == 0:
        return " ".join(sentences[:limit])
    chosen = sorted(sorted(range(len(sentences)), key=lambda i: -scores[i])[:limit])
    chosen = [i for i in chosen if scores[i] >= max(1, best * 0.5)]
    where = f"[{citation}] "
    return where + " … ".join(sentences[i] for i in chosen)
