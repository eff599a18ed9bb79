# Run by `scripts/gpu_check.sh probe`; reproduces docs/security.md, "The harness" (which GPU memory sharing works
# inside a worker's namespaces).
"""Which ways of sharing GPU memory between two processes work when the second is in a worker's namespaces
(judge/defence/namespaces.py: user, PID, mount, IPC, UTS, network, cgroup), and what freezing a process costs:
the facts the harness of issue 46 is built on (docs/security.md cites them).  GPU only:

    python3 scripts/device_share_probe.py            # one JSON line per fact

- ``legacy IPC``: cuIpcGetMemHandle / cuIpcOpenMemHandle (what torch.multiprocessing uses for CUDA tensors);
- ``cuMem POSIX fd``: cuMemCreate with an exportable handle, its file descriptor passed over a Unix socket
  (SCM_RIGHTS), cuMemImportFromShareableHandle and cuMemMap in the child;
each from this process to a child that writes 42 into the shared buffer, the child plain and in namespaces;
then SIGSTOP/SIGCONT of a child and a pipe's round trip, each timed.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CU_MEM_LOCATION_TYPE_DEVICE = 1, 1, 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 3, 1
N = 1 << 20  # floats shared


class Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", AllocFlags)]


class IpcHandle(ctypes.Structure):  # CUipcMemHandle: 64 bytes, passed by value to cuIpcOpenMemHandle
    _fields_ = [("reserved", ctypes.c_char * 64)]


class AccessDesc(ctypes.Structure):
    _fields_ = [("location", Location), ("flags", ctypes.c_int)]


def driver():
    cuda = ctypes.CDLL("libcuda.so.1")
    return cuda


def check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what}: CUDA error {status}")


def as_tensor(ptr: int, n: int):
    import torch

    class View:
        __cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (ptr, False), "version": 3,
                                    "strides": None}
    return torch.as_tensor(View(), device="cuda")


def cumem_create(cuda, size: int):
    prop = AllocationProp(CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                          Location(CU_MEM_LOCATION_TYPE_DEVICE, 0))
    granularity = ctypes.c_size_t()
    check(cuda.cuMemGetAllocationGranularity(ctypes.byref(granularity), ctypes.byref(prop), 0), "granularity")
    size = -(-size // granularity.value) * granularity.value
    handle = ctypes.c_ulonglong()
    check(cuda.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop), ctypes.c_ulonglong(0)),
          "cuMemCreate")
    ptr = map_handle(cuda, handle, size)
    fd = ctypes.c_int(-1)
    check(cuda.cuMemExportToShareableHandle(ctypes.byref(fd), handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                            ctypes.c_ulonglong(0)), "cuMemExportToShareableHandle")
    return ptr, size, fd.value


def map_handle(cuda, handle, size: int) -> int:
    ptr = ctypes.c_ulonglong()
    check(cuda.cuMemAddressReserve(ctypes.byref(ptr), ctypes.c_size_t(size), ctypes.c_size_t(0), ctypes.c_ulonglong(0),
                                   ctypes.c_ulonglong(0)), "cuMemAddressReserve")
    check(cuda.cuMemMap(ptr, ctypes.c_size_t(size), ctypes.c_size_t(0), handle, ctypes.c_ulonglong(0)), "cuMemMap")
    access = AccessDesc(Location(CU_MEM_LOCATION_TYPE_DEVICE, 0), CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
    check(cuda.cuMemSetAccess(ptr, ctypes.c_size_t(size), ctypes.byref(access), ctypes.c_size_t(1)), "cuMemSetAccess")
    return ptr.value


CHILD = r"""
import ctypes, json, os, socket, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "namespaces":
    from judge.defence import namespaces
    state = namespaces.enter()
else:
    state = "off: plain child"
import torch
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import device_share_probe as probe
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
cuda = probe.driver()
sock = socket.socket(fileno=int(sys.argv[3]))
msg, fds, _, _ = socket.recv_fds(sock, 4096, 4)
job = json.loads(msg)
try:
    if job["how"] == "legacy":
        handle = probe.IpcHandle.from_buffer_copy(bytes.fromhex(job["handle"]))
        ptr = ctypes.c_ulonglong()
        probe.check(cuda.cuIpcOpenMemHandle_v2(ctypes.byref(ptr), handle, probe.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                    "cuIpcOpenMemHandle")
        address = ptr.value
    else:
        handle = ctypes.c_ulonglong()
        probe.check(cuda.cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fds[0]),
                                                        probe.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), "import")
        address = probe.map_handle(cuda, handle, job["size"])
    view = probe.as_tensor(address, probe.N)
    view.fill_(42.0); torch.cuda.synchronize()
    reply = {"ok": True, "namespaces": state}
except Exception as exc:
    reply = {"ok": False, "namespaces": state, "error": f"{type(exc).__name__}: {exc}"}
sock.sendall(json.dumps(reply).encode())
"""


def share(how: str, where: str) -> dict:
    import torch

    cuda = driver()
    ours, theirs = socket.socketpair()
    fds = []
    if how == "legacy":
        ptr = ctypes.c_ulonglong()
        check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(4 * N)), "cuMemAlloc")
        handle = IpcHandle()
        check(cuda.cuIpcGetMemHandle(ctypes.byref(handle), ptr), "cuIpcGetMemHandle")
        job, address = {"how": how, "handle": bytes(handle).hex()}, ptr.value
    else:
        address, size, fd = cumem_create(cuda, 4 * N)
        job, fds = {"how": how, "size": size}, [fd]
    mine = as_tensor(address, N)
    mine.zero_()
    torch.cuda.synchronize()
    child = subprocess.Popen([sys.executable, "-c", CHILD, ROOT, where, str(theirs.fileno())],
                             pass_fds=[theirs.fileno()])
    theirs.close()
    socket.send_fds(ours, [json.dumps(job).encode()], fds)
    reply = json.loads(ours.recv(65536) or b"{}")
    child.wait(timeout=120)
    torch.cuda.synchronize()
    reply["seen_by_parent"] = float(mine[0].item()) == 42.0 and float(mine[-1].item()) == 42.0
    return {"fact": f"{how} into a {where} child", **reply}


def freeze_cost(rounds: int = 200) -> dict:
    """SIGSTOP until every thread shows stopped, then SIGCONT (judge/defence/tree.py's freeze), and a pipe's
    one-byte round trip to a child that answers at once: microseconds, medians."""
    from judge.defence import tree

    child = subprocess.Popen([sys.executable, "-c", "import os,sys\nwhile True:\n os.write(1, os.read(0, 1))"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    try:
        trips, freezes = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            child.stdin.write(b"x")
            child.stdout.read(1)
            trips.append(time.perf_counter() - start)
        for _ in range(rounds):
            start = time.perf_counter()
            assert tree.freeze(child.pid)
            tree.thaw(child.pid)
            freezes.append(time.perf_counter() - start)
    finally:
        child.kill()
    median = (lambda xs: sorted(xs)[len(xs) // 2] * 1e6)
    return {"fact": "costs", "pipe_round_trip_us": round(median(trips), 1), "freeze_and_thaw_us": round(median(freezes), 1)}


def main() -> int:
    import torch

    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    for how in ("legacy", "cumem"):
        for where in ("plain", "namespaces"):
            try:
                print(json.dumps(share(how, where)), flush=True)
            except Exception as exc:  # noqa: BLE001 - a probe says what failed
                print(json.dumps({"fact": f"{how} into a {where} child", "ok": False,
                                  "error": f"{type(exc).__name__}: {exc}"}), flush=True)
    print(json.dumps(freeze_cost()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
