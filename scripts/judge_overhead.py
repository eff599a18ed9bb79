#!/usr/bin/env python3
# Run by `scripts/gpu_check.sh overhead`; reproduces docs/benchmarks.md, "The judge's own time" and the sections after
# it, and docs/server.md's start-up figures.
"""How long the judge itself takes around a judgement: wall clock of `judge list`,
`judge run` on fresh caches (the first run on a machine) and warm ones, with and
without the benchmark, and `judge watch` from a save to the new result.

    python3 scripts/judge_overhead.py --out overhead.json         # GPU and CPU mode where there is a GPU
    python3 scripts/judge_overhead.py --mode cpu --repeat 5        # CPU mode only
    python3 scripts/judge_overhead.py --repo /path/to/other/checkout   # measure another tree (before/after)
    python3 scripts/judge_overhead.py --only warm-run --repeat 5   # the warm run alone, auto-started server, by hand

Every command runs as `python -m judge ...` in a fresh process with the measured
tree first on PYTHONPATH (so an installed judge is not needed, and another checkout
can be measured), on the built-in transpose challenge: solutions/transpose/tuned.py
on the GPU, tiled.py in CPU mode. "Cold" means empty judge and Triton caches
(peaks, torch baselines, compiled kernels, show's examples, and the bytecode the
judge keeps where Python may not write it: judge/base/bytecode.py); the operating
system's file cache is warmed first by one `import torch, triton`. Then the warm
runs again through a judge server two ways: as a user gets it without a manual step
(the day's first `judge run` judges alone and starts a server when it ends; the
script waits until it answers, timing that, then times the later runs: "run warm,
auto-started server"), and through `judge server start` (its start timed too).
`--only warm-run` measures just that: warm runs alone, auto-started, by hand,
one after the other on the same caches, so the three compare.
Prints a Markdown table (the goals of issues 16 and 29 beside the numbers) and
writes every sample as JSON to --out. Every server it starts stops when the script
ends, however it ends (JUDGE_SERVER_STOP_WITH). Needs nothing beyond the judge's
own dependencies (not watchfiles: watch polls).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SOLUTIONS = {"gpu": "solutions/transpose/tuned.py", "cpu": "solutions/transpose/tiled.py"}
# (measurement, mode) -> seconds, from the issue.
GOALS = {("run warm", "gpu"): 4.0, ("run warm, judge server", "gpu"): 4.0, ("run cold (fresh caches)", "gpu"): 12.0, ("watch save→result", "gpu"): 2.0,
         ("run --no-bench warm", "cpu"): 3.0, ("run --no-bench warm, judge server", "cpu"): 3.0, ("list", "cpu"): 0.5, ("list", "gpu"): 0.5,
         ("run warm, auto-started server", "gpu"): 3.0, ("run warm, auto-started server", "cpu"): 3.0}  # issue 29
AUTO_NOTICE = "started a judge server for faster runs"  # judge/server/autostart.py


def gpu_present() -> bool:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return not (visible is not None and visible.strip() in ("", "-1")) and os.path.exists("/dev/nvidiactl")


class Tree:
    """A judge checkout to measure, with its own cache and data folders."""

    def __init__(self, repo: Path, scratch: Path):
        self.repo, self.scratch = repo, scratch
        self.fresh_caches()

    def fresh_caches(self) -> None:
        self.caches = Path(tempfile.mkdtemp(prefix="caches-", dir=self.scratch))

    def env(self) -> dict:
        env = dict(os.environ, JUDGE_CACHE_DIR=str(self.caches / "judge"), JUDGE_DATA_DIR=str(self.caches / "data"),
                   TRITON_CACHE_DIR=str(self.caches / "triton"), NO_COLOR="1")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.repo), env.get("PYTHONPATH")]))
        env["JUDGE_SERVER_STOP_WITH"] = str(os.getpid())  # no server outlives this script
        for name in ("TRITON_INTERPRET", "JUDGE_SERVER", "CI"):  # CI: a run there starts no server
            env.pop(name, None)
        return env

    def judge(self, *args: str, timeout: float = 600, served: bool = False) -> dict:
        """One command: its wall clock, exit status and (with --json) the run's phases.
        Without ``served`` it neither uses nor starts a judge server (JUDGE_SERVER=0); with it,
        it uses one, or starts one when it ends, as a user's run does. The CPU time of a served
        command is the client's alone (the server's children are not ours)."""
        started, cpu = time.perf_counter(), _children_cpu_s()
        env = self.env() if served else dict(self.env(), JUDGE_SERVER="0")
        done = subprocess.run([sys.executable, "-m", "judge", *args], cwd=self.repo, env=env,
                              capture_output=True, text=True, timeout=timeout)
        sample = {"wall_s": round(time.perf_counter() - started, 3), "rc": done.returncode,
                  "cpu_s": round(_children_cpu_s() - cpu, 3)}
        if AUTO_NOTICE in done.stderr:
            sample["started_server"] = True
        if "--json" in args and done.stdout.strip().startswith("{"):
            doc = json.loads(done.stdout)
            sample.update(verdict=doc["verdict"], phases_s=doc.get("phases_s", {}))
        elif done.returncode not in (0, 1):
            sample["error"] = (done.stderr or done.stdout).strip()[-500:]
        return sample


def _children_cpu_s() -> float:
    """User + system CPU seconds of the finished children (the judge and the workers it waited for):
    steadier than the wall clock on a machine that other work keeps busy."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_args(mode: str, *extra: str) -> list[str]:
    return ["run", "transpose", SOLUTIONS[mode], "--json", "--seed", "1", *extra] + \
        (["--interpret"] if mode == "cpu" else [])


