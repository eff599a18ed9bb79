# Cheat: tampers with the memory the judge shares with the worker (judge/worker/arguments.py): tries to shrink
# the memfd under the judge's mapping (which would make the judge's reads fault), then to grow it past any size.
import os
import sys

for fd in range(3, 64):
    try:
        os.ftruncate(fd, 0)  # refused: the judge sealed it against shrinking
    except OSError:
        pass


def solve(input, output, rows, cols):
    fd = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass
