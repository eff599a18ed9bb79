# Red team of issue 46, idea 6: where the worker has no namespaces (JUDGE_NAMESPACES=0, an old kernel, a container
# that forbids them: a documented fallback), a helper made with clone(CLONE_PARENT) is the *judge's* child, not the
# worker's.  The fallback's defence is a child subreaper, which only adopts orphans below it; seccomp allows clone
# with any flag but the namespace ones.  So the helper is not below the worker's root: tree.left_running() does not
# see it, the freeze does not stop it, the memory watchdog (limits.family of the root) does not count it
# (JUDGE_TEST_HELPER_MB), and the judge's process becomes its parent.  solve() is honest, so the run is accepted.
# Seen twice (JUDGE_NAMESPACES=0, CPU mode): accepted, all 11 tests; through the Worker API the helper ran ("R")
# while the worker was frozen ("T"), held 1025 MiB against a 700 MiB limit with 299 MiB counted, and was left
# as a zombie child of the judge's process after stop().  With namespaces on, the worker is its namespace's
# first process and the kernel refuses CLONE_PARENT (EINVAL): no helper, accepted.
import ctypes
import os
import signal
import time

_CLONE_PARENT = 0x00008000
_mb = int(os.environ.get("JUDGE_TEST_HELPER_MB", "0") or 0)
_root = os.getpid()

_pid = ctypes.CDLL(None, use_errno=True).syscall(56, _CLONE_PARENT | signal.SIGCHLD, 0, 0, 0, 0)  # SYS_clone
if _pid == 0:  # the helper: a sibling of the worker
    hoard = bytearray(_mb * 1024 * 1024)
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1
    while True:
        time.sleep(0.05)
        try:
            os.kill(_root, 0)
        except OSError:
            os._exit(0)  # the worker is gone
CLONED = _pid  # > 0 in the worker; -1 where the kernel refused (a namespace's first process may not)


def solve(input, output, rows, cols):
    output.copy_(input.T)
