"""Verdicts: per case and for a whole run.  Pure data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from judge.base.exit_codes import ExitCode
from judge.judging.failures import message_cause

__all__ = ["Verdict", "CaseResult", "overall_verdict", "exit_code_for"]


class Verdict(str, Enum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    COMPILE_ERROR = "compile_error"
    INVALID_SUBMISSION = "invalid_submission"
    SKIPPED = "skipped"  # a case that was not run (after a time-out, or too large for CPU mode)
    NO_SUBMISSION = "no_submission"  # judge grade: nothing handed in (an empty folder, a missing file); a failure

    def __str__(self) -> str:
        return self.value


# When several cases fail differently, the run's verdict is the first failure
# in case order; a skipped case never decides it.
_FAILURES = (Verdict.INVALID_SUBMISSION, Verdict.COMPILE_ERROR, Verdict.RUNTIME_ERROR,
             Verdict.TIME_LIMIT_EXCEEDED, Verdict.WRONG_ANSWER, Verdict.NO_SUBMISSION)


@dataclass
class CaseResult:
    """The outcome of one functional test or benchmark case."""

    name: str
    kind: str
    params: dict
    verdict: Verdict
    message: str = ""
    time_ms: float | None = None  # of the checked call: GPU event time, or wall time in CPU mode
    details: dict = field(default_factory=dict)
    cause: str = ""  # a failure's cause, shared by failures alike (judging/failures.py); "" when passed

    def __post_init__(self) -> None:
        if not self.cause and self.verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED):
            self.cause = message_cause(self.verdict.value, self.message)

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    def as_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "params": dict(self.params),
               "verdict": self.verdict.value, "message": self.message, "time_ms": self.time_ms}
        if self.cause:
            out["cause"] = self.cause
        out.update(self.details)
        return out


def overall_verdict(results: list[CaseResult]) -> Verdict:
    """``accepted`` when every case that ran passed (and at least one ran)."""
    for result in results:
        if result.verdict in _FAILURES:
            return result.verdict
    ran = [r for r in results if r.verdict != Verdict.SKIPPED]
    return Verdict.ACCEPTED if ran else Verdict.INVALID_SUBMISSION


def exit_code_for(verdict: Verdict) -> ExitCode:
    return ExitCode.OK if verdict == Verdict.ACCEPTED else ExitCode.FAILED
