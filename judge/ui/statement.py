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

__all__ = ["statement_html", "leetgpu_statement_html", "MATH"]

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
    md = MarkdownIt("commonmark", {"html": False})
    default = md.validateLink
    md.validateLink = lambda url: default(url) and not _this_machine(url)
    rendered = md.render(text)
    return re.sub("\u2063MATH(\\d+)\u2063", lambda m: html.escape(spans[int(m.group(1))]), rendered)


# A LeetGPU folder's challenge.html: prose, code, tables and the inline SVG diagrams its statements draw.
HTML_TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "code", "pre", "strong", "b",
             "em", "i", "u", "sub", "sup", "small", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
             "blockquote", "span", "div", "a", "dl", "dt", "dd", "kbd", "var", "details", "summary"}
SVG_TAGS = {"svg", "g", "defs", "marker", "title", "desc", "rect", "circle", "ellipse", "line", "polyline",
            "polygon", "path", "text", "tspan"}
SVG_ATTRIBUTES = {"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy", "width", "height",
                  "viewBox", "preserveAspectRatio", "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity",
                  "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "opacity", "font-size", "font-family",
                  "font-weight", "font-style", "text-anchor", "dominant-baseline", "alignment-baseline", "transform",
                  "d", "points", "marker-start", "marker-mid", "marker-end", "orient", "markerWidth", "markerHeight",
                  "markerUnits", "refX", "refY", "id", "style"}
# Inline styles keep their looks, never their place: no position, so nothing covers the page's own controls.
STYLE_PROPERTIES = {"display", "margin", "margin-top", "margin-bottom", "margin-left", "margin-right", "padding",
                    "text-align", "vertical-align", "font-family", "font-size", "font-weight", "font-style", "color",
                    "background-color", "fill", "stroke", "width", "max-width", "height",
                    "border", "border-collapse"}
ID_PREFIX = "statement-"  # a statement's ids never name one of the page's own elements
C0_AND_SPACE = "".join(map(chr, range(0x21)))  # what browsers strip from both ends of a URL


def leetgpu_statement_html(text: str) -> str:
    """A LeetGPU ``challenge.html`` as HTML the page may show: an allow-list of HTML and SVG elements and
    attributes (nh3, the ammonia sanitizer), no scripts, handlers, ``<style>`` blocks or positioned styles,
    links only to other sites, and its ids prefixed (an SVG's ``url(#arrow)`` follows).  Its math (``\\(..\\)``,
    ``$$..$$``) stays in the text, for KaTeX in the page."""
    import nh3

    attributes = {"a": {"href", "title", "target"}, "td": {"colspan", "rowspan", "style"},
                  "th": {"colspan", "rowspan", "style"}, "*": {"style"}}
    attributes.update({tag: set(SVG_ATTRIBUTES) for tag in SVG_TAGS})
    return nh3.clean(text, tags=HTML_TAGS | SVG_TAGS, clean_content_tags={"script", "style", "iframe", "object",
                     "embed", "template", "noscript", "foreignObject", "math"}, attributes=attributes,
                     attribute_filter=_statement_attribute, url_schemes={"http", "https", "mailto"},
                     filter_style_properties=STYLE_PROPERTIES, id_prefix=ID_PREFIX, link_rel="noopener noreferrer")


def _statement_attribute(tag: str, name: str, value: str) -> str | None:
    if name == "href":
        return None if _this_machine(value) else value
    if name == "style":  # no declaration that fetches: url() would make the browser request a URL of its choosing
        kept = [d for d in value.split(";") if "url(" not in d.lower().replace(" ", "") and "\\" not in d]
        return ";".join(kept) or None
    if name in SVG_ATTRIBUTES and "\\" in value:  # CSS: u\rl(/x) and \75 rl(/x) are url(/x); no attribute needs one
        return None
    if "url(" in value.lower():  # an SVG paint or marker: only a reference to the statement's own element
        refs = re.findall(r"url\(\s*['\"]?([^)'\"]*)", value, re.I)
        if not all(ref.startswith("#") for ref in refs):
            return None
        return re.sub(r"url\(\s*(['\"]?)#", lambda m: f"url({m.group(1)}#{ID_PREFIX}", value, flags=re.I)
    return value


def _this_machine(url: str) -> bool:
    """A link to another server of this machine (127.0.0.1:9999, 0x7f000001, localhost): a statement should not
    make the user's browser ask a local service for something (when the token was a cookie, a click also carried
    it there, since browsers keep cookies per host and not per port). Such links stay text."""
    # markdown-it hands over the URL percent-encoded; browsers read a backslash as a slash in these URLs, drop
    # tabs and newlines anywhere in them and strip leading and trailing controls and spaces
    link = re.sub(r"[\t\n\r]", "", _unquote(url)).strip(C0_AND_SPACE).replace("\\", "/")
    scheme = re.match(r"(?i)^(https?|ftp|wss?):/*", link)  # and http:127.0.0.1 as http://127.0.0.1
    if scheme:
        link = "//" + link[scheme.end():]
    elif not link.startswith("//"):
        return False  # a path of this server, a #fragment, mailto:
    authority = re.split(r"[/?#]", link[2:], maxsplit=1)[0].rsplit("@", 1)[-1]
    host = authority[:authority.index("]") + 1] if authority.startswith("[") and "]" in authority \
        else authority.split(":", 1)[0]
    host = _ascii_host(host)
    if host is None:
        return True  # a name browsers may map to this machine that this cannot read: the link stays text
    host = host.rstrip(".").lower()
    if host in ("localhost", "") or host.endswith(".localhost"):
        return True
    if host.startswith("["):
        return _ipv6_this_machine(host[1:-1] if host.endswith("]") else host[1:])
    first = _ipv4_first_byte(host)
    return first in (0, 127)


