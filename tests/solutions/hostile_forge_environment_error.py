# Hostile: claims, at import, that the judge's own environment is broken (the worker's line and exit
# status for a missing numpy, judge/base/environment.py), hoping for an internal error instead of a
# verdict.  The judge imports numpy itself before it believes that: this stays a runtime_error.
import os
import sys

print("judge-worker-environment: numpy: ModuleNotFoundError: No module named 'numpy'", file=sys.stderr, flush=True)
os._exit(78)


def solve(input, output, rows, cols):
    output.copy_(input.T)
