# Lists the worker's threads from inside solve(): any thread but its own started before the sandbox,
# which Landlock (before its TSYNC) does not confine (the red team ran its code on OpenBLAS's pool).
import os


def solve(input, output, rows, cols):
    names = sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
    raise RuntimeError(f"threads: {len(names)} {names}")
