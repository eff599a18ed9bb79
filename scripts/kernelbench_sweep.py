# Reproduces: docs/kernelbench.md, "The sweep of all four levels" (every problem's reference judged as its own
# ModelNew); run by `scripts/gpu_check.sh kbsweep`, its table in docs/gpu-results.md.
"""Judge every KernelBench problem's reference as its own ModelNew, correctness only, and table what cannot run
here and why (issue 47).

    python scripts/kernelbench_sweep.py CHECKOUT [--levels 1,2,3,4] [--shards 6] [--timeout 30] [--deadline 420]
        [--out RUN] [--json OUT.json] [--markdown OUT.md] [--interpret] [--only REGEX] [--limit N]

CHECKOUT is a clone of github.com/ScalingIntelligence/KernelBench (the folder that holds KernelBench/).

1. Every problem of the levels is described (judge.challenge.kernelbench.load_problem, in --shards processes:
   level 3's LSTMs take seconds each on the meta device; the judge's cache keeps the descriptions for the grades).
   One that cannot load (a missing package: level 3's Mamba2 needs einops, level 4 transformers) is a row of the
   table and is not graded (a spec that cannot load stops a whole ``judge grade``).
2. The others are written as KernelBench's runs/ layout, one folder a shard:
   ``RUN/shard_<k>/level_<L>_problem_<id>_sample_0_kernel.py``, each the problem's own text and
   ``ModelNew = Model`` (the worker builds ModelNew as Model is built, so the weights are the reference's).
3. The shards are graded at once, each by the judge's own
   ``judge --challenges-dir CHECKOUT/KernelBench grade --kernelbench-run RUN/shard_<k> --no-bench --json``.
   On one GPU they share its memory: the shards are contiguous runs of the problems ordered by their estimated
   peak (``PEAK_FACTOR`` times one call's bytes: the judge's inputs and reference output, the worker's draw, its
   guarded inputs, its output and the previous one), as even in count as the rule allows that the shards'
   largest peaks add up to at most --gpu-memory (``plan_shards``).  Past --deadline seconds the shards still
   grading are stopped (SIGTERM: a grade keeps its JSON) and their ungraded problems are rows "not reached".
4. A problem that ran out of GPU memory beside the other shards is graded once more alone, time allowing;
   the table says what it got alone.

Every grade is deterministic in what it checks, the reference against itself: anything but ``accepted`` is the
judge's or the machine's limit (memory, time, a package), and each such problem is a row with its reason.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PEAK_FACTOR = 3.5  # GPU bytes a correctness grade holds at once, in units of one call's inputs and outputs
GENERATION = "level_{level}_problem_{id}_sample_0_kernel.py"
MODELNEW = "\n\n# kernelbench_sweep.py: the reference judged as its own solution\nModelNew = Model\n"


# -- pure pieces ------------------------------------------------------------------------------------------

def generation_text(problem_text: str) -> str:
    """A solution file that is the problem itself: its text, then ``ModelNew = Model`` (the judge's loader takes
    ``module.ModelNew`` and builds it with get_init_inputs() under the run's seed, as it builds Model)."""
    return problem_text.rstrip("\n") + "\n" + MODELNEW


def problem_key(path: Path) -> tuple[int, int]:
    """(level, id) of ``.../level<L>/<id>_<name>.py``, as KernelBench numbers its problems."""
    level = int(re.fullmatch(r"level(\d+)", path.parent.name).group(1))
    return level, int(path.name.split("_", 1)[0])


def plan_shards(peaks: dict, shards: int, budget: float) -> list[list]:
    """The problems (keys of ``peaks``, their estimated peak GPU bytes) in at most ``shards`` shards: contiguous
    blocks of the problems ordered by peak, largest first, of the smallest size C for which the blocks' first
    (largest) peaks add up to at most ``budget``; so the problems running at once, one a shard, never need more
    together.  Blocks of exactly C make every block's first peak the smallest any plan of blocks of at most C
    can have, so the smallest feasible C is found by trying them in turn; where none is (the largest alone is over
    the budget), one shard of everything."""
    order = sorted(peaks, key=lambda key: (-peaks[key], key))
    if not order:
        return []
    count = len(order)
    for size in range(math.ceil(count / max(1, shards)), count + 1):
        if sum(peaks[order[start]] for start in range(0, count, size)) <= budget:
            return [order[start:start + size] for start in range(0, count, size)]
    return [order]


_REASONS = [  # (pattern in a verdict's message, the reason a row gives); the first that matches
    (re.compile(r"out of (GPU )?memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation",
                re.IGNORECASE),
     "out of GPU memory"),
    (re.compile(r"No module named '([\w.]+)'|needs the Python package '([\w.]+)'"), "missing package {}"),
    (re.compile(r"timed out|time limit|took longer than", re.IGNORECASE), "timeout"),
    (re.compile(r"from_pretrained|huggingface\.co|LocalEntryNotFound|HF_HUB", re.IGNORECASE),
     "needs a Hugging Face model (no network here)"),
]


def reason_of(verdict: str, message: str) -> str:
    """A one-line reason for a problem that was not accepted: out of GPU memory, missing package X, timeout, or the
    message's first line (cut to 160 characters, no '|' to break a Markdown table)."""
    text = message or ""
    for pattern, reason in _REASONS:
        found = pattern.search(text)
        if found:
            groups = [g for g in found.groups() if g] if found.groups() else []
            return reason.format(groups[0].split(".")[0] if groups else "")
    if verdict == "time_limit_exceeded":
        return "timeout"
    first = next((line.strip() for line in text.splitlines() if line.strip()), verdict or "no verdict")
    return first.replace("|", "/")[:160]


def rows_from_grades(problems: dict, grades: list[dict]) -> dict:
    """Each problem's row, ``(level, id) -> {level, id, name, verdict, reason}``: from ``problems`` (key -> row
    holding at least the name, and a verdict and reason where it was never graded) and the records of grade JSON
    documents (later documents win: a retry alone replaces the shared run).  A problem no record names keeps its
    row as given."""
    rows = {key: dict(row) for key, row in problems.items()}
    by_file = {}
    for doc in grades:
        for record in doc.get("results") or []:
            name = str(record.get("file") or "").rsplit("/", 1)[-1]
            found = re.match(r"level_(\d+)_problem_(\d+)_sample_\d+_kernel\.py$", name)
            if found and record.get("verdict") not in (None, "pending"):
                by_file[(int(found.group(1)), int(found.group(2)))] = record
    for key, record in by_file.items():
        if key not in rows:
            continue
        verdict = record["verdict"]
        rows[key].update(verdict=verdict, wall_s=record.get("wall_s"),
                         reason="" if verdict == "accepted" else reason_of(verdict, str(record.get("message") or "")))
    return rows


def markdown(rows: dict, levels: list[int], note: str = "") -> str:
    """The sweep's table: per level the problems, accepted, not accepted and not graded (cannot load, not reached);
    then every problem that was not accepted, with its verdict and reason."""
    lines = ([note, ""] if note else []) + [
        "| level | problems | accepted | not accepted | cannot load | not reached |", "|---|---:|---:|---:|---:|---:|"]
    for level in levels:
        mine = [r for (lv, _), r in rows.items() if lv == level]
        verdicts = [r.get("verdict") for r in mine]
        graded_not = sum(1 for v in verdicts if v not in ("accepted", "cannot_load", "not_reached"))
        lines.append(f"| {level} | {len(mine)} | {verdicts.count('accepted')} | {graded_not} | "
                     f"{verdicts.count('cannot_load')} | {verdicts.count('not_reached')} |")
    failed = [(key, r) for key, r in sorted(rows.items()) if r.get("verdict") != "accepted"]
    if failed:
        lines += ["", "| level | problem | verdict | reason |", "|---|---|---|---|"]
        lines += [f"| {lv} | {r['name']} | {r.get('verdict')} | {r.get('reason', '')} |" for (lv, _), r in failed]
    else:
        lines += ["", "Every problem's reference was accepted as its own ModelNew."]
    return "\n".join(lines) + "\n"


# -- describing, writing, grading -------------------------------------------------------------------------

def describe(path: str) -> dict:
    """One problem described at its file's sizes (in a process of the pool): its bytes a call, or why it cannot
    load."""
    from judge.challenge.kernelbench import load_problem

    try:
        return {"bytes": float(load_problem(path).bytes_formula or 0.0)}
    except Exception as exc:  # noqa: BLE001 - a problem that cannot load is a row, not the end of the sweep
        return {"error": f"{type(exc).__name__}: {exc}"}


def describe_all(paths: list[Path], processes: int) -> dict:
    """path -> describe(path), ``processes`` at a time (spawned: no torch state forked)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if processes <= 1:
        return {p: describe(str(p)) for p in paths}
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        return dict(zip(paths, pool.map(describe, [str(p) for p in paths])))


def write_run(folder: Path, problems: list[Path]) -> list[Path]:
    """``folder/level_<L>_problem_<id>_sample_0_kernel.py`` for each problem (``generation_text`` of its file)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in problems:
        level, ident = problem_key(path)
        target = folder / GENERATION.format(level=level, id=ident)
        target.write_text(generation_text(path.read_text(encoding="utf-8")), encoding="utf-8")
        written.append(target)
    return written


def grade_argv(checkout: Path, run: Path, out_json: Path, args) -> list[str]:
    """The judge's own grade of one shard's runs/ folder, correctness only."""
    argv = [sys.executable, "-m", "judge", "--challenges-dir", str(checkout / "KernelBench"), "grade",
            "--kernelbench-run", str(run), "--no-bench", "--json", str(out_json), "--seed", str(args.seed),
            "--timeout", str(args.timeout), "--compile-timeout", str(args.compile_timeout)]
    return argv + (["--interpret"] if args.interpret else [])


def run_grades(jobs: list[tuple[list[str], Path]], deadline: float) -> list[int | None]:
    """Start every grade at once (each in a session of its own, its console in ``log``), wait until all end or
    ``deadline`` (time.monotonic()); then SIGTERM those still grading (a grade keeps its JSON), and SIGKILL
    their process groups 20 s later.  The exit codes, None for a grade stopped."""
    running = []
    for argv, log in jobs:
        with open(log, "w") as stream:
            running.append(subprocess.Popen(argv, stdout=stream, stderr=subprocess.STDOUT, start_new_session=True))
    while any(p.poll() is None for p in running) and time.monotonic() < deadline:
        time.sleep(1.0)
    stopped = [p for p in running if p.poll() is None]
    for process in stopped:
        process.send_signal(signal.SIGTERM)
    grace = time.monotonic() + 20
    while any(p.poll() is None for p in stopped) and time.monotonic() < grace:
        time.sleep(0.5)
    for process in stopped:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
    return [None if p in stopped else p.returncode for p in running]


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def gpu_memory_bytes() -> float:
    """The first GPU's memory (nvidia-smi: no CUDA context in this process); infinity where there is none."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20, check=False).stdout.split()
        return float(out[0]) * 2**20 if out else math.inf
    except (OSError, ValueError, subprocess.SubprocessError):
        return math.inf


def chosen_problems(checkout: Path, levels: list[int], only: str, limit: int) -> list[Path]:
    from judge.challenge.kernelbench import find_problems

    chosen = []
    for level in levels:
        found = [p for p in find_problems(checkout / "KernelBench" / f"level{level}")
                 if not only or re.search(only, p.stem)]
        chosen += sorted(found, key=problem_key)[:limit or None]
    return chosen


def grade_shards(plan: list[list[Path]], folder: Path, checkout: Path, args, deadline: float) -> list[dict]:
    """Write and grade the shards at once; their grade documents (partial where a shard was stopped)."""
    jobs, outputs = [], []
    for index, shard in enumerate(plan):
        run = folder / f"shard_{index}"
        write_run(run, shard)
        outputs.append(folder / f"shard_{index}.json")
        jobs.append((grade_argv(checkout, run, outputs[-1], args), folder / f"shard_{index}.log"))
    codes = run_grades(jobs, deadline)
    for index, code in enumerate(codes):
        print(f"shard {index}: {len(plan[index])} problems, exit {code if code is not None else 'stopped'}",
              flush=True)
    return [read_json(path) for path in outputs]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--levels", default="1,2,3,4")
    parser.add_argument("--shards", type=int, default=6, help="grades at once (they share the GPU)")
    parser.add_argument("--timeout", type=float, default=30.0, help="grade's --timeout: seconds a call")
    parser.add_argument("--compile-timeout", type=float, default=120.0)
    parser.add_argument("--deadline", type=float, default=420.0, help="seconds of grading, then the rest is stopped")
    parser.add_argument("--gpu-memory", type=float, default=None, help="GiB the shards may hold together "
                        "[default: 90%% of the first GPU's]")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--interpret", action="store_true", help="CPU mode (Triton's interpreter, smaller sizes)")
    parser.add_argument("--only", default="", help="a regular expression: the problems whose names match")
    parser.add_argument("--limit", type=int, default=0, help="the first N problems of each level")
    parser.add_argument("--out", type=Path, default=Path("/tmp/kernelbench-sweep"))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    started = time.monotonic()
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    paths = chosen_problems(args.checkout, levels, args.only, args.limit)
    described = describe_all(paths, args.shards)
    rows, peaks = {}, {}
    for path in paths:
        key, found = problem_key(path), described[path]
        rows[key] = {"level": key[0], "id": key[1], "name": path.stem, "verdict": "not_reached",
                     "reason": f"not graded before the sweep's deadline ({args.deadline:g} s)"}
        if "error" in found:
            rows[key].update(verdict="cannot_load", reason=reason_of("cannot_load", found["error"]))
        else:
            peaks[path] = PEAK_FACTOR * found["bytes"]
    described_s = time.monotonic() - started
    budget = args.gpu_memory * 2**30 if args.gpu_memory else (math.inf if args.interpret else 0.9 * gpu_memory_bytes())
    plan = plan_shards(peaks, args.shards, budget)
    deadline = started + args.deadline
    grades = grade_shards(plan, args.out, args.checkout, args, deadline)
    rows = rows_from_grades(rows, grades)
    retried = retry_alone(rows, paths, args, deadline)
    write_outputs(args, rows, levels, plan, budget, described_s, time.monotonic() - started, retried)
    return 0


def retry_alone(rows: dict, paths: list[Path], args, deadline: float) -> list:
    """Grade once more, alone and one at a time, the problems that ran out of GPU memory beside the other shards
    (while the deadline allows); their rows say what they got alone.  The keys retried."""
    again = [p for p in paths if rows[problem_key(p)].get("reason") == "out of GPU memory"]
    if not again or args.interpret or time.monotonic() > deadline - 30:
        return []
    folder = args.out / "alone"
    write_run(folder, again)
    argv = grade_argv(args.checkout, folder, args.out / "alone.json", args)
    run_grades([(argv, args.out / "alone.log")], deadline)
    before = {problem_key(p): rows[problem_key(p)] for p in again}
    alone = rows_from_grades({k: {**row, "verdict": None} for k, row in before.items()},
                             [read_json(args.out / "alone.json")])
    for key, row in alone.items():
        if row["verdict"] is None:
            continue  # not reached alone: the shared run's row stays
        rows[key] = {**row, "alone": True}  # accepted alone: out of memory only beside the other shards
        if row["verdict"] != "accepted":
            rows[key]["reason"] = f"alone too: {row['reason']}"
    return sorted(before)


def write_outputs(args, rows, levels, plan, budget, described_s, wall_s, retried) -> None:
    planned = "" if math.isinf(budget) else f"; the shards' estimated peaks within {budget / 2**30:.0f} GiB"
    note = (f"{len(rows)} problems of levels {', '.join(map(str, levels))}, each the reference as its own ModelNew, "
            f"`judge grade --kernelbench-run --no-bench` in {len(plan)} shards at once "
            f"({'CPU mode' if args.interpret else 'GPU'}{planned}), --timeout {args.timeout:g} s a call; "
            f"described in {described_s:.0f} s, {wall_s:.0f} s in all"
            + (f"; {len(retried)} graded again alone after running out of memory" if retried else ""))
    text = markdown(rows, levels, note)
    doc = {"levels": levels, "wall_s": round(wall_s, 1), "described_s": round(described_s, 1),
           "budget_bytes": None if math.isinf(budget) else budget, "retried": [list(k) for k in retried],
           "shards": [[p.stem for p in shard] for shard in plan],
           "problems": [rows[key] for key in sorted(rows)]}
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1))
    if args.markdown:
        args.markdown.write_text(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
