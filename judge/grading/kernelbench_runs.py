"""KernelBench's generations layout and its ``eval_results.json``, for ``judge grade --kernelbench-run``
(docs/kernelbench.md): the judge as a drop-in for KernelBench's scripts/eval_from_generations.py.

KernelBench (commit 423217d) keeps a run's generated kernels as
``runs/<run>/level_<L>_problem_<id>_sample_<s>_kernel.py`` and its evaluator writes
``runs/<run>/eval_results.json``: for each problem id (a string key, in numeric order) a list of
samples, each ``{"sample_id", "compiled", "correctness", "metadata", "runtime", "runtime_stats"}``
(its ``add_to_eval_results_file``), which scripts/benchmark_eval_analysis.py reads for its
success rates, fast_p and speed-ups.  Here the same keys hold the judge's verdicts: ``correctness``
is the judge's (KernelBench's own check on its inputs is in ``metadata["kernelbench_check"]``),
``runtime`` the median of the judge's timed calls in ms (-1.0 when not timed, as KernelBench
writes it), ``runtime_stats`` KernelBench's keys (mean, std, min, max, num_trials) and the median.

Pure: names and grade records in, dicts out.
"""

from __future__ import annotations

import math
import re

__all__ = ["GENERATION", "parse_generation", "eval_entry", "eval_results", "run_of"]

GENERATION = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")


def parse_generation(name: str) -> tuple[int, int, int] | None:
    """(level, problem id, sample id) of a generation's file name, else None."""
    found = GENERATION.match(name)
    return None if found is None else (int(found.group(1)), int(found.group(2)), int(found.group(3)))


def run_of(file: str) -> tuple[int, int, int] | None:
    """``parse_generation`` of a path's last part (``runs/r/level_1_problem_19_sample_0_kernel.py``)."""
    return parse_generation(str(file).replace("\\", "/").rsplit("/", 1)[-1])


def _compiled(record: dict) -> bool:
    """KernelBench's ``compiled``: the solution loaded and its ModelNew was built, so that its trials ran (a run
    that stops before its first trial, at the import, the build or ModelNew's constructor, has none)."""
    return bool(record.get("tests"))


def _errors(record: dict, compiled: bool) -> dict:
    """KernelBench's error keys for a failed sample (compilation_error, runtime_error, correctness_issue, error)."""
    verdict, message = record.get("verdict"), str(record.get("message") or "")
    first = message.splitlines()[0] if message else verdict
    if not compiled:
        return {"compilation_error_name": verdict, "compilation_error": first}
    if verdict == "runtime_error":
        return {"runtime_error_name": verdict, "runtime_error": first}
    if verdict == "time_limit_exceeded":
        return {"error": f"Evaluation timed out: {first}"}
    if verdict != "accepted":
        return {"correctness_issue_name": "correctness_issue", "correctness_issue": first}
    return {}


def _trials(record: dict, kernelbench: bool) -> str:
    tests = [t for t in record.get("tests") or [] if str(t.get("name", "")).startswith("trial-") == kernelbench
             or not kernelbench]
    return f"({sum(1 for t in tests if t.get('verdict') == 'accepted')} / {len(tests)})"


def _timing(record: dict) -> tuple[float, dict]:
    """(runtime in ms, runtime_stats) of an accepted, timed sample; (-1.0, {}) otherwise, as KernelBench writes."""
    timed = [b for b in record.get("benchmarks") or [] if b.get("verdict") == "accepted" and b.get("median_ms")]
    if record.get("verdict") != "accepted" or not timed:
        return -1.0, {}
    entry = timed[0]
    samples = [s for s in entry.get("samples_ms") or [] if isinstance(s, (int, float))]
    mean = entry.get("mean_ms") if entry.get("mean_ms") is not None else (sum(samples) / len(samples) if samples else None)
    std = math.sqrt(sum((s - mean) ** 2 for s in samples) / len(samples)) if samples and mean is not None else None
    stats = {"mean": _g3(mean), "std": _g3(std), "min": _g3(entry.get("min_ms")), "max": _g3(entry.get("max_ms")),
             "num_trials": entry.get("calls"), "median": _g3(entry["median_ms"]), "hardware": record.get("device"),
             "device": _device(record), "method": "the judge's timed calls (docs/timing.md): runtime is their median"}
    return float(entry["median_ms"]), stats


def _g3(value):
    """KernelBench rounds its timing stats to 3 significant digits (``f"{x:.3g}"``)."""
    return None if value is None else float(f"{value:.3g}")


def _device(record: dict) -> str:
    return f"cuda:{record['gpu']}" if isinstance(record.get("gpu"), int) else "cpu"


def eval_entry(sample_id: int, record: dict) -> dict:
    """One sample of KernelBench's eval_results.json from the judge's grade record of it."""
    compiled = _compiled(record)
    runtime, stats = _timing(record)
    benchmarks = [b for b in record.get("benchmarks") or [] if isinstance(b, dict)]
    metadata = {"hardware": record.get("device"), "device": _device(record), **_errors(record, compiled),
                "correctness_trials": _trials(record, kernelbench=True), "judge_trials": _trials(record, False),
                "kernelbench_check": record.get("kernelbench_check"),
                "judge": {"verdict": record.get("verdict"), "message": str(record.get("message") or "")[:500],
                          "rules": [r.get("name") for r in record.get("rules") or [] if isinstance(r, dict)],
                          "mode": record.get("mode"), "seed": record.get("seed"),
                          "speedup_vs_torch": benchmarks[0].get("speedup_vs_torch") if benchmarks else None,
                          "ref_runtime": benchmarks[0].get("torch_median_ms") if benchmarks else None}}
    return {"sample_id": sample_id, "compiled": compiled, "correctness": record.get("verdict") == "accepted",
            "metadata": metadata, "runtime": runtime, "runtime_stats": stats}


def eval_results(records: list[dict]) -> dict:
    """KernelBench's eval_results.json from a grade's records: those of generation files that were graded, keyed by
    problem id (a string, in numeric order), each problem's samples in sample order."""
    by_problem: dict[int, list[tuple[int, dict]]] = {}
    for record in records:
        named = run_of(record.get("file", ""))
        if named is None or record.get("verdict") in (None, "pending"):
            continue
        _, problem, sample = named
        by_problem.setdefault(problem, []).append((sample, record))
    return {str(problem): [eval_entry(sample, record) for sample, record in sorted(samples, key=lambda s: s[0])]
            for problem, samples in sorted(by_problem.items())}
