# Cheat: tampers with the shared area that outputs travel through
# (judge/worker/area.py): tries to shrink it under the judge's mapping (which
# would make the judge's reads fault), then names bytes outside it.
import os

import judge.worker.area as area


def _forged_write(self, tensors):
    try:
        os.ftruncate(self.fd, 0)  # refused: the judge sealed the area against shrinking
    except OSError:
        pass
    self.owed = True
    return [[self.size, 1 << 40] for _ in tensors]


area.WorkerArea.write = _forged_write


def solve(input, output, rows, cols):
    output.copy_(input.T)
