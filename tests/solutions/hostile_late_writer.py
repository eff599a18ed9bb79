# Hostile (issue 38's red team): a helper forked at import keeps the worker's mapping of the shared reply area
# and writes the right output into it after solve() returned, once the reply is there: solve() itself does no
# work.  Now a process of the solution's left running is a runtime error, and the judge reads a reply in the
# area only while the worker is stopped.
import mmap
import os
import struct
import sys
import time

SHARED = mmap.mmap(-1, 1 << 20)  # shared with the helper: the call's shape and input, from solve()


def _helper(area_fd: int) -> None:
    seen = 0
    while True:
        serial, rows, cols = struct.unpack_from("<QQQ", SHARED, 0)
        if serial and rows * cols:
            n = rows * cols
            values = struct.unpack_from(f"<{n}f", SHARED, 64)
            transposed = [values[r * cols + c] for c in range(cols) for r in range(rows)]
            try:
                area = mmap.mmap(area_fd, 0)
                offset = -(-n * 4 // 4096) * 4096  # the output's span follows the input's, page-aligned
                struct.pack_into(f"<{n}f", area, offset, *transposed)
                area.close()
            except (OSError, ValueError, struct.error):
                pass
        if serial != seen:
            seen = serial
        time.sleep(0.0002)


if len(sys.argv) > 3 and os.fork() == 0:
    _helper(int(sys.argv[3]))
    os._exit(0)


def solve(input, output, rows, cols):
    data = input.contiguous().view(-1).tolist()
    struct.pack_into(f"<{len(data)}f", SHARED, 64, *data)
    serial = struct.unpack_from("<Q", SHARED, 0)[0] + 1
    struct.pack_into("<QQQ", SHARED, 0, serial, rows, cols)
