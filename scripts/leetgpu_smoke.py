# Reproduces: docs/leetgpu.md, "Which challenges run" and "On a GPU".
"""Every LeetGPU challenge under a folder, judge side only: load it, build its tests
with its own generators on DEVICE (with the CPU-mode element budget on the CPU),
run its reference_impl on each, and on a GPU build the performance test and run the
reference on it too.  Says which fail and why: a check of the loader and of the
shipped-input path on all 98 challenges, without solutions.  With --through-worker,
the challenge's own reference_impl is also judged as a solution (the torch
baseline's file) through the worker, tests only: every signature's inputs are
shipped, called and checked.

    python scripts/leetgpu_smoke.py .leetgpu/challenges [--device cuda:0] [--seed 1] [--through-worker]

Exit status 0 when every challenge that `judge list` can load also builds and runs
its reference, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from judge.challenge.leetgpu import build_performance_test, build_tests, expected_outputs, list_folder
from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET


def check(spec, device: str, seed: int) -> str:
    """'' when the tests build and the reference runs on each, else the first problem."""
    budget = CPU_ELEMENT_BUDGET if device == "cpu" else None
    try:
        cases, skipped = build_tests(spec, device, seed, budget)
        instance = spec.instance(device)
        for case in cases:
            expected_outputs(instance, case, spec.source)
        if device != "cpu":
            perf = build_performance_test(spec, device, seed)
            expected_outputs(instance, perf, spec.source)
            torch.cuda.synchronize()
            del perf
            torch.cuda.empty_cache()
    except Exception as exc:  # noqa: BLE001 - reported per challenge
        return f"{type(exc).__name__}: {str(exc).splitlines()[-1][:200]}"
    return f"ok ({len(cases)} tests, {len(skipped)} over the CPU budget)"


def judged(spec, device: str, seed: int) -> str:
    """The challenge's reference, as a solution, through the worker (functional tests only)."""
    import tempfile

    from judge.judging.runner import Options

    from judge.judging.dispatch import judge_solution
    from judge.judging.benchmark_stage import baseline_file

    with tempfile.TemporaryDirectory() as tmp:
        result = judge_solution(spec, baseline_file(spec, tmp), Options(seed=seed, interpret=device == "cpu", device=None
                                                      if device == "cpu" else device, benchmark=False))
    return "" if result.verdict.value == "accepted" else f"judged: {result.verdict.value}: {result.message[:200]}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--through-worker", action="store_true")
    args = parser.parse_args(argv)
    listed, bad = list_folder(args.folder), 0
    for item in listed:
        if item.problem:
            print(f"{item.folder.name:45s} cannot run: {item.problem[:160]}")
            continue
        started = time.perf_counter()
        outcome = check(item.spec, args.device, args.seed)
        if args.through_worker and outcome.startswith("ok"):
            outcome = judged(item.spec, args.device, args.seed) or outcome + ", judged: accepted"
        bad += not outcome.startswith("ok")
        print(f"{item.folder.name:45s} {outcome} [{time.perf_counter() - started:.1f} s]", flush=True)
    loadable = sum(not item.problem for item in listed)
    print(f"{len(listed)} challenges, {loadable} load, {loadable - bad} build their tests and run their reference "
          f"on {args.device}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