def measure_runs(tree: Tree, mode: str, repeat: int) -> dict:
    tree.fresh_caches()
    warm_file_cache(tree)
    out = {"run cold (fresh caches)": [tree.judge(*run_args(mode))]}
    out["run warm"] = [tree.judge(*run_args(mode)) for _ in range(repeat)]
    out["run --no-bench warm"] = [tree.judge(*run_args(mode, "--no-bench")) for _ in range(repeat)]
    out["list"] = [tree.judge("list") for _ in range(repeat)]
    if tree.judge("server", "--help")["rc"] == 0:
        if _has_auto_start(tree):
            out.update(measure_auto(tree, mode, repeat))
        out.update(measure_served(tree, mode, repeat))
    return out


def _has_auto_start(tree: Tree) -> bool:
    """Whether the measured tree starts servers by itself (judges before issue 29 do not)."""
    return (tree.repo / "judge" / "server" / "autostart.py").exists()


def warm_file_cache(tree: Tree) -> None:
    """Read torch's and triton's files once in a throwaway process (no bytecode written anywhere):
    on a machine that just started, the first run would otherwise time the disk."""
    env = dict(tree.env(), PYTHONDONTWRITEBYTECODE="1")
    subprocess.run([sys.executable, "-c", "import torch, triton"], env=env, capture_output=True, timeout=600)


def measure_auto(tree: Tree, mode: str, repeat: int) -> dict:
    """The second and later `judge run` of a day, without a manual step: the first run finds no
    server, judges alone and starts one as it ends; once that answers, each later run goes through it."""
    tree.judge("server", "stop")
    first = tree.judge(*run_args(mode), served=True)
    if not first.get("started_server"):
        first["error"] = "the first run started no judge server"
    ended = time.perf_counter()
    ready = _wait_for_server(tree, 180.0)
    out = {"run, first of the day (starts a server)": [first],
           "auto-started server answers, after the first run ends": [
               {"wall_s": round(time.perf_counter() - ended, 3)} if ready else {"error": "no server after 180 s"}]}
    later = []
    for _ in range(repeat):
        before = _served_count(tree)
        sample = tree.judge(*run_args(mode), served=True)
        if _served_count(tree) == before:
            sample["error"] = "not served by the auto-started server"
        later.append(sample)
    out["run warm, auto-started server"] = later
    tree.judge("server", "stop")
    return out


