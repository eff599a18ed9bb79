"""A challenge's markdown statement as HTML whose math KaTeX renders in the page (pure).

Markdown would read the ``_`` and ``*`` inside ``$a_i * b_j$`` as emphasis, so the math
spans are set aside before the markdown is rendered and put back, escaped, after
(quotes too: a span can land in an attribute, an image's alt text or a link's title, and an
unescaped quote there would close it and open an ``onerror``);
KaTeX's auto-render then finds their delimiters in the page's text.  Raw HTML in the
statement is escaped, not passed through: the page runs code, so a spec file must
not be able to add a script to it.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

__all__ = ["statement_html", "MATH"]

# $$...$$, \[...\], \(...\), then $...$ (not across a blank line; "$5 and $6" are prices only with spaces inside)
# Each span at most MATH_CHARS long: an opener with no closer (a statement of "\[" repeated) made every opener scan
# to the end, quadratic, in a regex that holds the GIL and so froze the whole server while it ran.
MATH_CHARS = 2000
MATH = re.compile(r"\$\$.{1,%d}?\$\$|\\\[.{1,%d}?\\\]|\\\(.{1,%d}?\\\)|\$(?=\S)(?:[^$\n]|\n(?!\n)){1,%d}?(?<=\S)\$"
                  % ((MATH_CHARS,) * 4), re.S)
_MARK = "\u2063MATH{}\u2063"  # an invisible separator no statement contains


def statement_html(markdown: str) -> str:
    spans: list[str] = []

    def set_aside(match: re.Match) -> str:
        spans.append(match.group(0))
        return _MARK.format(len(spans) - 1)

    # A statement's own separators are dropped first: only the markers set here are ever replaced.
    text = MATH.sub(set_aside, markdown.replace("\u2063", ""))
    rendered = MarkdownIt("commonmark", {"html": False}).render(text)
    return re.sub("\u2063MATH(\\d+)\u2063", lambda m: html.escape(spans[int(m.group(1))]), rendered)
