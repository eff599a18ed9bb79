# Prints 300 lines (about 300 KB) in every call and raises from 20 rows on: its output must stay out of the way
# (issue 29 item 5: a cap on all calls' output together failed a later call, and every failure carried 4 KB).
import sys


def solve(input, output, rows, cols):
    for i in range(300):
        sys.stdout.write(f"line {i} of rows={rows} " + "x" * 1000 + "\n")
    if rows >= 20:
        raise ValueError(f"no plan for {rows} rows")
    output.copy_(input.T)
