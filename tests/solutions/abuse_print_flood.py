# Resource abuse: prints far more than any judge should keep (about 200 MB).
import sys

LINE = "x" * 1023 + "\n"


def solve(input, output, rows, cols):
    for _ in range(200_000):
        sys.stdout.write(LINE)
    output.copy_(input.T)
