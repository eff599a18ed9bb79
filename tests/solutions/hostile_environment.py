# Hostile: reports the worker's whole environment through an exception, hoping for tokens
# (GITHUB_TOKEN, cloud keys) of the CI job that grades it.  The worker now gets only the
# variables Python, CUDA and Triton need.
import os


def solve(input, output, rows, cols):
    raise RuntimeError(" ".join(f"{k}={v}" for k, v in sorted(os.environ.items())))
