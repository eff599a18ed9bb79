# Hostile (found by the red team): a child that leaves the worker's process group (os.setsid)
# outlived the judge, which kills the worker's group.  Now setsid is denied; a child that stays
# in the group dies with the worker.  The child prints its pid so the test can look for it.
import os
import time


def solve(input, output, rows, cols):
    output.copy_(input.T)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            print("setsid: allowed", flush=True)
        except OSError as exc:
            print(f"setsid: {exc.strerror}", flush=True)
        print(f"child pid {os.getpid()}", flush=True)
        while True:
            time.sleep(0.05)
    time.sleep(0.5)
    raise RuntimeError("see the output")
