# Class 12: forged "compile start/end" progress messages: the worker's deadline allowance for Triton's compiles was
# moved by what the worker said, so a call that ran past the per-call limit while it claimed to be compiling was
# accepted (65 s against 60 s).  This one claims to compile, and takes SLEEP_S seconds, in every call on sizes it
# has had before: the calls whose compiles are over, where the per-call limit is the whole allowance.  (A first call
# on new sizes may still compile, within --compile-timeout: the judge's rule, which this solution leaves alone, so
# that judging it costs one time-out, not SLEEP_S a test.)
import os
import sys
import time

_sizes_seen = set()


def _progress(state):
    from judge.worker import protocol

    protocol.send(int(sys.argv[2]), {"op": "progress", "event": "compile", "state": state})


def solve(input, output, rows, cols):
    if (rows, cols) in _sizes_seen:
        _progress("start")
        time.sleep(float(os.environ.get("JUDGE_TEST_SLEEP_S", "3")))
        _progress("end")
    _sizes_seen.add((rows, cols))
    output.copy_(input.T)
