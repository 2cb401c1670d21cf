"""Text from the logs made safe to show: control characters written as escapes.

A cell may hold anything (NUL, ESC sequences, C1 controls, lone surrogates). JSON escapes them by
itself; XML 1.0 forbids them outright, so one such cell would make junit.xml unparseable for the CI
server; in HTML they are invisible, so the inspector would not see what the log really holds.
"""

from __future__ import annotations

import re

# C0 controls except tab, newline and carriage return; DEL and C1; surrogates; the two non-characters;
# and the invisible formatting characters (zero-width, bidirectional overrides, BOM) with which an id
# can look like another one or text can display in an order other than its own.
_UNSHOWABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ud800-\udfff\ufeff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every character XML cannot hold, or a reader cannot see, written as \\xNN or \\uNNNN.
    Every such character is one Python does not call printable: text that is all printable (nearly
    every cell) is returned as it is without the pattern's search (the report's 120k values)."""
    return text if text.isprintable() else _UNSHOWABLE.sub(_escape, text)
