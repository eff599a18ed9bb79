"""Red-team findings of the 2026-11-26 session (a LeetGPU statement's sanitizer, judge ui's Stop,
the server's exit-status pipe): each test failed before its fix."""

from __future__ import annotations

import pytest

nh3 = pytest.importorskip("nh3", reason="the ui extra (nh3) is not installed")

from judge.ui.statement import leetgpu_statement_html, statement_html  # noqa: E402

# Each of these is read by Chromium as http://127.0.0.1:9999/ or http://localhost:9999/ (a.href, checked in
# Chromium 2026-11): the URL standard drops tabs and newlines anywhere, maps the host through UTS 46 (full-width
# digits and letters, ideographic full stops, soft hyphens and zero-width joiners go to ASCII or nothing) and
# percent-decodes the host as UTF-8 first.  A click then hands this server's cookie, the token, to that port.
DISGUISED_LOOPBACK = ["http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:9999/", "http://127.0.0.\t1:9999/",
                      "http://127.0.0.&#9;1:9999/", "http://127.0.0.&#10;1:9999/", "http://local\u00adhost:9999/",
                      "http://127\u30020\u30020\u30021:9999/", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:9999/",
                      "http://loc\u200bal\u200dhost:9999/", "http://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1:9999/",
                      "http://127.0.0.1\uff0e:9999/", "http://[0:0:0:0:0:0:0:1]:9999/", "http://[0::1]:9999/"]


@pytest.mark.parametrize("target", DISGUISED_LOOPBACK)
def test_a_leetgpu_statement_links_to_no_disguised_address_of_this_machine(target):
    out = leetgpu_statement_html(f'<a href="{target}">docs</a>')
    assert "href" not in out, out
    # (markdown-it's links are safe from these: it percent-encodes tabs and punycodes the name as it is, unmapped,
    # and Chromium keeps such an xn-- name, another host; the check applies to them all the same)
    if target.isascii() and "&" not in target:
        assert "href" not in statement_html(f"[docs]({target})")


def test_a_leetgpu_statement_keeps_its_links_out():
    assert 'href="https://example.com/a"' in leetgpu_statement_html('<a href="https://example.com/a">x</a>')
    assert 'href="https://b\u00fccher.example/"' in leetgpu_statement_html('<a href="https://b\u00fccher.example/">x</a>')


@pytest.mark.parametrize("value", ["u\\rl(/api/draft)", "\\75 rl(/api/challenges)", "\\000075rl(http://e/x#a)",
                                   "u\\72 l(/x)"])
def test_an_svg_paint_or_marker_cannot_fetch_through_a_css_escape(value):
    """A presentation attribute is CSS: ``u\\rl(/api/draft)`` is ``url(/api/draft)`` (Chromium computes
    ``fill`` as ``url("/api/draft")`` and requests it, this server's cookie with it: checked 2026-11), which the
    ``"url(" in value`` test did not see."""
    for name in ("fill", "stroke", "marker-end"):
        out = leetgpu_statement_html(f'<svg><line {name}="{value}"/></svg>')
        assert name not in out, out
    assert 'fill="url(#statement-g)"' in leetgpu_statement_html('<svg><rect fill="url(#g)"/></svg>')
