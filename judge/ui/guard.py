"""The safety rules of every request to ``judge ui`` (pure: no I/O).

The page runs code on this machine, so a request for anything of the user's (the API) must carry
the session's token in a header the page's own script adds (``X-Judge-Token``; the event stream,
which a browser's EventSource cannot give headers, in its URL).  The page keeps the token, which
the printed URL brings once, in its origin's localStorage: an origin is a host *and a port*, so no
other server of this machine ever receives it (a cookie would have gone to every port of 127.0.0.1,
whoever listens there).  The page's shell (``/``) and its scripts and styles hold nothing of the
user's and need no token.  A request must also name this server in its Host header (a page of
another site that rebinds its DNS name to 127.0.0.1 sends its own name), and a request that changes
anything must come from this server's own page (its Origin, when the browser sends one, is this
server's; and its headers need a preflight, which this server never answers).
"""

from __future__ import annotations

import hmac

__all__ = ["HEADER", "TOKEN_HEADER", "SECURITY_HEADERS", "allowed_hosts", "host_allowed", "origin_allowed",
           "token_matches", "needs_token", "stream_path", "ANY_HOST"]

# The page's scripts and styles are its own files: no inline script or handler runs (a statement that slips
# one past the escaping gets nothing), no eval, no other site frames it, and no address leaves in a Referer.
# Styles may be inline (CodeMirror and KaTeX set style attributes). Images only from here: a statement's
# ![](http://127.0.0.1:9999/x.png) is a request to another port of this host, and a remote image would tell its
# server when the statement was read.
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


TOKEN_HEADER = "X-Judge-Token"  # the page's script adds it to every API request, from localStorage


def needs_token(path: str) -> bool:
    """Everything but the page's shell, its static files and its icon: those hold nothing of the user's."""
    return path not in ("/", "/favicon.ico") and not path.startswith("/static/")


def stream_path(path: str) -> bool:
    """A judgement's event stream: the one request whose token may come in the URL (EventSource sends no
    headers of its own)."""
    parts = path.split("/")
    return len(parts) == 5 and parts[1:3] == ["api", "run"] and parts[3].isdigit() and parts[4] == "events"


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
    return origin.lower() == f"http://{(host_header or '').lower()}"


def token_matches(given: str | None, expected: str) -> bool:
    """Compared in constant time: the token is the only secret between the page and the server."""
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())
