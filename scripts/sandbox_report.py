"""What the worker's sandbox allows on this machine, and what a solution reading a file beside the grader
gets: the policy (folders read and written), the protections a judge run reports, its verdict.

    python scripts/sandbox_report.py [--gpu]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from judge.challenge.spec import load_spec
    from judge.judging.dispatch import judge_solution
    from judge.judging.runner import Options
    from judge.worker import sandbox
    from judge.worker.client import Worker

    gpu = "--gpu" in sys.argv
    spec = load_spec(ROOT / "tests" / "specs" / "tiny_transpose.yaml")
    with tempfile.TemporaryDirectory(prefix="sandbox-report-") as tmp:
        secret = Path(tmp) / "grader" / "hidden.txt"
        secret.parent.mkdir()
        secret.write_text("SECRET_TOKEN=hunter2")
        solution = Path(tmp) / "submission" / "reads.py"
        solution.parent.mkdir()
        solution.write_text(f"def solve(input, output, rows, cols):\n    raise RuntimeError(open({str(secret)!r}).read())\n")
        worker = Worker(str(solution), spec, "cuda:0" if gpu else "cpu", not gpu)
        worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")
        print(json.dumps({"available": sandbox.available(), "policy": worker._policy()}, indent=1))
        worker.workdir.cleanup()
        result = judge_solution(spec, str(solution), Options(seed=1, interpret=not gpu, benchmark=False))
        print(json.dumps({"verdict": result.verdict.value, "protections": result.environment.get("protections"),
                          "message": result.tests[0].message[-300:], "notes": result.notes}, indent=1))


if __name__ == "__main__":
    main()
