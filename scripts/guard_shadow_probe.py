"""What the launch guard's shadow let a cheat get away with, and what it gets now (GPU).

Judges, on a 2048² transpose benchmark: the honest twin (20 copies on the
current stream), tests/solutions/cheat_hide_in_guard.py (a 1 ms host sleep,
then the 20 copies on an unjoined stream), and the same cheat with the
re-poisoning after the guard switched off from inside the worker (what the
judge did before bench.Repoison).  One JSON line each.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from test_gpu import SOLUTIONS, run, small_bench_spec  # noqa: E402


def main() -> None:
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    cheat = (SOLUTIONS / "cheat_hide_in_guard.py").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "cheat_without_repoison.py"
        old.write_text("import judge.timing.bench as b\nb.Repoison.__call__ = lambda self: None\n" + cheat)
        for label, path in (("honest twin", SOLUTIONS / "transpose_honest_20x.py"),
                            ("cheat", SOLUTIONS / "cheat_hide_in_guard.py"), ("cheat, no repoison", old)):
            result = run(spec, path)
            bench = result.benchmarks[0] if result.benchmarks else {}
            print(json.dumps({"solution": label, "verdict": result.verdict.value, "median_ms": bench.get("median_ms"),
                              "timer_trusted": bench.get("timer_trusted"), "guard_us": bench.get("launch_guard_us"),
                              "message": (bench.get("message") or result.message or "")[:200]}), flush=True)


if __name__ == "__main__":
    main()
