# Class 12: forged "compile start/end" progress messages: the worker's deadline allowance for Triton's compiles was
# moved by what the worker said, so a call that ran past the per-call limit while it claimed to be compiling was
# accepted (65 s against 60 s).  This one claims to compile in every call, and takes SLEEP_S seconds in every call
# after the first.
import os
import sys
import time

_calls = [0]


def _progress(state):
    from judge.worker import protocol

    protocol.send(int(sys.argv[2]), {"op": "progress", "event": "compile", "state": state})


def solve(input, output, rows, cols):
    _calls[0] += 1
    if _calls[0] > 1:
        _progress("start")
        time.sleep(float(os.environ.get("JUDGE_TEST_SLEEP_S", "3")))
        _progress("end")
    output.copy_(input.T)
