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


class _Result:
    def as_dict(self) -> dict:
        return {"verdict": "accepted"}


def _quiet_judgements(monkeypatch, judge_solution):
    """Judgements whose judge_solution is ``judge_solution``, with no judge server looked for or started."""
    from judge.judging import dispatch
    from judge.server import autostart
    from judge.ui import judgements as module

    monkeypatch.setattr(dispatch, "judge_solution", judge_solution)
    monkeypatch.setattr(module, "warm_server", lambda: None)
    monkeypatch.setattr(autostart, "allowed", lambda: False)
    recorded = []
    return module.Judgements(record=lambda result, judgement: recorded.append(result)), recorded


class _Spec:
    name = "transpose"


def _events(judgement, timeout: float = 20) -> list:
    """The judgement's events to its last; fails (instead of waiting for ever) if it never ends."""
    events = []
    for item in judgement.follow(0, wait_s=timeout):
        assert item is not None, f"the judgement did not end: {events}"
        events.append(item)
    return events


def test_a_stop_the_page_was_told_of_is_kept_even_at_the_very_end(monkeypatch):
    """A Stop that arrives after the judgement's last step (its workers' watcher already stopped) was answered
    202 "stopping", and then the judgement ended with its verdict and wrote its history row: the page, told it
    was stopping, showed a result and the history had a run that was meant to be dropped.  Either the Stop is
    refused (409: it ended already) or the judgement ends "stopped" and records nothing."""
    from judge.judging import cancel

    judgements, recorded = _quiet_judgements(monkeypatch, lambda spec, solution, options, events: _Result())
    answers = []
    original = cancel.StopOnCancel.stop

    def stop_then_page_stops(watcher):
        original(watcher)
        answers.append(judgements.stop(judgements.current.id))  # the POST, between the last step and the verdict

    monkeypatch.setattr(cancel.StopOnCancel, "stop", stop_then_page_stops)
    judgement = judgements.start(_Spec(), "solution.py", None)
    events = _events(judgement)
    assert answers, events
    last = events[-1][1]
    if answers[0]:
        assert last == "stopped" and recorded == [], (answers, events, recorded)
    else:
        assert last == "result" and len(recorded) == 1


def test_a_stop_while_the_result_is_recorded_is_refused(monkeypatch):
    """The same race, one step later: a Stop while the history row is being written is answered 409, not 202."""
    import threading

    writing, release = threading.Event(), threading.Event()
    judgements, recorded = _quiet_judgements(monkeypatch, lambda spec, solution, options, events: _Result())

    def slow_record(result, judgement):
        writing.set()
        release.wait(10)
        recorded.append(result)

    judgements.record = slow_record
    judgement = judgements.start(_Spec(), "solution.py", None)
    assert writing.wait(10)
    try:
        assert judgements.stop(judgement.id) is False
    finally:
        release.set()
    assert _events(judgement)[-1][1] == "result" and len(recorded) == 1
