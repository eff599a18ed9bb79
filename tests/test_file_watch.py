"""How judge watch notices a save (judge/watch/file_watch.py), and its usage errors."""

from __future__ import annotations

import os
import threading
import time

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.watch.file_watch import FileWatcher, have_watchfiles, signature

from conftest import SOLUTIONS


def _saved_within(watcher: FileWatcher, since, save, limit: float = 5.0) -> float:
    """Seconds from ``save()`` (on another thread, 0.3 s later) to ``wait`` returning."""
    saved = []
    timer = threading.Timer(0.3, lambda: (save(), saved.append(time.monotonic())))
    timer.start()
    try:
        watcher.wait(since)
        return time.monotonic() - saved[0]
    finally:
        timer.cancel()


@pytest.mark.parametrize("poll", [True, False])
def test_a_save_in_place_and_a_save_by_rename_are_both_seen(tmp_path, poll):
    if not poll and not have_watchfiles():
        pytest.skip("watchfiles is not installed (the optional extra judge[watch])")
    path = tmp_path / "sol.py"
    path.write_text("a = 1\n")
    watcher = FileWatcher(str(path), poll=poll)
    assert watcher.backend == ("polling" if poll else "watchfiles")
    try:
        assert _saved_within(watcher, signature(path), lambda: path.write_text("a = 2\n")) < 2.0

        def by_rename():
            (tmp_path / "new.py").write_text("a = 3\n")
            os.replace(tmp_path / "new.py", path)

        assert _saved_within(watcher, signature(path), by_rename) < 2.0
    finally:
        watcher.close()
    assert path.read_text() == "a = 3\n"


def test_a_save_during_a_judgement_is_not_lost(tmp_path):
    path = tmp_path / "sol.py"
    path.write_text("a = 1\n")
    judged = signature(path)
    time.sleep(0.01)
    path.write_text("a = 22\n")  # saved while the previous version was being judged
    started = time.monotonic()
    assert FileWatcher(str(path), poll=True).wait(judged) != judged
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("args, words", [
    (["watch", "no_such_challenge", str(SOLUTIONS / "transpose_ok.py")], "no_such_challenge"),
    (["watch", "transpose", "missing.py"], "solution file not found"),
])
def test_watch_usage_errors_exit_2_before_anything_is_judged(args, words):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and words in result.output
