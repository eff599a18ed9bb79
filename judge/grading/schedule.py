"""Which submission a grade starts first: the longest expected first.

A grade on N slots (GPUs, CPU jobs, Dask workers) ends when its last judgement ends.
Started in plan order, a long judgement that comes last (an autotuned matmul) runs
alone at the end while the other slots sit idle; started first, it overlaps with all
the short ones (the "longest processing time first" rule).  Results are still
reported in plan order: only the order in which judgements start changes.

What a judgement is expected to take comes from, best first:

- ``history``: this very solution (its bytes' sha256) graded before, in this mode;
- ``challenge``: the median of earlier grades of the same challenge's other solutions;
- ``sizes``: a rough model of the challenge's test and benchmark cases, scaled to the
  history of the grade's other challenges where there is one;
- ``problem``: an entry that is not judged (``entry.problem``, an unknown challenge):
  0 s, and started first, since it is recorded at once.

The history is a plain dict, read and written by grading/durations.py:
``{"version": 1, "seq": n, "machines": {machine: {"seq": n, "challenges":
{spec name: {sha256: wall_s}}}}}``, one machine per mode and GPU model
(``machine_key``).  Pure: no I/O, no clock; tested directly (tests/test_schedule.py).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from judge.challenge.cases import case_elements, generate_cases

__all__ = ["BY", "HISTORY_VERSION", "Expected", "History", "machine_key", "history_for", "remembered",
           "fit_for_history", "sizes_seconds", "expected_durations", "start_order", "schedule_summary"]

BY = "longest expected first"
HISTORY_VERSION = 1
MAX_PER_CHALLENGE = 200  # solutions remembered per challenge and machine: the most recently graded

# The sizes model.  It only has to rank (the history replaces it after one grade), so these are
# round numbers from this project's grades (docs/grading.md): a CPU-mode judgement of a tiny
# transpose takes 2-3 s, most of it the worker's start; a GPU one 5-15 s, most of it benchmarks.
START_S = 2.0  # a worker's start and the solution's load
CASE_S = 0.05  # each functional case's own cost: the call, the reference, the comparison
INTERPRETED_ELEMENT_S = 2e-5  # per tensor element of a case in Triton's interpreter
DEVICE_ELEMENT_S = 2e-9  # per tensor element on a GPU: inputs drawn, outputs sent back and compared
DEVICE_FLOP_S = 5e-12  # per floating-point operation on a GPU (the spec's cost): the call and the reference
BENCH_CASE_S = 1.0  # per benchmark case beyond its budget: warm-up, verification, the torch baseline
SHIPPED_TESTS = 10  # a LeetGPU folder's functional tests, unknown until its generators run (7-10 by its rules)


@dataclass(frozen=True)
class Expected:
    """What entry ``index`` (its plan index) is expected to take, and where that came from."""

    index: int
    seconds: float
    source: str  # "history", "challenge", "sizes" or "problem"


# -- the history of earlier grades ---------------------------------------------------------

def machine_key(mode: str, device: str | None = None) -> str:
    """Where durations were measured: ``interpret``, or ``gpu · NVIDIA H200`` (``gpu`` when the
    GPU's name is not known)."""
    if mode == "interpret":
        return "interpret"
    return f"gpu · {device}" if device else "gpu"


@dataclass(frozen=True)
class History:
    """Earlier grades' durations in one mode: spec name -> sha256 -> seconds."""

    challenges: dict

    def seconds(self, spec_name: str, sha256: str | None) -> tuple[float, str] | None:
        """(seconds, source) from this solution's own last grade, else the challenge's median; None when
        the challenge was never graded here."""
        known = self.challenges.get(spec_name) or {}
        if sha256 and sha256 in known:
            return known[sha256], "history"
        if known:
            return statistics.median(known.values()), "challenge"
        return None

    def challenge_median(self, spec_name: str) -> float | None:
        known = self.challenges.get(spec_name)
        return statistics.median(known.values()) if known else None


def _machines(cache) -> dict:
    """The cache's machines, or {} for anything that is not a cache of this version (corrupt, old, empty)."""
    if not isinstance(cache, dict) or cache.get("version") != HISTORY_VERSION:
        return {}
    machines = cache.get("machines")
    return machines if isinstance(machines, dict) else {}


def _durations(machine) -> dict:
    """A machine's spec name -> {sha256: seconds}, keeping only well-formed positive finite durations."""
    challenges = machine.get("challenges") if isinstance(machine, dict) else None
    if not isinstance(challenges, dict):
        return {}
    clean = {}
    for name, solutions in challenges.items():
        if isinstance(solutions, dict):
            kept = {sha: float(s) for sha, s in solutions.items()
                    if isinstance(s, (int, float)) and not isinstance(s, bool) and 0 < s < math.inf}
            if kept:
                clean[str(name)] = kept
    return clean


def history_for(cache, mode: str) -> History:
    """The history of ``mode`` (``gpu`` or ``interpret``) in ``cache``.  A GPU grade does not know its
    workers' GPUs before they judge (a cluster's), so every GPU model's durations count, the most
    recently updated machine's winning where two know the same solution."""
    machines = [m for key, m in _machines(cache).items()
                if (key == "interpret") == (mode == "interpret") and isinstance(m, dict)]
    machines.sort(key=lambda m: m.get("seq", 0) if isinstance(m.get("seq"), int) else 0)
    merged: dict = {}
    for machine in machines:
        for name, solutions in _durations(machine).items():
            merged.setdefault(name, {}).update(solutions)
    return History(merged)


def fit_for_history(record: dict) -> bool:
    """Whether a record's ``wall_s`` is a judgement's own duration: judged in this grade (not carried
    over by --resume), not the grade's own failure (``internal_error``), with the solution's sha256 and
    the spec's name, and time spent (a record made without judging has 0 s)."""
    wall = record.get("wall_s")
    return (not record.get("carried_over") and not record.get("internal_error") and bool(record.get("sha256"))
            and bool(record.get("spec")) and isinstance(wall, (int, float)) and wall > 0
            and record.get("verdict") != "pending")


def remembered(cache, records: list[dict], mode: str) -> dict:
    """``cache`` with the durations of ``records`` (those ``fit_for_history``) added, each under its
    machine (``machine_key`` of ``mode`` and the record's ``device``); a solution graded again moves to
    the end of its challenge, whose oldest beyond MAX_PER_CHALLENGE are dropped.  A cache that is not
    one (corrupt, another version) is started afresh."""
    machines = {key: {"seq": m.get("seq", 0), "challenges": _durations(m)} for key, m in _machines(cache).items()
                if _durations(m)}  # a machine with nothing usable left is dropped
    seq = (cache.get("seq", 0) if isinstance(cache, dict) and isinstance(cache.get("seq"), int) else 0) + 1
    for record in filter(fit_for_history, records):
        device = record.get("device") if mode != "interpret" else None
        machine = machines.setdefault(machine_key(mode, device), {"seq": seq, "challenges": {}})
        machine["seq"] = seq
        solutions = machine["challenges"].setdefault(str(record["spec"]), {})
        solutions.pop(record["sha256"], None)  # re-inserted last: the dict's order is the order of grading
        solutions[record["sha256"]] = round(float(record["wall_s"]), 3)
        for oldest in list(solutions)[:-MAX_PER_CHALLENGE]:
            del solutions[oldest]
    return {"version": HISTORY_VERSION, "seq": seq, "machines": machines}


# -- the challenge's sizes ---------------------------------------------------------------------

def sizes_seconds(spec, settings) -> float:
    """A rough duration of judging one solution of ``spec`` with ``settings`` (a GradeSettings: its
    ``interpret``, ``benchmark``, ``bench_budget_s``, ``cpu_elements`` and ``public_seed``), from the
    cases the runner will generate: a fixed start, a cost per functional case, per tensor element and
    on GPUs per floating-point operation, and on GPUs each benchmark case's budget.  A LeetGPU folder
    (``spec.shipped``) has no sizes to read: SHIPPED_TESTS cases of unknown size and one benchmark."""
    interpret = settings.interpret
    tests, elements, flops = SHIPPED_TESTS, 0, 0.0
    if not getattr(spec, "shipped", False):
        try:
            cases = generate_cases(spec, settings.public_seed, interpret, settings.cpu_elements)
            tests = len(cases)
            elements = sum(case_elements(spec, case.params) for case in cases)
            flops = sum(spec.flops(case.params) for case in cases)
        except Exception:  # noqa: BLE001 - an estimate must never stop a grade: count the explicit tests only
            tests, elements, flops = len(spec.tests) + spec.random_tests, 0, 0.0
    benchmarks = 1 if getattr(spec, "shipped", False) else len(spec.benchmarks)
    if interpret:
        return START_S + tests * CASE_S + elements * INTERPRETED_ELEMENT_S
    seconds = START_S + tests * CASE_S + elements * DEVICE_ELEMENT_S + flops * DEVICE_FLOP_S
    if settings.benchmark:
        seconds += benchmarks * (settings.bench_budget_s + BENCH_CASE_S)
    return seconds


def _sizes_scale(models: list[tuple[str, float]], history: History) -> float:
    """How much longer this machine's grades took than the sizes model says (``models``: spec name, model
    seconds), over the grade's challenges that have a history (the median ratio; 1 without any), so that a
    challenge estimated from its sizes ranks fairly against those estimated from their history."""
    ratios = [history.challenge_median(name) / model for name, model in models
              if history.challenge_median(name) and model > 0]
    return statistics.median(ratios) if ratios else 1.0


def expected_durations(entries: list, todo: list[int], specs: dict, settings, history: History) -> list[Expected]:
    """The expected duration of each entry of ``todo`` (plan indices; ``entries[i]`` has ``problem``,
    ``spec_path`` and ``snapshot``, whose ``sha256`` names the bytes judged), in ``todo``'s order."""
    judged = {i for i in todo if not entries[i].problem and entries[i].spec_path in specs}
    models = {path: sizes_seconds(specs[path], settings)  # per spec file: two may share a name
              for path in {entries[i].spec_path for i in judged}}
    scale = _sizes_scale([(specs[path].name, model) for path, model in models.items()], history)
    out = []
    for index in todo:
        if index not in judged:
            out.append(Expected(index, 0.0, "problem"))
            continue
        path = entries[index].spec_path
        found = history.seconds(specs[path].name, getattr(entries[index].snapshot, "sha256", None))
        seconds, source = found if found else (models[path] * scale, "sizes")
        out.append(Expected(index, seconds, source))
    return out


def start_order(expected: list[Expected]) -> list[Expected]:
    """The order to start judgements in: entries that are not judged first (they take no time and are
    recorded at once), then the longest expected first; equal ones keep their order (a stable sort)."""
    return sorted(expected, key=lambda e: (e.source != "problem", -e.seconds))


def schedule_summary(order: list[Expected], entries: list) -> dict:
    """The grade document's ``schedule``: how the order was chosen and each entry in start order."""
    return {"by": BY, "order": [{"submission": entries[e.index].submission, "challenge": entries[e.index].challenge,
                                 "expected_s": round(e.seconds, 2), "expected_from": e.source} for e in order]}