def _wait_for_server(tree: Tree, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if tree.judge("server", "status", timeout=60)["rc"] == 0:
            return True
        time.sleep(0.2)
    return False


def _served_count(tree: Tree) -> int:
    """Commands the tree's servers have logged: one more after a served run."""
    logs = Path(tree.env()["JUDGE_CACHE_DIR"], "server").glob("*.log")
    return sum(log.read_text(errors="replace").count(": judge run ") for log in logs)


def measure_warm_run(tree: Tree, mode: str, repeat: int) -> dict:
    """--only warm-run: warm runs alone, then the auto-started path, then by `judge server start`,
    on the same caches (one run first fills them: peaks, baselines, Triton's kernels)."""
    tree.judge(*run_args(mode))
    out = {"run warm": [tree.judge(*run_args(mode)) for _ in range(repeat)]}
    if _has_auto_start(tree):
        out.update(measure_auto(tree, mode, repeat))
    out.update(measure_served(tree, mode, repeat))
    return out


def measure_served(tree: Tree, mode: str, repeat: int) -> dict:
    """The same warm runs through `judge server` (judge/server/): started once, then each
    `judge run` is a thin client whose command and worker the server forks."""
    out = {"server start": [tree.judge("server", "start")]}
    out["run warm, judge server"] = [tree.judge(*run_args(mode), served=True) for _ in range(repeat)]
    out["run --no-bench warm, judge server"] = [tree.judge(*run_args(mode, "--no-bench"), served=True)
                                                for _ in range(repeat)]
    tree.judge("server", "stop")
    return out


class JsonLines:
    """The documents `judge watch --json` prints, one per judgement, read on a thread."""

    def __init__(self, stream):
        self.queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            if line.startswith("{"):
                self.queue.put((time.perf_counter(), json.loads(line)))

    def next(self, timeout: float) -> tuple[float, dict]:
        return self.queue.get(timeout=timeout)


def measure_watch(tree: Tree, mode: str, saves: int, idle_s: float) -> list[dict]:
    """Save the file ``saves`` times, ``idle_s`` apart (a person editing), and time each new result."""
    work = Path(tempfile.mkdtemp(prefix="watch-", dir=tree.scratch))
    solution = work / "solution.py"
    solution.write_text((tree.repo / SOLUTIONS[mode]).read_text())
    args = [sys.executable, "-m", "judge", "watch", "transpose", str(solution), "--json", "--seed", "1",
            "--poll"] + (["--interpret"] if mode == "cpu" else [])
    watch = subprocess.Popen(args, cwd=tree.repo, env=tree.env(), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    samples = []
    try:
        lines = JsonLines(watch.stdout)
        lines.next(timeout=600)  # the first judgement
        for index in range(saves):
            time.sleep(idle_s)
            saved = time.perf_counter()
            with open(solution, "a") as f:
                f.write(f"\n# save {index + 1}\n")
            arrived, doc = lines.next(timeout=600)
            samples.append({"wall_s": round(arrived - saved, 3), "verdict": doc["verdict"],
                            "phases_s": doc.get("phases_s", {})})
    except queue.Empty:
        samples.append({"error": "no result within 600 s"})
    finally:
        watch.send_signal(signal.SIGINT)
        try:
            watch.wait(timeout=30)
        except subprocess.TimeoutExpired:
            watch.kill()
    return samples


def has_watch(tree: Tree) -> bool:
    return tree.judge("watch", "--help")["rc"] == 0


def summary(samples: list[dict]) -> dict:
    walls = [s["wall_s"] for s in samples if "wall_s" in s and "error" not in s]
    totals = [s["phases_s"]["total"] for s in samples if s.get("phases_s", {}).get("total") is not None]
    cpus = [s["cpu_s"] for s in samples if "cpu_s" in s and "error" not in s]
    return {"runs": len(walls), "min_s": min(walls, default=None),
            "median_s": statistics.median(walls) if walls else None,
            "cpu_median_s": statistics.median(cpus) if cpus else None,
            "judging_median_s": statistics.median(totals) if totals else None,
            "errors": [s["error"] for s in samples if "error" in s]}


def markdown(results: dict) -> str:
    rows = ["| mode | measurement | runs | wall min (s) | wall median (s) | judging, phases_s.total (median, s) "
            "| CPU time, all processes (median, s) | goal |", "|---|---|---|---|---|---|---|---|"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    for mode, measurements in results["modes"].items():
        for name, samples in measurements.items():
            s = summary(samples)
            goal = GOALS.get((name, mode))
            met = "" if goal is None or s["median_s"] is None else \
                (f"≤ {goal:g} s: {'met' if s['median_s'] <= goal else 'missed'}")
            errors = f" ({len(s['errors'])} failed: {s['errors'][0][:80]})" if s["errors"] else ""
            rows.append(f"| {mode} | {name}{errors} | {s['runs']} | {fmt(s['min_s'])} | {fmt(s['median_s'])} | "
                        f"{fmt(s['judging_median_s'])} | {fmt(s['cpu_median_s'])} | {met} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write every sample as JSON here")
    parser.add_argument("--mode", choices=["auto", "gpu", "cpu", "both"], default="auto",
                        help="auto: GPU and CPU mode where there is a GPU, else CPU mode")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs of each kind (default 3)")
    parser.add_argument("--saves", type=int, default=3, help="saves timed in judge watch (default 3)")
    parser.add_argument("--idle", type=float, default=8.0,
                        help="seconds between saves, as a person edits (default 8): the next worker imports meanwhile")
    parser.add_argument("--repo", type=Path, default=HERE, help="the judge checkout to measure (default: this one)")
    parser.add_argument("--only", choices=["all", "warm-run"], default="all",
                        help="warm-run: only warm runs alone, through an auto-started server and one started by hand")
    args = parser.parse_args()
    modes = {"auto": ["gpu", "cpu"] if gpu_present() else ["cpu"], "both": ["gpu", "cpu"]}.get(args.mode, [args.mode])
    results = {"machine": {"host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
                           "repo": str(args.repo.resolve()), "commit": _commit(args.repo)}, "modes": {}}
    with tempfile.TemporaryDirectory(prefix="judge-overhead-") as scratch:
        tree = Tree(args.repo.resolve(), Path(scratch))
        for mode in modes:
            if args.only == "warm-run":
                results["modes"][mode] = measure_warm_run(tree, mode, args.repeat)
                continue
            results["modes"][mode] = measure_runs(tree, mode, args.repeat)
            if has_watch(tree):
                results["modes"][mode]["watch save→result"] = measure_watch(tree, mode, args.saves, args.idle)
    table = markdown(results)
    print(table)
    if args.out:
        Path(args.out).write_text(json.dumps(dict(results, table=table), indent=2))
    return 0


def _commit(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
