# Timing cheat (red team, 2026-11-26): softmax computed on the host while the judge's launch guard
# spins.  solve() takes about a millisecond of host time, so the guard grows to its 2 ms cap; inside
# it, a side stream's copy engine moves the input to pinned host memory, the host computes the
# softmax, and the copy engine moves it into a scratch buffer of its own (the guard writes the
# outputs again after its spin, not the scratch).  Only the last copy, scratch -> output on the
# current stream, came after the start event: 0.0082 ms on an H100 against 0.0102 ms for the honest
# kernel.  The inputs now hold poison until the guard's spin ends: it reads poison and is a wrong answer.
import torch

_side = None
_buffers = {}


def solve(input, output, N):
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    if N not in _buffers:
        _buffers[N] = (torch.empty(N, pin_memory=True), torch.empty(N, device=input.device))
    host, scratch = _buffers[N]
    with torch.cuda.stream(_side):
        host.copy_(input, non_blocking=True)
        _side.synchronize()
        result = torch.softmax(host, 0)  # on the CPU
        host.copy_(result)
        scratch.copy_(host, non_blocking=True)
        _side.synchronize()
    output.copy_(scratch)
