# Class 2: sys.stdout replaced.  Its flush(), which the worker calls after every reply, peeked at the next request
# in the request pipe with tee(2) (copying it without taking it) and computed that call's answer untimed.
import ctypes
import os
import sys

_libc = ctypes.CDLL(None, use_errno=True)
_request_fd = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else -1
_answers = []


class _Peeking:
    def __init__(self, real):
        self.real = real

    def write(self, text):
        return self.real.write(text)

    def flush(self):
        self.real.flush()
        r, w = os.pipe()
        try:
            copied = _libc.tee(_request_fd, w, 1 << 16, 2)  # SPLICE_F_NONBLOCK
            peeked = os.read(r, 1 << 16) if copied > 0 else b""
        finally:
            os.close(r)
            os.close(w)
        if b'"seed"' in peeked:
            print("peeked the next request's seed", file=sys.__stderr__, flush=True)
            _answers.append(peeked)

    def __getattr__(self, name):
        return getattr(self.real, name)


sys.stdout = _Peeking(sys.stdout)


def solve(input, output, rows, cols):
    sys.stdout.flush()
    if _answers:  # a seed seen before its call: the red team computed the answer from it, untimed
        _answers.pop()
        output.copy_(input.T)
