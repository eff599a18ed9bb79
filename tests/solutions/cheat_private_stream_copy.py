# Cheat (issue 25, 1): the whole copy on a private stream that is never joined: the events on the
# current stream see nothing.  Accepted at 7.6 us for 4096^2 on an H100 (the bytes need 31 us): the
# audit's fixed slack (1.5 x events + 0.1 ms) never fired for such short kernels.  Now every call is
# audited with a slack that scales (and a time under the physical floor is refused).
import torch

_side = []


def solve(a, b, N):
    if not _side:
        _side.append(torch.cuda.Stream())
    with torch.cuda.stream(_side[0]):
        b.copy_(a)
