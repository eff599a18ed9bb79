"""One judgement at a time, in a background thread, through the CLI's own ``judge_solution``;
its progress kept as a list of events that any number of readers (the page's event
stream) follow from where they are.

A judgement's worker is forked by the judge server when one answers (as in a served
``judge run``: no second import of torch and triton), else spawned; a judgement that found
no server starts one when it ends, as ``judge run`` does (judge/server/autostart.py).
``stop`` cancels a judgement: its workers are killed and it ends as "stopped", unrecorded.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

from judge.judging.cancel import Cancelled, StopOnCancel, check
from judge.judging.runner import Events
from judge.worker import forked

__all__ = ["Busy", "Judgement", "Judgements", "KEEP"]


KEEP = 20  # judgements kept for their event streams (a page that reconnects); the history keeps the results


class Busy(RuntimeError):
    """A judgement is already running in this workspace."""


@dataclass
class Judgement:
    id: int
    challenge: str
    solution: str
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

    def __init__(self, judgement: Judgement):
        self.judgement = judgement

    def started(self, result, total_cases: int) -> None:
        check(self.judgement.cancel)
        self.judgement.add("started", {"total": total_cases, "mode": result.mode, "device": result.device,
                                       "seed": result.seed, "server": forked.SERVER is not None})

    def case_started(self, case) -> None:
        check(self.judgement.cancel)

    def case_finished(self, result) -> None:
        self.judgement.add("case", result.as_dict())
        check(self.judgement.cancel)

    def status(self, text: str) -> None:
        check(self.judgement.cancel)
        self.judgement.add("status", {"text": text})


class Judgements:
    """The workspace's judgements; ``start`` refuses a second while one runs (Busy)."""

    def __init__(self, record=None):
        self.record = record  # called with each result's dict: the history (recording.record_results)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.current: Judgement | None = None
        self.by_id: dict[int, Judgement] = {}

    def start(self, spec, solution: str, options) -> Judgement:
        with self._lock:
            if self.current is not None and not self.current.done:
                raise Busy(f"busy: {self.current.solution} is being judged; wait for its verdict")
            judgement = Judgement(next(self._ids), spec.name, solution)
            self.current = self.by_id[judgement.id] = judgement
            for old in sorted(self.by_id)[:-KEEP]:  # the oldest, all finished: their events are kept no longer
                del self.by_id[old]
        threading.Thread(target=self._judge, args=(judgement, spec, options), daemon=True,
                         name=f"judgement-{judgement.id}").start()
        return judgement

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
        from judge.judging.dispatch import judge_solution
        from judge.server import autostart

        forked.SERVER = warm_server()  # this judgement's workers: forked by the server if one answers
        watcher = StopOnCancel(judgement.cancel)
        try:
            result = judge_solution(spec, judgement.solution, options, _Forwarded(judgement)).as_dict()
        except Cancelled:
            result = None
        except Exception as exc:  # noqa: BLE001 - the page must hear of it, as the CLI's last line of defence says
            judgement.add("error", {"message": f"{type(exc).__name__}: {exc}"}, last=True)
            return
        finally:
            watcher.stop()
            if forked.SERVER is None and autostart.allowed():
                autostart.start_in_background(0)  # for the next judgement
        with judgement.changed:  # a Stop after the last step still counts: the page was told "stopping"
            stopped = result is None or watcher.fired or judgement.cancel.is_set()
            judgement.finishing = not stopped
        if stopped:  # its workers were killed (or the page was told it stops): what they left is no verdict
            judgement.add("stopped", {"message": "stopped before its verdict; nothing was recorded"}, last=True)
            return
        warning = self.record(result) if self.record else None
        judgement.add("result", {"result": result, "history_warning": warning}, last=True)


def warm_server() -> "forked.ServerLink | None":
    """The judge server this checkout's commands use (judge/server/client.py), when one answers and
    ``JUDGE_SERVER`` is not 0: it forks the judgement's workers."""
    from judge.server import client, compat

    conn = client.connect_here()
    if conn is None:
        return None
    conn.close()
    return forked.ServerLink(str(compat.socket_path()), compat.fingerprint())
