# Hostile (issue 38's red team): a double-forked grandchild holds memory while solve() runs; the memory limit
# counted the worker and its children only (an orphan leaves the tree): 12.2 GiB held against an 11.8 GiB
# limit, accepted.  Now the worker's whole PID namespace counts.  JUDGE_TEST_HOG_MB says how much it holds.
import os
import signal
import time


def solve(input, output, rows, cols):
    output.copy_(input.T)
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        if os.fork() == 0:  # the grandchild: its parent exits at once, so it is nobody's child of the worker's
            hog = bytearray(int(os.environ.get("JUDGE_TEST_HOG_MB", "512")) * 1024 * 1024)
            hog[::4096] = b"\1" * len(hog[::4096])  # resident, page by page
            os.write(ready_w, str(os.getpid()).encode().ljust(16))
            time.sleep(30)
        os._exit(0)
    pid = int(os.read(ready_r, 16))
    time.sleep(1.5)  # the judge's watchdog looks every 50 ms
    os.kill(pid, signal.SIGKILL)
