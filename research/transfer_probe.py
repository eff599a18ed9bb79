"""How fast can a worker hand 256 MiB of outputs to the judge?  (GPU or CPU)

A verified timed call sends its outputs from the worker to the judge; the
2026-11-21 overhead measurement put that at ~0.3 s per 256 MiB on the H200
host.  This times the pieces, for 4 transfers of 256 MiB each, and prints one
JSON line per way:

- ``pipe``: judge.worker.protocol over an os.pipe (as the judge does), default
  pipe size, and with the pipe enlarged to 1 MiB (F_SETPIPE_SZ);
- ``shm``: the bytes written into a /dev/shm file the reader maps;
- ``area``: the judge's shared area (judge/worker/area.py), reused as the
  judge reuses it: the worker side copies the tensor in (from the GPU when
  there is one), the judge side reads it in place (to the GPU when there is one);
- ``d2h`` / ``h2d``: the GPU copies on either side (GPU only).
"""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from judge.challenge.tensors import from_bytes  # noqa: E402
from judge.worker import protocol  # noqa: E402
from judge.worker.area import JudgeArea, WorkerArea  # noqa: E402

N = 256 * 1024**2
REPS = 4
F_SETPIPE_SZ = 1031


def through_pipe(pipe_bytes: int | None) -> float:
    read_fd, write_fd = os.pipe()
    if pipe_bytes:
        fcntl.fcntl(write_fd, F_SETPIPE_SZ, pipe_bytes)
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        data = bytearray(N)
        for _ in range(REPS):
            protocol.send(write_fd, {"op": "verify"}, [data])
        os._exit(0)
    os.close(write_fd)
    start = time.perf_counter()
    for _ in range(REPS):
        protocol.receive(read_fd)
    elapsed = time.perf_counter() - start
    os.waitpid(pid, 0)
    os.close(read_fd)
    return elapsed / REPS


def through_shm() -> float:
    source = torch.rand(N // 4).view(torch.uint8)
    total = 0.0
    for _ in range(REPS):
        with tempfile.NamedTemporaryFile(dir="/dev/shm") as file:
            start = time.perf_counter()
            os.ftruncate(file.fileno(), N)
            with mmap.mmap(file.fileno(), N) as view:
                torch.frombuffer(view, dtype=torch.uint8).copy_(source)
            with mmap.mmap(file.fileno(), N, prot=mmap.PROT_READ) as view:
                received = torch.frombuffer(bytearray(view), dtype=torch.uint8)
            total += time.perf_counter() - start
    assert torch.equal(received, source)
    return total / REPS


def through_area() -> dict:
    """Worker-side write and judge-side read of the shared area, each averaged over REPS after one warm-up."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    source = torch.rand(N // 4, device=device)
    judge_side = JudgeArea.create()
    worker_side = WorkerArea(os.dup(judge_side.fd))
    judge_side.reserve(N)
    assert worker_side.fits(N)
    write = read = 0.0
    for rep in range(REPS + 1):  # the first round faults the area's pages in: not counted
        start = time.perf_counter()
        spans = worker_side.write([source])
        middle = time.perf_counter()
        received = from_bytes(judge_side.views(spans)[0], "float32", (N // 4,)).to(device, copy=True)
        if device == "cuda":
            torch.cuda.synchronize()
        if rep:
            write, read = write + middle - start, read + time.perf_counter() - middle
    assert torch.equal(received, source)
    judge_side.close()
    os.close(worker_side.fd)
    return {"device": device, "write_ms": round(write / REPS * 1e3, 1), "read_ms": round(read / REPS * 1e3, 1),
            "ms_per_256MiB": round((write + read) / REPS * 1e3, 1)}


def gpu_copies() -> dict:
    if not torch.cuda.is_available():
        return {}
    gpu = torch.rand(N // 4, device="cuda")
    torch.cuda.synchronize()
    start = time.perf_counter()
    host = gpu.cpu()
    d2h = time.perf_counter() - start
    start = time.perf_counter()
    host.to("cuda")
    torch.cuda.synchronize()
    return {"d2h_ms": round(d2h * 1e3, 1), "h2d_ms": round((time.perf_counter() - start) * 1e3, 1)}


def main() -> None:
    for way, seconds in (("pipe", through_pipe(None)), ("pipe 1 MiB", through_pipe(1 << 20)), ("shm", through_shm())):
        print(json.dumps({"way": way, "ms_per_256MiB": round(seconds * 1e3, 1), "GB_s": round(N / seconds / 1e9, 2)}))
    print(json.dumps({"way": "area", **through_area()}))
    print(json.dumps({"way": "gpu copies, 256 MiB", **gpu_copies()}))


if __name__ == "__main__":
    main()
