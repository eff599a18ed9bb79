# Red team of issue 46, idea 10: the shared memory itself, from the worker's side (it holds the memfd: the
# descriptor named on its command line), JUDGE_TEST_MODE choosing how:
#   punch    - the right answer written, then the output's pages punched out of the file (fallocate PUNCH_HOLE): the
#              judge reads zeros from its own mapping; could a hole make its read fault instead (SIGBUS)?
#   seal     - F_SEAL_WRITE / F_SEAL_FUTURE_WRITE added to the file, so that the judge's next place() cannot write;
#   canary   - 4 KiB of garbage stored past the output's end, then the canary bytes that were there put back: the zone
#              check finds nothing (what lived there: nothing but the canary);
#   input    - the whole file mapped again and the input overwritten after the answer is written: does the judge
#              see an input changed (its reference has its own copy)?
#   shrink   - ftruncate(0) of the file: the judge's mapping would fault (SIGBUS) if it shrank.
# Seen twice each: punch: runtime_error, "solve() wrote outside `output` ... 4092 bytes past its end" (zeros read
# from the judge's mapping, no fault); seal: both seals refused (EPERM: F_SEAL_SEAL), accepted; canary: accepted
# (the store undone is invisible, and nothing but the canary lived there: no harm); input: wrong_answer, "input
# 'input' was modified"; shrink: ftruncate refused (EPERM: F_SEAL_SHRINK), accepted, the judge's size unchanged.
# Not a hole.  (Growing the file is: idea 3, memfd_hoard.py.)
import ctypes
import fcntl
import mmap
import os
import sys

_mode = os.environ.get("JUDGE_TEST_MODE", "punch")
_fd = int(sys.argv[3])
_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long)
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
F_SEAL_WRITE, F_SEAL_FUTURE_WRITE = 8, 16
_said = []


def _say(*what):
    if not _said:
        _said.append(1)
        print(*what, file=sys.stderr, flush=True)


def _offset_of(tensor) -> int:
    """Where ``tensor``'s bytes are in the memfd: the worker maps each block at a page boundary of the file."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, _, offset, *_rest = line.split()
            low, high = (int(x, 16) for x in span.split("-"))
            if low <= tensor.data_ptr() < high and "memfd:judge-arguments" in line:
                return int(offset, 16) + tensor.data_ptr() - low
    raise RuntimeError("not found")


def solve(input, output, rows, cols):
    output.copy_(input.T)
    if _mode == "punch":
        start = _offset_of(output) // mmap.PAGESIZE * mmap.PAGESIZE
        status = _libc.fallocate(_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start, mmap.PAGESIZE)
        _say("punch:", status, ctypes.get_errno())
    elif _mode == "seal":
        for seal in (F_SEAL_WRITE, F_SEAL_FUTURE_WRITE):
            try:
                fcntl.fcntl(_fd, fcntl.F_ADD_SEALS, seal)
                _say("sealed", seal)
            except OSError as exc:
                _say("seal refused:", exc)
    elif _mode == "canary":
        whole = mmap.mmap(_fd, os.fstat(_fd).st_size)
        end = _offset_of(output) + output.numel() * 4
        kept = whole[end:end + 4096]
        whole[end:end + 4096] = os.urandom(4096)  # an out-of-bounds store ...
        whole[end:end + 4096] = kept  # ... undone
    elif _mode == "input":
        whole = mmap.mmap(_fd, os.fstat(_fd).st_size)
        start = _offset_of(input)
        whole[start:start + 4] = b"\0\0\0\0"
    elif _mode == "shrink":
        try:
            os.ftruncate(_fd, 0)
        except OSError as exc:
            _say("ftruncate refused:", exc)
