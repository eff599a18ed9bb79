"""Text that came from a solution (its output, exceptions, source lines), made safe to show and store.

*Pure.*  Two rules, applied where the worker's words enter the judge (judge/worker/protocol.py) and again
where a report prints them (console, Markdown, JUnit), since a judge-side message may quote the solution too
(a compiler's diagnostics):

- **Nothing acts on the reader.**  Control characters (terminal escapes, a carriage return that overwrites a
  line) become their ``\\xNN`` spelling; lone surrogates U+FFFD; the characters that reorder or hide text
  (bidi overrides and isolates, zero-width spaces and joiners, the BOM) and the line and paragraph
  separators U+2028/U+2029 (which cut a summary line in two) their ``\\uXXXX`` spelling.  Tab and newline
  stay.
- **Nothing is unbounded.**  A message keeps its head and tail up to ``MAX_MESSAGE`` characters (a red team's
  solution put 2.4 MB source lines in its traceback: 9.6 MB per message, a 170 MB JSON per run); a document
  spends at most ``MAX_DOCUMENT`` characters on such text, and past that each is cut to ``MAX_SPENT``
  (``Budget``).
"""

from __future__ import annotations

__all__ = ["clean_text", "bounded", "Budget", "MAX_MESSAGE", "MAX_DOCUMENT", "MAX_SPENT", "INVISIBLE"]

MAX_MESSAGE = 16 * 1024  # characters of one message (a traceback of the solution's frames, its output's tail)
MAX_DOCUMENT = 1024 * 1024  # characters of such text in one report (JSON, JUnit, Markdown)
MAX_SPENT = 512  # characters each message keeps once a document has spent its budget

# Characters that reorder, hide or split what a reader sees: bidi embeddings, overrides, isolates and marks;
# zero-width spaces, joiners and the word joiner; invisible operators; the BOM; line/paragraph separators.
INVISIBLE = frozenset([0x061C, 0x115F, 0x1160, 0x180E, *range(0x200B, 0x2010), 0x2028, 0x2029,
                       *range(0x202A, 0x202F), *range(0x2060, 0x2065), *range(0x2066, 0x206A), 0x3164, 0xFEFF,
                       0xFFA0])

# C0 controls but tab and newline, DEL, C1 controls: a terminal acts on them (escape sequences can rewrite what
# the screen shows, a carriage return can overwrite a line).  Lone surrogates (JSON's "\ud800") cannot be
# encoded: sqlite and the console raised on them.
_TABLE = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)]}
_TABLE.update({c: "\ufffd" for c in range(0xD800, 0xE000)})
_TABLE.update({c: f"\\u{c:04x}" for c in INVISIBLE})


def clean_text(text: str) -> str:
    """``text`` safe to print, store and encode (the module's first rule).  Idempotent."""
    return text.translate(_TABLE)


def bounded(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` whole if it has at most ``limit`` characters, else its head and tail around a line that
    says how much was left out (the result is at most ``limit`` characters and a line)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 64, 16)
    head, tail = text[: keep * 3 // 4], text[-(keep // 4):]
    return f"{head}\n... [{len(text) - len(head) - len(tail):,} characters left out] ...\n{tail}"


class Budget:
    """What one document may spend on text from solutions: each message ``bounded`` to ``per_message``
    until ``total`` characters are spent, then to ``spent``."""

    def __init__(self, total: int = MAX_DOCUMENT, per_message: int = MAX_MESSAGE, spent: int = MAX_SPENT):
        self.left, self.per_message, self.spent = total, per_message, spent

    def take(self, text: str) -> str:
        text = bounded(clean_text(text), self.per_message if self.left > 0 else self.spent)
        self.left -= len(text)
        return text
