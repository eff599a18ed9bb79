"""Progress in a log (issue 29 item 6): a step that runs long gets a plain line, again at twice that long."""

from __future__ import annotations

import time

from judge.report.progress import StillRunning


def test_a_step_still_running_is_told_at_one_two_and_four_times_the_threshold_and_no_more_once_done():
    lines = []
    still = StillRunning(lines.append, after_s=0.2)
    try:
        still.begin("case edge-3 (rows=48, cols=48)")
        time.sleep(1.4)  # lines due at 0.2, 0.4 and 0.8 s (the next at 1.6 s)
        still.begin(None)
        told = list(lines)
        time.sleep(0.5)
    finally:
        still.stop()
    assert [line.split(" after ")[0] for line in told] == ["case edge-3 (rows=48, cols=48): still running"] * 3
    seconds = [float(line.split(" after ")[1].removesuffix(" s")) for line in told]
    assert all(s >= due for s, due in zip(seconds, (0.2, 0.4, 0.8))), told
    assert lines == told  # nothing after the step ended


def test_a_new_step_starts_the_clock_again():
    lines = []
    still = StillRunning(lines.append, after_s=0.2)
    try:
        for step in ("a", "b", "c", "d"):
            still.begin(step)
            time.sleep(0.1)
    finally:
        still.stop()
    assert lines == []
