# Resource abuse: forks children that sleep forever, then hangs itself.
import os
import time


def solve(input, output, rows, cols):
    for _ in range(3):
        if os.fork() == 0:
            while True:
                time.sleep(1)
    while True:
        time.sleep(1)
