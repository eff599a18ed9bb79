# Reproduces: docs/cuda.md, "Measured" and docs/leetgpu.md, "Differences from LeetGPU's site" (every LeetGPU CUDA
# starter); run by `scripts/cuda_gpu.sh starters`.
"""Every LeetGPU challenge's CUDA starter (``starter/starter.cu``) compiled and judged as it is:
each must compile and get a verdict (a starter computes nothing, so wrong_answer is expected),
never an internal error or a compile error.  Needs a GPU, nvcc and a LeetGPU checkout.

    python3 scripts/leetgpu_cuda_starters.py [--root .leetgpu/challenges] [--jobs 8] [--json FILE]

Each starter is judged by ``python3 -m judge run FOLDER STARTER --no-bench --json`` (a process of its
own, several at a time on the one GPU: functional tests only, so sharing it costs no accuracy)."""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def judge(folder: Path, timeout: float) -> dict:
    started = time.monotonic()
    command = [sys.executable, "-m", "judge", "run", str(folder), str(folder / "starter" / "starter.cu"),
               "--no-bench", "--json", "--seed", "1"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, JUDGE_SERVER="0"))
    except subprocess.TimeoutExpired:
        return {"challenge": folder.name, "verdict": "script_timeout", "exit": None, "message": "",
                "seconds": timeout}
    try:
        doc = json.loads(done.stdout)
        verdict, message = doc["verdict"], doc.get("message") or ""
        build = doc.get("environment", {}).get("cuda_build", {})
    except (ValueError, KeyError):
        verdict, message, build = "no_json", (done.stderr or done.stdout)[-600:], {}
    return {"challenge": folder.name, "verdict": verdict, "exit": done.returncode, "build": build,
            "message": message.splitlines()[0][:200] if message else "", "seconds": time.monotonic() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".leetgpu/challenges")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=400.0)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    folders = sorted(p.parent.parent for p in Path(args.root).glob("*/*/starter/starter.cu"))
    started = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda f: judge(f, args.timeout), folders))
    counts = collections.Counter(r["verdict"] for r in rows)
    for row in rows:
        print(f"{row['challenge']:40s} {row['verdict']:20s} exit {row['exit']}  {row['seconds']:5.1f} s  "
              f"{row['message'][:90]}")
    print(f"\n{len(rows)} starters in {time.monotonic() - started:.0f} s: "
          + ", ".join(f"{n} {v}" for v, n in counts.most_common()))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"counts": counts, "rows": rows}, indent=1))
    bad = [r for r in rows if r["verdict"] in ("compile_error", "no_json", "script_timeout") or r["exit"] == 3]
    for row in bad:
        print(f"PROBLEM {row['challenge']}: {row['verdict']} {row['message']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
