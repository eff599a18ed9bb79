"""One judgement at a time, in a background thread, through the CLI's own ``judge_solution``;
its progress kept as a list of events that any number of readers (the page's event
stream) follow from where they are.

A judgement's worker is forked by the judge server when one answers (as in a served
``judge run``: no second import of torch and triton), else spawned; a judgement that found
no server starts one when it ends, as ``judge run`` does (judge/server/autostart.py).
``stop`` cancels a judgement: its workers are killed and it ends as "stopped", unrecorded.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
from dataclasses import dataclass, field

from judge.judging.cancel import Cancelled, StopOnCancel, check
from judge.judging.runner import Events
from judge.worker import forked

__all__ = ["Busy", "Judgement", "Judgements", "KEEP"]


KEEP = 20  # judgements kept for their event streams (a page that reconnects); the history keeps the results


class Busy(RuntimeError):
    """A judgement is already running in this workspace (``running``: that one)."""

    def __init__(self, message: str, running: "Judgement"):
        super().__init__(message)
        self.running = running


@dataclass
class Judgement:
    id: int
    challenge: str
    solution: str
    ref: str = ""  # the catalogue's name of the challenge (a LeetGPU folder's path): the page that follows it
    file: str = ""  # the draft's file name (solution.py): with ref, which editor it judges
    submit: bool = False  # Submit (tests, then the benchmark) or Run (the tests)
    profile: bool = False  # Profile: the kernels of one benchmark case (judge profile), no verdict, not recorded
    source: str | None = None  # the text judged, as the page had it on screen (None: the file as saved)
    case: str | None = None  # one case judged again alone (judge run --case): its verdict is not recorded
    started_at: float = field(default_factory=time.time)  # the wall clock's, for the page's elapsed time
    events: list = field(default_factory=list)  # (kind, data), appended only
    done: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)
    cancel: threading.Event = field(default_factory=threading.Event)  # the page's Stop
    finishing: bool = False  # its verdict is being recorded: too late for a Stop (under ``changed``)

    def add(self, kind: str, data: dict, last: bool = False) -> None:
        with self.changed:
            self.events.append((kind, data))
            self.done = self.done or last
            self.changed.notify_all()

    def about(self) -> dict:
        """What a page needs to follow this judgement (``/api/status``, a refused Run): which draft, since when."""
        with self.changed:
            return {"id": self.id, "ref": self.ref, "name": self.challenge, "file": self.file, "submit": self.submit,
                    "profile": self.profile, "started_at": self.started_at, "now": time.time(), "done": self.done, "path": self.solution}

    @property
    def source_hash(self) -> str | None:
        return None if self.source is None else hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def follow(self, start: int = 0, wait_s: float = 15.0):
        """Yields (index, kind, data) from ``start`` on, until the last; ``None`` after ``wait_s`` without
        news (the stream sends a keep-alive then, so a closed page is noticed)."""
        index = start
        while True:
            with self.changed:
                if index >= len(self.events) and not self.done:
                    self.changed.wait(wait_s)
                news, finished = self.events[index:], self.done
            if not news and not finished:
                yield None
            for offset, (kind, data) in enumerate(news):
                yield index + offset, kind, data
            index += len(news)
            if finished and index >= len(self.events):
                return


class _Forwarded(Events):
    """The runner's callbacks as events of the judgement; each step first asks whether it was stopped."""

    def __init__(self, judgement: Judgement, options):
        self.judgement, self.options = judgement, options

    def started(self, result, total_cases: int) -> None:
        check(self.judgement.cancel)
        self.judgement.add("started", {
            "total": total_cases, "mode": result.mode, "device": result.device, "seed": result.seed,
            "server": forked.SERVER is not None, "submit": self.judgement.submit,
            "started_at": self.judgement.started_at,
            # the limits the status line states: a call's own time, and loading plus compiling
            "call_timeout_s": self.options.call_timeout(result.mode == "interpret"),
            "compile_timeout_s": self.options.compile_timeout})

    def case_started(self, case) -> None:
        check(self.judgement.cancel)
        self.judgement.add("case_started", {"name": case.name, "params": dict(case.params), "kind": case.kind})

    def case_finished(self, result) -> None:
        self.judgement.add("case", result.as_dict())
        check(self.judgement.cancel)

    def status(self, text: str) -> None:
        check(self.judgement.cancel)
        self.judgement.add("status", {"text": text})


