# Probe, not a solution to copy: looks for the grading secret that the test put in the
# environment of `judge server start` and of the client, everywhere a forked worker
# could reach it (its environment block, os.environ, the frames that called it, every
# live dict), and answers wrong if it finds it.
import gc
import os
import sys

SECRET = "TOPSECRET-4711"


def _leaked() -> bool:
    with open("/proc/self/environ", "rb") as f:
        if SECRET.encode() in f.read():
            return True
    if any(SECRET in value for value in os.environ.values()):
        return True
    mine = globals()  # where the needle itself lives
    frame = sys._getframe()
    while frame is not None:
        if frame.f_globals is not mine and any(
                isinstance(v, (str, dict)) and SECRET in str(v) for v in list(frame.f_locals.values())):
            return True
        frame = frame.f_back
    return any(isinstance(o, dict) and o is not mine and any(isinstance(v, str) and SECRET in v
                                                              for v in list(o.values()))
               for o in gc.get_objects())


LEAKED = _leaked()


def solve(input, output, rows, cols):
    if LEAKED:
        output.zero_()
    else:
        output.copy_(input.T)
