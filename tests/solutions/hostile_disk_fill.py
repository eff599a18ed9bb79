# Hostile (found by the red team): RLIMIT_FSIZE bounds each file, not how many; 1.2 GB of files
# filled the worker's folder in an accepted run.  Now a watchdog sums the folder every second.
import os


def solve(input, output, rows, cols):
    block = b"x" * (8 * 1024**2)
    for i in range(1000):
        with open(f"fill-{i}", "wb") as f:
            f.write(block)
    output.copy_(input.T)