def _unquote(text: str) -> str:
    """Percent-decoded as browsers decode a host: its bytes as UTF-8 (%EF%BC%91 is a full-width 1)."""
    raw = re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode("utf-8", "replace"))
    return raw.decode("utf-8", "replace")  # as urllib.parse.unquote (urllib is not for pure modules: test_layout)


def _ascii_host(host: str) -> str | None:
    """The host as browsers look it up: a name with other than ASCII goes through IDNA mapping (UTS 46: full-width
    digits and letters to ASCII, ideographic full stops to dots, soft hyphens and zero-width joiners to nothing),
    so 127.0.0.1 written in full-width digits is 127.0.0.1; None where the mapping fails."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


def _ipv6_this_machine(address: str) -> bool:
    """[::1] however written ([0:0:0:0:0:0:0:1], [0::1]), [::], and IPv4 loopback mapped into IPv6."""
    import ipaddress

    try:
        ip = ipaddress.IPv6Address(address.split("%", 1)[0])
    except ValueError:
        return True  # not an address browsers would accept anyway: no link
    mapped = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified or (mapped is not None and (mapped.is_loopback or mapped.is_unspecified))


def _ipv4_first_byte(host: str) -> int | None:
    """The first byte of an IPv4 address as browsers read a host (127.1, 0x7f.1, 0177.0.0.1, 2130706433), else None."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        match = re.fullmatch(r"0[xX]([0-9A-Fa-f]*)|0([0-7]+)|([1-9][0-9]*|0)", part)
        if match is None:
            return None
        hexa, octal, decimal = match.groups()
        numbers.append(int(hexa or "0", 16) if hexa is not None else int(octal, 8) if octal is not None
                       else int(decimal))
    last_bytes = 5 - len(numbers)  # the last number fills the bytes the others leave
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** last_bytes:
        return None
    return numbers[0] if len(numbers) > 1 else numbers[0] >> 24


# -- the worked example, as LeetGPU's statements write theirs -----------------------------------------------------
EXAMPLE_ITEMS = 8  # per row of a tensor, and rows per matrix: an example is small, a larger one is cut with "..."


def example_block(example: dict) -> str:
    """``authoring/example.example_values``'s data as the ``<pre>`` text of a LeetGPU statement::

        Input:  input = [[1.0, 2.0, 3.0],
                         [4.0, 5.0, 6.0]]
                rows = 2, cols = 3
        Output: output = [[1.0, 4.0],
                          [2.0, 5.0],
                          [3.0, 6.0]]
    """
    inputs = [_assignment(name, value) for name, value in example.get("inputs", [])]
    sizes = ", ".join(f"{name} = {_number(value)}" for name, value in example.get("sizes", {}).items())
    if sizes:
        inputs.append(sizes)
    outputs = [_assignment(name, value) for name, value in example.get("outputs", [])]
    return "\n".join(_labelled("Input:  ", inputs) + _labelled("Output: ", outputs))


def _labelled(label: str, blocks: list[str]) -> list[str]:
    pad = " " * len(label)
    lines = []
    for i, block in enumerate(blocks):
        first, *rest = block.split("\n")
        lines.append((label if i == 0 else pad) + first)
        lines += [pad + line for line in rest]
    return lines


def _assignment(name: str, value) -> str:
    if isinstance(value, dict):  # a model: LeetGPU writes "model: Linear layer with weight=..., bias=..."
        weights = "".join(f"\n  {w} = {_nested(v, len(w) + 5)}" for w, v in value.get("weights", []))
        return f"{name}: {value.get('module', '')}{weights}"
    return f"{name} = {_nested(value, len(name) + 3)}"


def _nested(value, column: int) -> str:
    """A list as one line, a list of lists one inner list per line (aligned under the first), cut past
    EXAMPLE_ITEMS."""
    if not isinstance(value, list):
        return _number(value)
    cut = len(value) > EXAMPLE_ITEMS
    items = value[:EXAMPLE_ITEMS - 1] if cut else value
    if items and isinstance(items[0], list):
        parts = [_nested(v, column + 1) for v in items] + (["..."] if cut else [])
        return "[" + (",\n" + " " * (column + 1)).join(parts) + "]"
    return "[" + ", ".join([_number(v) for v in items] + (["..."] if cut else [])) + "]"


def _number(value) -> str:
    """Floats as LeetGPU writes them: 6 significant digits, and 2.0 rather than 2 (float32's 0.1 is 0.1)."""
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    text = f"{value:.6g}"
    return text if any(c in text for c in ".enai") else text + ".0"
