"""The safety rules of every request to ``judge ui`` (pure: no I/O).

The page runs code on this machine, so a request must come with the session's
token (in the URL once, then a cookie), name this server in its Host header (a
page of another site that rebinds its DNS name to 127.0.0.1 sends its own name),
and a request that changes anything must come from this server's own page (its
Origin, when the browser sends one, is this server; and it carries a header a
cross-site form or a simple cross-origin fetch cannot add without a preflight,
which this server never answers).
"""

from __future__ import annotations

import hmac

__all__ = ["COOKIE", "HEADER", "SECURITY_HEADERS", "cookie_name", "allowed_hosts", "host_allowed", "origin_allowed", "token_matches",
           "ANY_HOST"]

COOKIE = "judge_ui_token"
# The page's scripts and styles are its own files: no inline script or handler runs (a statement that slips
# one past the escaping gets nothing), no eval, no other site frames it, and no address leaves in a Referer.
# Styles may be inline (CodeMirror and KaTeX set style attributes). Images only from here: a statement's
# ![](http://127.0.0.1:9999/x.png) was a same-site request to another port, and browsers send this server's
# cookie, the token, to every port of the host (whoever listens there could then run code here); a remote image
# would also tell its server when the statement was read.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; font-src 'self'; connect-src 'self'; "
                               "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
HEADER = "X-Judge-UI"  # the page's fetches send it; a cross-site form cannot
ANY_HOST = "*"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def cookie_name(port: int) -> str:
    """One cookie per port: a browser keeps cookies per host, not per port, so two servers with one name
    would replace each other's token."""
    return f"{COOKIE}_{port}"


def allowed_hosts(bound_host: str, port: int) -> frozenset[str]:
    """The Host header values that name this server: its address and port; for a loopback address, every
    loopback name; for 0.0.0.0 or ::, any (the server is then meant to be reached by other names)."""
    if bound_host in ("0.0.0.0", "::", ""):
        return frozenset({ANY_HOST})
    host = f"[{bound_host}]" if ":" in bound_host and not bound_host.startswith("[") else bound_host
    names = LOOPBACK_NAMES if host in LOOPBACK_NAMES else (host,)
    return frozenset(f"{name}:{port}" for name in names) | (frozenset(names) if port == 80 else frozenset())


def host_allowed(host_header: str | None, allowed: frozenset[str]) -> bool:
    return ANY_HOST in allowed or (host_header or "").lower() in allowed


def origin_allowed(origin: str | None, host_header: str | None) -> bool:
    """No Origin (a same-origin GET in some browsers) or exactly this server's own."""
    if origin is None:
        return True
    return origin.lower() in (f"http://{(host_header or '').lower()}",)


def token_matches(given: str | None, expected: str) -> bool:
    """Compared in constant time: the token is the only secret between the page and the server."""
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())
