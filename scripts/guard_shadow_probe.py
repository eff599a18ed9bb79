# Reproduces: docs/timing.md §2 "Every timed call" (the guard's shadow: the cheats under the old guard and the guard
# kernel).
"""What the launch guard's shadow let a cheat get away with, and what it gets now (GPU).

Judges, on a 2048² transpose benchmark: the honest twin (20 copies on the
current stream); tests/solutions/cheat_hide_in_guard.py (a 1 ms host sleep,
then the 20 copies on an unjoined stream), and the same cheat with the
re-poisoning switched off from inside the worker (what the judge did before
bench.Repoison); tests/solutions/cheat_two_phase_guard.py (the 20 copies into
scratch on an unjoined stream, the sleep, then the current stream waits and
copies the scratch to the output), the same cheat under the old guard, a
``torch.cuda._sleep`` on one SM, put back from inside the worker, and the same
cheat on a high-priority stream.  One JSON
line each.
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


# The guard's table without the outputs: only the flush.
NO_REPOISON = "import judge.timer.timed_loop as b\nb.Repoison.__init__ = lambda self, spec, args: setattr(self, 'fills', [])\n"
# A one-SM sleep of the guard's length (~1.98 GHz), then the kernel without its spin.
OLD_GUARD = ("import torch, judge.timer.cover as c\n_call = c.Cover.__call__\n"
             "c.Cover.__call__ = lambda self, ns, p: (torch.cuda._sleep(int(ns * 1.98)), _call(self, 0, p))\n")


def main() -> None:
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    cheat = (SOLUTIONS / "cheat_hide_in_guard.py").read_text()
    two_phase = (SOLUTIONS / "cheat_two_phase_guard.py").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "cheat_without_repoison.py"
        old.write_text(NO_REPOISON + cheat)
        old_guard = Path(tmp) / "two_phase_old_guard.py"
        old_guard.write_text(OLD_GUARD + two_phase)
        high = Path(tmp) / "two_phase_high_priority.py"  # its blocks go first wherever an SM frees up
        high.write_text(two_phase.replace("torch.cuda.Stream()", "torch.cuda.Stream(priority=-1)"))
        for label, path in (("honest twin", SOLUTIONS / "transpose_honest_20x.py"),
                            ("cheat", SOLUTIONS / "cheat_hide_in_guard.py"), ("cheat, no repoison", old),
                            ("two-phase cheat", SOLUTIONS / "cheat_two_phase_guard.py"),
                            ("two-phase cheat, old guard", old_guard),
                            ("two-phase cheat, high-priority stream", high)):
            result = run(spec, path)
            bench = result.benchmarks[0] if result.benchmarks else {}
            print(json.dumps({"solution": label, "verdict": result.verdict.value, "median_ms": bench.get("median_ms"),
                              "timer_trusted": bench.get("timer_trusted"), "guard_us": bench.get("launch_guard_us"),
                              "guard_holds_gpu": bench.get("guard_holds_gpu"),
                              "message": (bench.get("message") or result.message or "")[:200]}), flush=True)


if __name__ == "__main__":
    main()
