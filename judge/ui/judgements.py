"""One judgement at a time, in a background thread, through the CLI's own ``judge_solution``;
its progress kept as a list of events that any number of readers (the page's event
stream) follow from where they are."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

from judge.judging.runner import Events

__all__ = ["Busy", "Judgement", "Judgements"]


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
    """The runner's callbacks as events of the judgement."""

    def __init__(self, judgement: Judgement):
        self.judgement = judgement

    def started(self, result, total_cases: int) -> None:
        self.judgement.add("started", {"total": total_cases, "mode": result.mode, "device": result.device,
                                       "seed": result.seed})

    def case_finished(self, result) -> None:
        self.judgement.add("case", result.as_dict())

    def status(self, text: str) -> None:
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
        threading.Thread(target=self._judge, args=(judgement, spec, options), daemon=True,
                         name=f"judgement-{judgement.id}").start()
        return judgement

    def _judge(self, judgement: Judgement, spec, options) -> None:
        from judge.judging.dispatch import judge_solution

        try:
            result = judge_solution(spec, judgement.solution, options, _Forwarded(judgement)).as_dict()
        except Exception as exc:  # noqa: BLE001 - the page must hear of it, as the CLI's last line of defence says
            judgement.add("error", {"message": f"{type(exc).__name__}: {exc}"}, last=True)
            return
        warning = self.record(result) if self.record else None
        judgement.add("result", {"result": result, "history_warning": warning}, last=True)
