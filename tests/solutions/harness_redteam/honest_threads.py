# Red team of issue 46 (honest tools, not an attack): threads and a process that end before solve() returns, and a
# thread pool kept (idle) across calls, which the freeze stops with the process.  Seen twice: accepted, all 11 tests.
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

_pool = ThreadPoolExecutor(max_workers=2)  # its threads stay, idle, between calls


def solve(input, output, rows, cols):
    halves = [(0, rows // 2), (rows // 2, rows)]
    threads = [threading.Thread(target=lambda lo, hi: output[:, lo:hi].copy_(input[lo:hi].T), args=h) for h in halves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _pool.submit(lambda: None).result()
    subprocess.run(["/bin/true"], check=True)  # a child that has ended (and been reaped) before the reply
