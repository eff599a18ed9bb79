# Used by scripts/grade_cluster_gpu.sh: docs/grading.md, "Where the time went"; tested by
# tests/test_grade_timeline.py.
"""Where the wall time of a grade goes, per worker (scripts/grade_cluster_gpu.sh).

    judge grade ... 2>&1 | python3 -u scripts/grade_timeline.py stamp START > NAME.log
    python3 scripts/grade_timeline.py report WORK OUT.json serial local scheduler

``stamp`` prefixes each line of a grade's console output with the seconds since
START (a Unix time, ``date +%s.%N`` taken just before the grade started).
``report`` reads WORK/cluster_NAME.json|log|wall of each run and prints, per run,
when the grading process was ready ("grading N submission(s)" printed), when the
first task started, and per worker: its tasks, busy time (the sum of their
``wall_s``), idle time (the run's wall time less busy), the gaps between its
tasks, and its first task's overhead against the same submission's serial wall
time (the cost of a cold worker); then the median slowdown of the other tasks
against serial (the cost of running next to another GPU's grading).  A task's
start is the time its result line was printed less its ``wall_s``.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

RESULT_LINE = re.compile(r"^\[\d+/\d+\] (.+?) · (\S+): ")
PHASES = ("start_worker", "first_call", "tests", "benchmarks", "torch_baseline")


def stamp(start: float) -> None:
    for line in iter(sys.stdin.readline, ""):
        sys.stdout.write(f"{time.time() - start:8.3f} {line}")
        sys.stdout.flush()


def parse_log(text: str) -> tuple[float | None, dict, float | None]:
    """(when the grade was ready, {(submission, challenge): when its result line came}, when its
    cluster was: the line judge/grading/cluster.ready_line prints, None without one)."""
    ready, arrivals, cluster = None, {}, None
    for line in text.splitlines():
        head, _, rest = line.strip().partition(" ")
        try:
            at = float(head)
        except ValueError:
            continue
        rest = rest.strip()
        if rest.startswith("grading ") and ready is None:
            ready = at
        if cluster is None and (rest.startswith("local Dask cluster started in ")
                                or rest.startswith("Dask workers checked in ")):
            cluster = at
        found = RESULT_LINE.match(rest)
        if found:
            arrivals.setdefault((found.group(1), found.group(2)), at)
    return ready, arrivals, cluster


def wall_of(text: str) -> float:
    """The wall time in a .wall line: 'NAME (ARGS): exit S, wall W s'."""
    return float(text.strip().rsplit("wall ", 1)[1].split()[0])


def timeline(doc: dict, log_text: str, wall: float, serial: dict | None = None) -> dict:
    """The run's timeline (module docstring); ``serial``: the serial run's document, to compare with."""
    ready, arrivals, cluster_ready = parse_log(log_text)
    base = {(r["submission"], r["challenge"]): r for r in (serial or {}).get("results", [])}
    workers: dict[str, list] = {}
    for r in doc["results"]:
        key = (r["submission"], r["challenge"])
        if key in arrivals and r.get("wall_s"):
            where = r.get("worker") or (f"GPU{r['gpu']}" if r.get("gpu") is not None else r.get("slot") or "here")
            workers.setdefault(where, []).append((arrivals[key] - r["wall_s"], arrivals[key], r))
    out = {"wall_s": wall, "ready_s": ready, "cluster_ready_s": cluster_ready, "workers": {}}
    slowdowns, phase_deltas = [], {}
    for name, tasks in sorted(workers.items()):
        tasks.sort(key=lambda t: t[0])
        busy = sum(r["wall_s"] for _, _, r in tasks)
        gaps = [start - previous_end for (start, _, _), (_, previous_end, _) in zip(tasks[1:], tasks)]
        first = tasks[0][2]
        before = base.get((first["submission"], first["challenge"]))
        out["workers"][name] = {
            "tasks": len(tasks), "busy_s": round(busy, 2), "idle_s": round(wall - busy, 2),
            "first_start_s": round(tasks[0][0], 2), "last_end_s": round(tasks[-1][1], 2),
            "gaps_s": round(sum(gaps), 2), "largest_gap_s": round(max(gaps, default=0.0), 2),
            "first_task": first["submission"], "first_wall_s": first["wall_s"],
            "first_overhead_s": round(first["wall_s"] - before["wall_s"], 2) if before else None,
            "first_phase_deltas_s": {p: round(first["phases_s"].get(p, 0) - before["phases_s"].get(p, 0), 2)
                                     for p in PHASES if p in first.get("phases_s", {})} if before else {}}
        for _, _, r in tasks[1:]:
            other = base.get((r["submission"], r["challenge"]))
            if other and other.get("wall_s"):
                slowdowns.append(r["wall_s"] / other["wall_s"])
                for p, seconds in r.get("phases_s", {}).items():  # which step of a judgement is slower than serially
                    if isinstance(other.get("phases_s", {}).get(p), (int, float)):
                        phase_deltas.setdefault(p, []).append(seconds - other["phases_s"][p])
    starts = [w["first_start_s"] for w in out["workers"].values()]
    out["first_start_s"] = min(starts) if starts else None
    out["last_end_s"] = max((w["last_end_s"] for w in out["workers"].values()), default=None)
    out["median_slowdown_later_tasks"] = round(statistics.median(slowdowns), 3) if slowdowns else None
    out["later_phase_deltas_s"] = {p: {"median": round(statistics.median(d), 2), "sum": round(sum(d), 2)}
                                   for p, d in phase_deltas.items()}
    return out


def render(name: str, t: dict) -> str:
    ready = f"{t['ready_s']:.1f}" if t["ready_s"] is not None else "?"
    cluster = f"; cluster ready at {t['cluster_ready_s']:.1f} s" if t.get("cluster_ready_s") is not None else ""
    lines = [f"{name}: wall {t['wall_s']:.1f} s; ready at {ready} s{cluster}; first task at {t['first_start_s']:.1f} s; "
             f"last result at {t['last_end_s']:.1f} s, exit {max(0.0, t['wall_s'] - t['last_end_s']):.1f} s later"
             + (f"; later tasks {t['median_slowdown_later_tasks']:.3f}x their serial wall (median)"
                if t["median_slowdown_later_tasks"] else "")]
    if t.get("later_phase_deltas_s"):
        lines.append("  later tasks against serial, per phase (median, sum): " + ", ".join(
            f"{p} {d['median']:+.2f}/{d['sum']:+.1f} s" for p, d in t["later_phase_deltas_s"].items()))
    for worker, w in t["workers"].items():
        first = (f"; first task {w['first_task']} {w['first_wall_s']:.1f} s"
                 + (f" ({w['first_overhead_s']:+.1f} s vs serial: "
                    + ", ".join(f"{p} {d:+.1f}" for p, d in w["first_phase_deltas_s"].items()) + ")"
                    if w["first_overhead_s"] is not None else ""))
        lines.append(f"  {worker:>8}: {w['tasks']:2} tasks, busy {w['busy_s']:6.1f} s, idle {w['idle_s']:5.1f} s "
                     f"(starts at {w['first_start_s']:.1f}, gaps {w['gaps_s']:.1f}, largest {w['largest_gap_s']:.1f}, "
                     f"ends at {w['last_end_s']:.1f}){first}")
    return "\n".join(lines)


def report(work: Path, out: Path, names: list[str]) -> None:
    runs = {n: work / f"cluster_{n}" for n in names if (work / f"cluster_{n}.json").exists()}
    serial = json.loads((work / "cluster_serial.json").read_text()) if "serial" in runs else None
    timelines = {}
    for name, stem in runs.items():
        doc = json.loads(stem.with_suffix(".json").read_text())
        wall = wall_of(stem.with_suffix(".wall").read_text())
        timelines[name] = timeline(doc, stem.with_suffix(".log").read_text(), wall,
                                   serial if name != "serial" else None)
        print(render(name, timelines[name]))
    out.write_text(json.dumps(timelines, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "stamp":
        stamp(float(sys.argv[2]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "report":
        report(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)
