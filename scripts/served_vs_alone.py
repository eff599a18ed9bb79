#!/usr/bin/env python3
# Run by `scripts/gpu_check.sh served` and tests/test_served_equals_alone.py; reproduces docs/server.md, "Served vs
# alone on a GPU".
"""Served = alone: every shipped solution judged twice with one seed, once by a `judge run` alone
(`JUDGE_SERVER=0`) and once through a judge server, and the two documents compared.

    python3 scripts/served_vs_alone.py                      # CPU mode: every pair, --no-bench
    python3 scripts/served_vs_alone.py --bench --only solutions/   # on a GPU: the examples with their benchmarks
    python3 scripts/served_vs_alone.py --leetgpu PATH/challenges   # also solutions/leetgpu on a LeetGPU checkout

The pairs (``shipped_pairs``): the examples in solutions/ (their folder names the challenge), the
solutions in tests/solutions (their solve() signature or name names the challenge: the transpose,
matmul, copy, reduce_sum, or one of the LeetGPU-format fixtures in tests/leetgpu), and
solutions/leetgpu on those fixtures, or on a LeetGPU checkout when one is given.  Each is judged
as a user types it (`python -m judge run CHALLENGE SOLUTION --seed S --json`), in a fresh process,
with its own data folder; the served run goes through a server this script starts in its own cache
folder and must be served (the server's count of commands grows by one, and its log shows no refused
worker).  ``comparable`` keeps what must not differ: the verdict, the message, the notes, every
test's name, sizes, verdict, message and cause, the benchmarks' cases and verdicts.  Where the two
differ, the solution is judged alone once more: a solution whose own runs differ (a race it sets
up on purpose, memory it allocates until something refuses) is "unsteady", and only its exit status
and verdict must agree.  Times are
reported, not compared: on a GPU, the ratio of the served median to the alone median per benchmark.

tests/test_served_equals_alone.py runs it in CI (CPU mode); docs/server.md has a GPU run.
Exit status 0 when every pair agreed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "leetgpu" / "challenges"
# Signatures of tests/solutions' solve() and the challenge each belongs to.
BY_SIGNATURE = {
    "input, output, rows, cols": "transpose", "input, output": "transpose",  # a wrong arity, still a transpose
    "A, B, C, M, N, K": "matmul", "a, b, N": "copy", "input, output, N": "softmax",
}
# LeetGPU-format fixtures (tests/leetgpu/challenges) by the name tests/solutions gives them.
FIXTURE_BY_NAME = {
    "vec_add": "easy/1_vec_add", "count_positive": "easy/2_count_positive", "histogram": "easy/7_histogram",
    "simple_inference": "easy/9_simple_inference", "half_scale": "medium/3_half_scale",
    "inplace_affine": "medium/4_inplace_affine", "matmul": "medium/8_matmul", "sum_diff": "hard/5_sum_diff",
    "xor_mask": "hard/6_xor_mask", "leetgpu_result_cache": "easy/1_vec_add",
}
# solutions/leetgpu: the fixture of the same challenge, or the real one in a LeetGPU checkout.
LEETGPU_EXAMPLES = {
    "1_vector_add.py": ("easy/1_vec_add", "easy/1_vector_add"),
    "41_simple_inference.py": ("easy/9_simple_inference", "easy/41_simple_inference"),
    "15_sorting.py": (None, "hard/15_sorting"), "22_gemm.py": (None, "medium/22_gemm"),
}
SPECIAL = {"reduce_sum_atomic_unzeroed.py": "reduce_sum",  # (input, output, N) is the softmax's too
           # issue 39's: tests/leetgpu/precision's challenges, and the CUDA ones' own challenges
           "conv2d_fp32.py": "tests/leetgpu/precision/medium/3_conv2d",
           "conv2d_fp32.cu": "tests/leetgpu/precision/medium/3_conv2d",
           "writes_zeros.py": "tests/leetgpu/precision/easy/2_reads_flags", "vector_add_unmasked.py": "vector_add",
           "matmul_racy.cu": "matmul", "copy_reads_past.cu": "copy"}
UNTIMED = ("time_ms", "phases_s", "median_ms", "min_ms", "max_ms", "ci_ms", "samples_ms", "calls", "gbps",
           "tflops", "percent_of_peak", "torch_ms", "vs_torch", "mean_ms", "stdev_ms", "samples", "times_ms")


@dataclass(frozen=True)
class Pair:
    challenge: str
    solution: str  # relative to ROOT


def shipped_pairs(leetgpu: Path | None = None, kernelbench: Path | None = None) -> list[Pair]:
    """Every shipped solution with the challenge it is judged on (module docstring)."""
    pairs = []
    for folder in sorted(p for p in (ROOT / "solutions").iterdir() if p.is_dir()):
        if folder.name == "leetgpu":
            pairs += _leetgpu_examples(folder, leetgpu)
            continue
        if folder.name == "kernelbench":  # their problems are in a KernelBench checkout
            pairs += _kernelbench_examples(folder, kernelbench)
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".cu"):
                pairs.append(Pair(folder.name, _rel(path)))
    for path in sorted((ROOT / "tests" / "solutions").iterdir()):
        if path.name == "harness":  # issue 46's attack round, one hostile solution a class (tests/test_harness.py)
            pairs += [Pair(_harness_challenge(p), _rel(p)) for p in sorted(path.glob("*.py"))]
            continue
        challenge = _test_solution_challenge(path)
        if challenge is not None:
            pairs.append(Pair(challenge, _rel(path)))
    return pairs


def _harness_challenge(path: Path) -> str:
    """The challenge a hostile solution of tests/solutions/harness is judged on (tests/test_harness.py)."""
    if path.name == "kernelbench_return_attribute.py":
        return _rel(ROOT / "tests" / "kernelbench" / "KernelBench" / "level1" / "1_Scaled_ReLU.py")
    if path.name == "register_parameter.py":
        return _rel(FIXTURES / "easy" / "9_simple_inference")
    return _rel(ROOT / "tests" / "specs" / "tiny_transpose.yaml")


def _leetgpu_examples(folder: Path, leetgpu: Path | None) -> list[Pair]:
    pairs = []
    for name, (fixture, real) in LEETGPU_EXAMPLES.items():
        if leetgpu is not None and (leetgpu / real).is_dir():
            pairs.append(Pair(str(leetgpu / real), _rel(folder / name)))
        elif fixture is not None:
            pairs.append(Pair(_rel(FIXTURES / fixture), _rel(folder / name)))
    return pairs


def _kernelbench_examples(folder: Path, kernelbench: Path | None) -> list[Pair]:
    """solutions/kernelbench/<problem>_<language>.py on <checkout>/KernelBench/level1/<problem>.py, given one."""
    if kernelbench is None:
        return []
    pairs = []
    for path in sorted(folder.glob("*.py")):
        problem = kernelbench / "KernelBench" / "level1" / (path.stem.rsplit("_", 1)[0] + ".py")
        if problem.is_file():
            pairs.append(Pair(str(problem), _rel(path)))
    return pairs


def _test_solution_challenge(path: Path) -> str | None:
    if path.name in SPECIAL:
        return SPECIAL[path.name]
    if path.is_dir():  # a CUDA solution with headers beside it: redteam_cuda_header_swap/<who>/
        return "transpose" if any(path.rglob("*.cu")) else None
    if path.suffix not in (".py", ".cu"):
        return None
    stem = path.stem.removeprefix("leetgpu_").removeprefix("cheat_")
    for name, fixture in sorted(FIXTURE_BY_NAME.items(), key=lambda kv: -len(kv[0])):
        if (path.stem.startswith("leetgpu_") or path.stem == f"cheat_{name}") and stem.startswith(name):
            return _rel(FIXTURES / fixture)
    if path.suffix == ".cu":
        return "transpose"
    match = re.search(r"^def solve\(([^)]*)\)", path.read_text(), re.M)
    if match is None:
        return "transpose"  # no solve() at all: judged on the transpose (invalid_submission)
    names = ", ".join(p.split(":")[0].strip() for p in match.group(1).split(","))
    return BY_SIGNATURE.get(names)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


BENCH_KEPT = ("name", "kind", "params", "verdict", "message", "cause")  # a benchmark's rest is its measurements


def comparable(doc: dict) -> dict:
    """What a served run must have exactly as the run alone: everything but the times (of a benchmark,
    its name, sizes and any verdict or message; every sample, audit and statistic is a measurement)."""
    kept = {k: v for k, v in doc.items() if k not in ("phases_s",)}
    if isinstance(kept.get("benchmarks"), list):
        kept["benchmarks"] = [{k: v for k, v in b.items() if k in BENCH_KEPT} if isinstance(b, dict) else b
                              for b in kept["benchmarks"]]
    return _without_times(kept)


def _without_times(value):
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k not in UNTIMED}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def differences(alone: dict, served: dict, path: str = "") -> list[str]:
    """Where two comparable documents differ, as ``path: alone != served`` lines."""
    if isinstance(alone, dict) and isinstance(served, dict):
        out = []
        for key in sorted(set(alone) | set(served)):
            out += differences(alone.get(key, "<absent>"), served.get(key, "<absent>"), f"{path}.{key}")
        return out
    if isinstance(alone, list) and isinstance(served, list) and len(alone) == len(served):
        return [d for i, (a, s) in enumerate(zip(alone, served)) for d in differences(a, s, f"{path}[{i}]")]
    return [] if alone == served else [f"{path or '.'}: {_short(alone)} != {_short(served)}"]


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) < 160 else text[:157] + "..."


class Server:
    """A judge server of this checkout in a cache folder of its own (stopped by ``stop``)."""

    def __init__(self, env: dict):
        self.env = env
        # stopped by ``stop``; an idle time-out shorter than a slow pair's run alone (30 s, on a loaded machine)
        # let it stop between two pairs, and the next served run started another ("count went 40 -> -1")
        started = judge(env, "server", "start", "--idle-timeout", "900")
        if started.returncode != 0:
            raise RuntimeError(f"judge server start failed: {started.stderr}")

    def served_count(self) -> int:
        status = subprocess.run([sys.executable, "-c", "import json; from judge.server import client; "
                                 "print(json.dumps(client.ask('status')))"], capture_output=True, text=True,
                                env=self.env, cwd=ROOT, timeout=60)
        answer = json.loads(status.stdout or "null")
        return -1 if not answer else int(answer.get("served", -1))

    def refused_workers(self) -> int:
        logs = Path(self.env["JUDGE_CACHE_DIR"], "server").glob("*.log")
        return sum(log.read_text(errors="replace").count("refused a worker") for log in logs)

    def stop(self) -> None:
        judge(self.env, "server", "stop")


def judge(env: dict, *argv: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout)


def environments(base: Path) -> tuple[dict, dict]:
    """(alone, served): a user's environment but for the folders, the server off in the first."""
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_SERVER", "CI")}
    env.update(JUDGE_CACHE_DIR=str(base / "cache"), JUDGE_DATA_DIR=str(base / "data"), NO_COLOR="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return dict(env, JUDGE_SERVER="0"), env


@dataclass
class Outcome:
    pair: Pair
    alone: dict
    served: dict
    codes: tuple[int, int]
    served_ok: str  # "" when the served run was served, with its worker forked; else why not
    diffs: list[str]
    seconds: tuple[float, float]
    unsteady: list[str] = field(default_factory=list)  # where a second run alone differs from the first

    @property
    def nondeterministic(self) -> bool:
        """The judge itself found, in either run, that the solution gave different results for the same inputs
        (a case's ``nondeterministic``): a cache keyed by addresses, which a forked worker's heap hands out in
        another order than a fresh one's, is one."""
        return any(t.get("nondeterministic") for doc in (self.alone, self.served) for t in doc.get("tests", []) or [])

    @property
    def same(self) -> bool:
        """Served as alone: the same document but for its times; or, for a solution whose own runs differ
        (a race it sets up, memory it exhausts: ``unsteady``) or that the judge found nondeterministic, the
        same exit status and verdict."""
        if self.served_ok:
            return False
        if not self.unsteady and not self.nondeterministic:
            return not self.diffs
        return self.codes[0] == self.codes[1] and self.alone.get("verdict") == self.served.get("verdict")


def judge_pair(pair: Pair, seed: int, alone_env: dict, server: Server, extra: list[str]) -> Outcome:
    argv = ["run", pair.challenge, pair.solution, "--seed", str(seed), "--json", *extra]
    docs, codes, seconds = [], [], []
    before = (server.served_count(), server.refused_workers())
    for env in (alone_env, server.env):
        started = time.monotonic()
        done = judge(env, *argv)
        seconds.append(time.monotonic() - started)
        codes.append(done.returncode)
        docs.append(_document(done))
    after = (server.served_count(), server.refused_workers())
    why = ""
    if after[0] != before[0] + 1:
        why = f"not served (the server's count went {before[0]} -> {after[0]})"
    elif after[1] != before[1]:
        why = "served, but the server refused its worker"
    diffs = differences(comparable(docs[0]), comparable(docs[1]))
    if codes[0] != codes[1]:
        diffs.insert(0, f"exit status: {codes[0]} != {codes[1]}")
    outcome = Outcome(pair, docs[0], docs[1], tuple(codes), why, diffs, tuple(seconds))
    if diffs and not outcome.nondeterministic:  # the server, or does the solution differ from itself? Once more alone.
        again = judge(alone_env, *argv)
        outcome.unsteady = differences(comparable(docs[0]), comparable(_document(again)))
    return outcome


def _document(done: subprocess.CompletedProcess) -> dict:
    try:
        return json.loads(done.stdout)
    except ValueError:  # a usage error (a .cu file in CPU mode...): no document, the message instead
        return {"no_document": True, "stderr": done.stderr.strip().splitlines()[-1:] if done.stderr else []}


def bench_ratios(outcome: Outcome) -> list[tuple[str, float, float]]:
    """(benchmark, alone median ms, served median ms) for each benchmark both runs timed."""
    alone = {b.get("name"): b for b in outcome.alone.get("benchmarks", []) or []}
    out = []
    for b in outcome.served.get("benchmarks", []) or []:
        a = alone.get(b.get("name"))
        if a and a.get("median_ms") and b.get("median_ms"):
            out.append((b["name"], float(a["median_ms"]), float(b["median_ms"])))
    return out


def markdown(outcomes: list[Outcome], device: str) -> str:
    lines = [f"Served vs alone on {device}, {time.strftime('%Y-%m-%d')}: {len(outcomes)} pairs, "
             f"{sum(1 for o in outcomes if o.same)} the same and served ({sum(1 for o in outcomes if o.unsteady)} of them "
             "differ from themselves alone: only their verdicts are compared).", "",
             "| solution | challenge | verdict alone | verdict served | same | alone (s) | served (s) | served/alone medians |",
             "|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        ratios = ", ".join(f"{name} {s / a:.3f}" for name, a, s in bench_ratios(o)) or "-"
        same = ("yes" if not o.unsteady else "verdict (unsteady)") if o.same else "**no**"
        lines.append(f"| {o.pair.solution} | {Path(o.pair.challenge).name} | {o.alone.get('verdict', '-')} | "
                     f"{o.served.get('verdict', '-')} | {same} | {o.seconds[0]:.1f} | {o.seconds[1]:.1f} | {ratios} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--bench", action="store_true", help="time the benchmarks too (GPU)")
    parser.add_argument("--bench-budget", default="0.5")
    parser.add_argument("--only", action="append", default=[], help="solutions under this path (repeatable)")
    parser.add_argument("--leetgpu", type=Path, help="a LeetGPU checkout's challenges/ folder")
    parser.add_argument("--kernelbench", type=Path, help="a KernelBench checkout (solutions/kernelbench on it)")
    parser.add_argument("--out", type=Path, help="write the Markdown table and the JSON here (folder)")
    args = parser.parse_args(argv)
    pairs = [p for p in shipped_pairs(args.leetgpu, args.kernelbench) if not args.only or any(p.solution.startswith(o) for o in args.only)]
    extra = ["--bench-budget", args.bench_budget] if args.bench else ["--no-bench"]
    extra += ["--timeout", "5", "--compile-timeout", "60"]
    with tempfile.TemporaryDirectory(prefix="served-vs-alone-") as base:
        alone_env, served_env = environments(Path(base))
        server = Server(served_env)
        try:
            outcomes = []
            for pair in pairs:
                outcome = judge_pair(pair, args.seed, alone_env, server, extra)
                outcomes.append(outcome)
                ratios = ", ".join(f"{name} {s / a:.3f}" for name, a, s in bench_ratios(outcome))
                state = ("same" if not outcome.unsteady else "unsteady") if outcome.same else "DIFFERENT"
                print(f"{state:9} {outcome.alone.get('verdict', '-'):20} {pair.solution}"
                      + (f"  served/alone medians: {ratios}" if ratios else ""), flush=True)
                for line in ([outcome.served_ok] if outcome.served_ok else []) + outcome.diffs[:5]:
                    print(f"          {line}", flush=True)
        finally:
            server.stop()
    device = next((o.alone.get("device") for o in outcomes if o.alone.get("device")), "?")
    table = markdown(outcomes, device)
    print(table)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "served_vs_alone.md").write_text(table + "\n")
        (args.out / "served_vs_alone.json").write_text(json.dumps(
            [{"challenge": o.pair.challenge, "solution": o.pair.solution, "codes": o.codes, "served_ok": o.served_ok,
              "diffs": o.diffs, "unsteady": o.unsteady, "same": o.same, "seconds": o.seconds,
              "bench": bench_ratios(o)} for o in outcomes], indent=1))
    return 0 if all(o.same for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
