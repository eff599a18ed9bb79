# Hostile: a child that leaves the worker's process group for one of its own (os.setpgid, which the sandbox
# allows because ninja starts each compiler so) and runs on.  A kill of the worker's group alone missed it; the
# judge ends the worker's whole tree.  The child prints its pid so the test can look for it.
import os
import time


def solve(input, output, rows, cols):
    output.copy_(input.T)
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        print(f"child pid {os.getpid()} in group {os.getpgrp()}", flush=True)
        while True:
            time.sleep(0.05)
    time.sleep(0.5)
    raise RuntimeError("see the output")
