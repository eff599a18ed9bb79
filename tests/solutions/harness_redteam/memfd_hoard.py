# Red team of issue 46, idea 3: host memory the watchdog does not see, in memory files never mapped.
#
# The memory watchdog (judge/defence/limits.py) sums VmRSS of the worker's processes.  Pages of a memory file
# (memfd_create, the same call the harness's shared memory uses) that the process writes with write(2) and never
# maps are shared memory of the kernel's, charged to no process's VmRSS.  At import the solution makes
# JUDGE_TEST_HOARD_MB MiB of them (64 MiB a file, each under RLIMIT_FSIZE) and keeps the descriptors open.  With
# JUDGE_TEST_HOARD_JUDGES=1 it also fills the judge's own memory file (the harness's, descriptor 3's last sibling)
# up to RLIMIT_FSIZE past the judge's slots: those pages live as long as the judge holds the file, after the
# worker is gone.
# Seen twice each: 1 GiB in memfds with a 600 MiB limit: 297 MiB counted, not tripped (the machine's Shmem rose
# by 1.5 GiB); the judge's memfd fallocated to 512 MiB (st_blocks), the judge's slots 2 MiB of it.
import os

_mb = int(os.environ.get("JUDGE_TEST_HOARD_MB", "0") or 0)
_files = []
_chunk = b"\1" * (1 << 20)
for _ in range(_mb // 64):
    fd = os.memfd_create("hoard")
    for _ in range(64):
        os.write(fd, _chunk)
    _files.append(fd)


def _judges_memfd():
    for fd in range(3, 64):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:judge-arguments"):
                return fd
        except OSError:
            continue
    return None


if os.environ.get("JUDGE_TEST_HOARD_JUDGES") == "1":
    fd = _judges_memfd()
    if fd is not None:
        size = os.fstat(fd).st_size
        try:
            os.posix_fallocate(fd, size, int(os.environ.get("JUDGE_TEST_HOARD_JUDGES_MB", "512")) * 1024**2)
        except OSError as exc:
            print("fallocate of the judge's memfd:", exc, flush=True)
        print("the judge's memfd is now", os.fstat(fd).st_size, "bytes", flush=True)


def solve(input, output, rows, cols):
    output.copy_(input.T)
