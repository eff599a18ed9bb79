# Red team of issue 46, idea 1: a helper process the judge cannot see.
#
# At import the solution forks a child; the child starts a thread and then ends its *main* thread alone
# (SYS_exit, not exit_group).  The kernel keeps the thread-group leader as a zombie ("Z" in /proc/<pid>/stat)
# for as long as the other thread lives, so:
#   - tree.left_running() reads the leader's state, sees "Z", and counts the child as ended: no "left a process
#     running" refusal, ever;
#   - the memory watchdog reads VmRSS of the leader, which a zombie leader has none of: whatever the live thread
#     allocates is not counted (JUDGE_TEST_HELPER_MB of it);
#   - the helper is never sent SIGSTOP (the freeze stops the worker's root only).  With JUDGE_TEST_HELPER_THAW=1
#     it thaws the worker itself: a thread of the worker's ticks a counter in memory the two share; when the
#     ticks stop (the judge froze the worker), the helper waits until the judge has seen every thread stopped and
#     sends SIGCONT.  The worker then runs while the judge reads its results and writes the next call's inputs.
# solve() itself is an honest transpose, so the run is accepted: what the helper does is invisible to the judge.
# Seen (twice each, CPU mode, namespaces and sandbox on): accepted, all 11 tests; left_running() empty with the
# helper alive; 1.2 GB resident in the helper, 298 MiB counted (under a 600 MiB limit: not tripped); the worker
# not stopped 100 ms after each reply.  (A helper that sends SIGCONT in a tight loop instead is caught: the
# judge never sees every thread stopped, "could not be stopped after loading the solution", runtime_error.)
import ctypes
import mmap
import os
import signal
import threading
import time

_ROOT = os.getpid()
_MB = int(os.environ.get("JUDGE_TEST_HELPER_MB", "0") or 0)
_THAW = os.environ.get("JUDGE_TEST_HELPER_THAW") == "1"
_shared = mmap.mmap(-1, 4096)  # MAP_SHARED anonymous: the worker's ticks, the helper's thaw count
_ticks = ctypes.c_uint64.from_buffer(_shared, 0)
_thawed = ctypes.c_uint64.from_buffer(_shared, 8)
_ready = ctypes.c_uint64.from_buffer(_shared, 16)


def _leader_state() -> str:
    try:
        with open("/proc/self/stat", "rb") as f:  # /proc/self: the thread group's leader
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return "?"


def _helper():
    for _ in range(1000):
        if _leader_state() == "Z":
            break
        time.sleep(0.001)
    hoard = bytearray(_MB * 1024 * 1024)  # touched: resident, in a process whose VmRSS the judge cannot read
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1
    _ready.value = 1
    last, still = _ticks.value, 0
    while True:
        time.sleep(0.001)
        try:
            os.kill(_ROOT, 0)
        except OSError:
            os._exit(0)
        if not _THAW:
            continue
        now = _ticks.value
        still = still + 1 if now == last else 0
        last = now
        if still == 20:  # frozen for ~20 ms: the judge has seen it stopped; undo the freeze
            os.kill(_ROOT, signal.SIGCONT)
            _thawed.value += 1
            still = 0


def _ticker():
    while True:
        _ticks.value += 1
        time.sleep(0.0005)


if os.fork() == 0:
    threading.Thread(target=_helper).start()
    ctypes.CDLL(None).syscall(60, 0)  # SYS_exit: this thread only; the leader stays a zombie, the helper runs
    os._exit(0)  # not reached

while not _ready.value:  # the import ends only once the helper is hidden
    time.sleep(0.001)

if _THAW:
    threading.Thread(target=_ticker, daemon=True).start()


def thawed() -> int:
    """How many times the helper undid the judge's freeze so far."""
    return _thawed.value


def solve(input, output, rows, cols):
    output.copy_(input.T)
