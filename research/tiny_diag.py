"""Why does `judge run` read 12 µs for the 63x72 transpose when bench_case alone reads 4.4 µs?

Times the same launch-bound case three ways on the GPU and prints sample
percentiles: (a) a fresh worker, benchmark only (as timing_proof.py);
(b) a whole judge_solution run (functional tests first, as `judge run`);
(c) a whole run of a spec whose sizes stay small.  The SM clock is sampled
by nvidia-smi every 20 ms during each.  Before the exposure check (timing.md
section 2) whole runs read 4.3-18 µs; the SM clock stayed at 1980 MHz in
the slow ones, and research/lead_probe.py found the cause: launches that
outlasted the guard.  After it, every run read 4.29-4.42 µs (benchmarks.md).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from judge.judging.dispatch import judge_solution  # noqa: E402
from judge.judging.runner import Options  # noqa: E402
from judge.challenge.spec import parse_spec  # noqa: E402
from timing_proof import judge_median  # noqa: E402

SOLUTION = "solutions/transpose/tuned.py"
PARAMS = {"rows": 63, "cols": 72}


def spec_text(max_size: int) -> str:
    data = yaml.safe_load((ROOT / "challenges/transpose.yaml").read_text())
    data.pop("variants")
    data.update(name="transpose_tiny", benchmarks=[{"name": "tiny-63x72", **PARAMS}],
                sizes={"rows": [1, max_size], "cols": [1, max_size]},
                tests={"sizes": [{"rows": 2, "cols": 3}, PARAMS]})
    return yaml.safe_dump(data, sort_keys=False)


class ClockLog:
    """nvidia-smi sampling the SM clock (MHz) every 20 ms while the block runs."""

    def __enter__(self):
        self.file = tempfile.NamedTemporaryFile("w+", suffix=".csv")
        self.process = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits",
                                         "-lms", "20"], stdout=self.file, stderr=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()
        self.file.seek(0)
        mhz = sorted(int(x) for x in self.file.read().split() if x.isdigit())
        self.summary = {"sm_mhz_min": mhz[0], "sm_mhz_median": mhz[len(mhz) // 2], "samples": len(mhz)} if mhz else {}


def describe(label: str, entry: dict, clocks: dict | None = None) -> None:
    samples = sorted(entry["samples_ms"])
    q = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))] * 1e3  # noqa: E731
    print(json.dumps({"how": label, "median_us": round(entry["median_ms"] * 1e3, 3), "calls": entry["calls"],
                      "p10_us": round(q(0.1), 2), "p50_us": round(q(0.5), 2), "p90_us": round(q(0.9), 2),
                      "p99_us": round(q(0.99), 2), "mean_us": round(statistics.fmean(samples) * 1e3, 2),
                      "audits_ms": entry.get("audits_ms"), "stop": entry.get("stop_reason"), "guard_us": entry.get("launch_guard_us"),
                      "phases_s": entry.get("phases_s"), "clocks": clocks}), flush=True)


def main() -> None:
    big = parse_spec(spec_text(8192), str(ROOT / "challenges/transpose.yaml"))
    small = parse_spec(spec_text(128), str(ROOT / "challenges/transpose.yaml"))
    for label, spec in (("a: fresh worker, bench only", None), ("b: whole run, tests up to 8192", big),
                        ("c: whole run, tests up to 128", small), ("a2: fresh worker, bench only", None)):
        with ClockLog() as clocks:
            if spec is None:
                entry = judge_median(big, SOLUTION, PARAMS, seed=1, budget=2.0)
            else:
                entry = judge_solution(spec, str(ROOT / SOLUTION), Options(seed=1, bench_budget_s=2.0)).benchmarks[0]
        describe(label, entry, clocks.summary)


if __name__ == "__main__":
    main()
