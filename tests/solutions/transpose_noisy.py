# Correct, but prints a lot to stdout and stderr: --json output must stay valid.
import sys

print("{ not json", flush=True)


def solve(input, output, rows, cols):
    print("solve called with", rows, cols)
    print("noise on stderr", file=sys.stderr)
    output.copy_(input.T)
