# Cheat (issue 25, 6): patches the worker's protocol so every timed call reports -1 ms: accepted with
# 0.0000 ms at 7000x6000, under what the bytes need at the H100's peak.  Now the worker's code is
# fingerprinted and put back after every call (a runtime error), and no negative or impossible time
# is taken from a worker anyway.
import judge.worker.protocol as protocol

_send = protocol.send


def _forged(fd, header, blobs=(), *args, **kwargs):
    if header.get("op") == "timed":
        header = dict(header, event_ms=-1.0, host_ms=-1.0, tail_ms=-1.0)
    if header.get("op") == "result":
        header = dict(header, time_ms=-1.0)
    return _send(fd, header, blobs, *args, **kwargs)


protocol.send = _forged


def solve(input, output, rows, cols):
    output.copy_(input.T)
