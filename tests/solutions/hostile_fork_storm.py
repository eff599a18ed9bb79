# Hostile (red team of issue 38): starts more processes than a kernel solution could need, each asleep: a
# slow fork bomb.  The worker's processes are counted (limits.MAX_PROCESSES) and it is stopped.
import os
import time


def solve(input, output, rows, cols):
    output.copy_(input.T)
    for _ in range(400):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    time.sleep(2)
