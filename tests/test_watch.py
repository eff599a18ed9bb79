"""``judge watch``: judges the file, judges it again when it is saved, shows what
changed, and leaves no process behind on Ctrl-C (a real subprocess, CPU mode)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from judge.watch.file_watch import have_watchfiles

from conftest import ROOT, SOLUTIONS, SPECS

pytestmark = pytest.mark.slow


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (the judge's workers run in sessions of their own)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Lines:
    """The watcher's output, read on a thread so that every wait is bounded."""

    def __init__(self, stream):
        self.queue, self.seen = queue.Queue(), []
        threading.Thread(target=lambda: [self.queue.put(line) for line in stream], daemon=True).start()

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.seen):
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {text!r} within {timeout} s:\n{''.join(self.seen)}"
            try:
                self.seen.append(self.queue.get(timeout=remaining))
            except queue.Empty:
                pass


def _exit_status(process, lines: "Lines", timeout: float) -> int:
    """The process's exit status within ``timeout``; if it hangs, fail with what it printed,
    its signal state and every thread's stack (SIGABRT to its faulthandler): once, in a
    full parallel run, both watchers outlived their Ctrl-C by 30 s, and nothing said where."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = (Path("/proc") / str(process.pid) / "status").read_text()
        signals = [line for line in status.splitlines() if line.startswith(("Sig", "Shd", "State"))]
        process.send_signal(signal.SIGABRT)
        process.wait(timeout=10)
        time.sleep(0.5)
        while not lines.queue.empty():
            lines.seen.append(lines.queue.get())
        pytest.fail(f"no exit {timeout} s after the signal; {signals}\n{''.join(lines.seen)[-6000:]}")


@pytest.mark.parametrize("backend", ["polling", "watchfiles"])
def test_a_save_is_judged_again_and_ctrl_c_leaves_no_process(tmp_path, backend):
    if backend == "watchfiles" and not have_watchfiles():
        pytest.skip("watchfiles is not installed (the optional extra judge[watch])")
    solution = tmp_path / "sol.py"
    solution.write_text((SOLUTIONS / "transpose_wrong_value.py").read_text())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    args = [sys.executable, "-m", "judge", "watch", str(SPECS / "tiny_transpose.yaml"), str(solution),
            "--interpret", "--seed", "3", "--no-history"] + (["--poll"] if backend == "polling" else [])
    env["PYTHONFAULTHANDLER"] = "1"  # a watcher that hangs is asked for its threads' stacks (_exit_status)
    watch = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        lines = Lines(watch.stdout)
        lines.wait_for("WRONG_ANSWER", 90)
        lines.wait_for("save it to judge again", 10)
        solution.write_text((SOLUTIONS / "transpose_ok.py").read_text())
        lines.wait_for("ACCEPTED", 90)
        lines.wait_for("verdict: wrong_answer → accepted", 10)
        lines.wait_for("save it to judge again", 10)
        assert f"watching {solution} ({backend})" in "".join(lines.seen)
        workers = _descendants(watch.pid)
        assert workers, "the next judgement's worker is spawned in advance"
        watch.send_signal(signal.SIGINT)
        assert _exit_status(watch, lines, 30) == 130
        assert not [pid for pid in workers if _alive(pid)]
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()


def test_watch_takes_every_option_of_run():
    """README and watch's help promise run's options; --cpu-elements had been left out."""
    from judge.cli import main

    run, watch = main.commands["run"], main.commands["watch"]
    run_options = {opt for p in run.params for opt in p.opts}
    watch_options = {opt for p in watch.params for opt in p.opts}
    # --sanitize: a diagnosis after one run (compute-sanitizer, minutes); watch judges on every save
    run_only = {"--sanitize", "--sanitize-tool"}
    assert run_options - run_only <= watch_options, run_options - run_only - watch_options