class Judgements:
    """The workspace's judgements; ``start`` refuses a second while one runs (Busy)."""

    def __init__(self, record=None):
        self.record = record  # called with each result's dict and its judgement: the history (record_results)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.current: Judgement | None = None
        self.by_id: dict[int, Judgement] = {}

    def start(self, spec, solution: str, options, **about) -> Judgement:
        """Start judging ``solution``; ``about``: the Judgement's ref, file, submit and source."""
        with self._lock:
            if self.current is not None and not self.current.done:
                raise Busy(f"busy: {self.current.solution} is being judged; wait for its verdict", self.current)
            judgement = Judgement(next(self._ids), spec.name, solution, **about)
            self.current = self.by_id[judgement.id] = judgement
            for old in sorted(self.by_id)[:-KEEP]:  # the oldest, all finished: their events are kept no longer
                del self.by_id[old]
        threading.Thread(target=self._judge, args=(judgement, spec, options), daemon=True,
                         name=f"judgement-{judgement.id}").start()
        return judgement

    def running(self) -> "Judgement | None":
        """The judgement running now, if any."""
        with self._lock:
            current = self.current
        return current if current is not None and not current.done else None

    def judging(self, path) -> bool:
        """Whether the file at ``path`` is being judged now (its draft must not change under the worker)."""
        current = self.running()
        return current is not None and current.solution == str(path)

    def stop(self, number: int) -> bool:
        """Stop judgement ``number``; False if there is none running by that number."""
        judgement = self.by_id.get(number)
        if judgement is None:
            return False
        with judgement.changed:  # against _judge's decision: a Stop answered 202 is never followed by a verdict
            if judgement.done or judgement.finishing:
                return False
            judgement.cancel.set()
        return True

    def _judge(self, judgement: Judgement, spec, options) -> None:
        from judge.server import autostart

        # This judgement's workers: forked by the server if one answers; a profile's are spawned, as judge
        # profile's (CUPTI and ncu measure the process they start with).
        forked.SERVER = None if judgement.profile else warm_server()
        watcher = StopOnCancel(judgement.cancel)
        try:
            last = _profile(judgement, spec, options) if judgement.profile else _verdict(judgement, spec, options)
        except Cancelled:
            last = None
        except Exception as exc:  # noqa: BLE001 - the page must hear of it, as the CLI's last line of defence says
            judgement.add("error", {"message": f"{type(exc).__name__}: {exc}"}, last=True)
            return
        finally:
            watcher.stop()
            if forked.SERVER is None and not judgement.profile and autostart.allowed():
                autostart.start_in_background(0)  # for the next judgement
        with judgement.changed:  # a Stop after the last step still counts: the page was told "stopping"
            stopped = last is None or watcher.fired or judgement.cancel.is_set()
            judgement.finishing = not stopped
        if stopped:  # its workers were killed (or the page was told it stops): what they left is no verdict
            judgement.add("stopped", {"message": "stopped before its verdict; nothing was recorded"}, last=True)
            return
        kind, data = last
        if kind == "result":
            data["history_warning"] = self.record(data["result"], judgement) if self.record else None
        judgement.add(kind, data, last=True)


def _verdict(judgement: Judgement, spec, options) -> tuple[str, dict]:
    """Run or Submit: the judgement's result, as ``judge run --json`` has it (recorded by the caller)."""
    from judge.judging.dispatch import judge_solution

    return "result", {"result": judge_solution(spec, judgement.solution, options,
                                               _Forwarded(judgement, options)).as_dict()}


def _profile(judgement: Judgement, spec, options) -> tuple[str, dict]:
    """Profile: ``judge profile``'s report (``options``: its ProfileOptions), or what the user must change first
    ("profile_error": CPU mode, a LeetGPU folder, a solution that does not load)."""
    from judge.judging.profile import ProfileError, profile_solution

    def status(text: str) -> None:
        check(judgement.cancel)
        judgement.add("status", {"text": text})

    try:
        return "profile", {"report": profile_solution(spec, judgement.solution, options, status)}
    except ProfileError as exc:
        check(judgement.cancel)  # a worker killed by Stop fails its call: that is "stopped", not the user's error
        return "profile_error", {"message": str(exc)}


def warm_server() -> "forked.ServerLink | None":
    """The judge server this checkout's commands use (judge/server/client.py), when one answers and
    ``JUDGE_SERVER`` is not 0: it forks the judgement's workers."""
    from judge.server import client, compat

    conn = client.connect_here()
    if conn is None:
        return None
    conn.close()
    return forked.ServerLink(str(compat.socket_path()), compat.fingerprint())
