# Never returns.
import time


def solve(input, output, rows, cols):
    while True:
        time.sleep(0.05)
