# Red team of issue 46, idea 8: the worker's replies forged from inside solve(), on the worker's own response pipe
# (its descriptor is on the worker's command line), JUDGE_TEST_MODE choosing how:
#   ahead    - a "done" reply sent before any work, then the work (50 ms), then the worker's own reply as well:
#              the judge freezes the process on the first one, mid-work, and every later request meets the stale
#              reply of the call before; does any wrong answer get through, or the judge lose its place?
#   huge     - a message header that claims 2**40 bytes;
#   partial  - half a header, then nothing (the pipe held open);
#   progress - 100 000 "compile start" progress messages, then a hang: does the flood move the deadline past the
#              compile allowance (Options.compile_timeout) of a first call?
# solve() writes nothing else of its own: a judge that accepted a call would have accepted the poison.
# Seen twice each (worker_env JUDGE_TEST_MODE, --timeout 2 --compile-timeout 5): ahead: wrong_answer ("no element of
# the output was written" on edge-1; later cases wrong, or "solve() wrote outside `output`" where the stale solve()
# of the call before finished into the new layout; one case with the previous inputs' answer in place accepted on
# its own merits); huge: runtime_error, "message header of 1099511627776 bytes is too large"; partial:
# time_limit_exceeded after 2 s; progress: time_limit_exceeded at the 5 s compile allowance.  Not a hole.
import os
import struct
import sys
import time

from judge.worker import protocol

_mode = os.environ.get("JUDGE_TEST_MODE", "ahead")
_fd = int(sys.argv[2])


def solve(input, output, rows, cols):
    if _mode == "ahead":
        protocol.send(_fd, {"ok": True, "op": "result", "time_ms": 0.001, "own_launches": 1})
        time.sleep(0.05)
        output.copy_(input.T)
    elif _mode == "huge":
        os.write(_fd, struct.pack("<Q", 1 << 40))
        time.sleep(30)
    elif _mode == "partial":
        os.write(_fd, struct.pack("<Q", 100) + b'{"ok": tr')
        time.sleep(600)
    elif _mode == "progress":
        for _ in range(100_000):
            protocol.send(_fd, {"op": "progress", "event": "compile", "state": "start"})
        time.sleep(600)
