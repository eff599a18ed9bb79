# Writes docs/gpu-results.md from the results pages `scripts/gpu_check.sh` leaves.
"""docs/gpu-results.md from the results pages of scripts/gpu_check.sh runs (each run's $OUT/results.md, fetched):

    python3 scripts/gpu_results.py RUN1/results.md [RUN2/results.md ...] > docs/gpu-results.md

The page is the one place that says what was last seen on a GPU: each part's section as the check wrote it
(date, commit, device, every figure), in the order given, under a header that says how it was made.
"""

from __future__ import annotations

import sys
from pathlib import Path

HEADER = """# What was last seen on a GPU

Written by `scripts/gpu_check.sh` (its parts, run on the device machine; each section names its date, the
commit and the GPU) and put together by `scripts/gpu_results.py`. Nothing on this page was measured anywhere
else; a part that is missing did not run in the last check. To make it again:

    bash scripts/gpu_check.sh probe tests
    bash scripts/gpu_check.sh kernelbench cute profile reduction
    bash scripts/gpu_check.sh fidelity overhead served
    bash scripts/gpu_check.sh kbsweep
    bash scripts/gpu_check.sh kbbaselines

"""


def main(paths: list[str]) -> int:
    sections = [Path(p).read_text(encoding="utf-8").strip() for p in paths if Path(p).is_file()]
    sys.stdout.write(HEADER + "\n\n".join(s for s in sections if s) + "\n")
    return 0 if sections else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
