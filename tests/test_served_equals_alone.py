"""Served = alone: every shipped solution judged with one seed by `judge run` alone and through a judge
server gives the same document but for its times (scripts/served_vs_alone.py, which also runs on a GPU).

Until 2026-11-28 a CPU-mode server forked workers whose triton.language helpers were compiled-mode
functions: 10 of the 18 shipped Triton solutions were accepted alone and compile_error served, and no
test compared the two.  Each pair here is a fresh `python -m judge run ... --json` per side, as a user
types it; the served side must have been served (the server's count grows, no worker refused).
"""

from __future__ import annotations

import pytest

from conftest import ROOT, served_vs_alone

sva = served_vs_alone()

ALL_PAIRS = sva.shipped_pairs()
# CI judges every example in solutions/ (where the bug was) and the LeetGPU-format fixtures' solutions; the
# cheats, hostile, abusive and plain test solutions run with the script by hand and on the GPU (`python
# scripts/served_vs_alone.py`: 150 pairs, about 8 minutes of two CPUs, too long for CI beside the rest).
PAIRS = [p for p in ALL_PAIRS if p.solution.startswith(("solutions/", "tests/solutions/leetgpu_"))]
SEED = 11
EXTRA = ["--no-bench", "--timeout", "5", "--compile-timeout", "60"]


def test_every_shipped_solution_is_paired_with_a_challenge():
    named = {p.solution for p in ALL_PAIRS}
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "solutions").rglob("*") if p.suffix in (".py", ".cu")}
    shipped |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "solutions").iterdir()
                if (p.suffix in (".py", ".cu") or p.is_dir()) and p.name not in ("harness", "harness_redteam")}
    shipped |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "solutions" / "harness").glob("*.py")}
    leetgpu_only = {"solutions/leetgpu/15_sorting.py", "solutions/leetgpu/22_gemm.py"}  # no fixture of ours
    kernelbench = {str(p.relative_to(ROOT)) for p in (ROOT / "solutions" / "kernelbench").glob("*.py")}  # a checkout's
    assert shipped - named == leetgpu_only | kernelbench
    assert all(p.challenge != "kernelbench" for p in ALL_PAIRS)


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=[p.solution for p in PAIRS])
def test_served_is_alone(pair, judge_server):
    alone_env, running = judge_server
    outcome = sva.judge_pair(pair, SEED, alone_env, running, EXTRA)
    assert not outcome.served_ok, outcome.served_ok
    # the same document but for times; for a solution that differs from itself alone (a race it sets up,
    # memory it exhausts), the same exit status and verdict
    assert outcome.same, "\n".join(outcome.diffs[:20])
