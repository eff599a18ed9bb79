"""Outputs by CUDA IPC handle (judge/worker/cuda_ipc.py).

Without a GPU: the judge's checks of what a worker claims, the order of
shared and piped tensors, the ack, and the worker's fallback to the pipe.
With one (``-m gpu``): a real worker shares its outputs, a forged handle is
a clear error that leaves the judge's GPU usable, and ``JUDGE_NO_IPC=1``
judges the same.
"""

from __future__ import annotations

import os

import pytest
import torch

from judge.spec import load_spec
from judge.worker import cuda_ipc, protocol
from judge.worker.client import Worker, WorkerCrashed
from judge.worker.session import Session

from conftest import SOLUTIONS, SPECS

SPEC = load_spec(SPECS / "tiny_transpose.yaml")
HANDLE = {"handle": "ab" * 64, "offset": 256}


@pytest.mark.parametrize("meta", [
    None, {}, {"handle": "ab" * 63, "offset": 0}, {"handle": "zz" * 64, "offset": 0},
    {"handle": "ab" * 64, "offset": -1}, {"handle": "ab" * 64, "offset": 1.5}, {"handle": "ab" * 64},
])
def test_a_malformed_handle_is_refused_before_the_driver_sees_it(meta):
    with pytest.raises(cuda_ipc.IpcError):
        cuda_ipc.parse(meta)


def test_a_well_formed_handle_parses():
    handle, offset = cuda_ipc.parse(HANDLE)
    assert handle == b"\xab" * 64 and offset == 256


class PipelessWorker(Worker):
    """The judge's side of a worker with no process: sends are recorded, kills counted."""

    def __init__(self):
        super().__init__(str(SOLUTIONS / "transpose_ok.py"), SPEC, "cuda:0", interpret=False)
        self.sent, self.killed = [], 0
        self.max_blob = 1024

    def _send(self, header):
        self.sent.append(header)

    def _kill(self):
        self.killed += 1


def test_shared_tensors_are_copied_in_order_with_piped_ones_then_acknowledged(monkeypatch):
    copied = []
    monkeypatch.setattr(cuda_ipc, "copy_out", lambda meta, nbytes, device: copied.append(nbytes) or f"gpu{nbytes}")
    worker = PipelessWorker()
    metas = [{"name": "input", "dtype": "float32", "shape": [3, 2], "ipc": HANDLE},
             {"name": "output", "dtype": "float32", "shape": [2, 3]},
             {"name": "extra", "dtype": "float16", "shape": [4], "ipc": HANDLE}]
    assert worker._copy_shared(metas, [b"piped"], "a test") == ["gpu24", b"piped", "gpu8"]
    assert copied == [24, 8] and worker.sent == [{"op": "ack"}]


@pytest.mark.parametrize("meta", [
    {"name": "output", "dtype": "float32", "shape": [1024, 1024], "ipc": HANDLE},  # more than max_blob
    {"name": "output", "dtype": "float99", "shape": [2], "ipc": HANDLE},
    {"name": "output", "dtype": "float32", "shape": [-2, 3], "ipc": HANDLE},
])
def test_a_shared_tensor_the_judge_did_not_expect_stops_the_worker(monkeypatch, meta):
    monkeypatch.setattr(cuda_ipc, "copy_out", lambda *a: pytest.fail("must not be mapped"))
    worker = PipelessWorker()
    with pytest.raises(WorkerCrashed, match="could not read the solution's outputs"):
        worker._copy_shared([meta], [], "a test")
    assert worker.killed == 1 and worker.sent == []  # no ack: the worker is gone


def test_a_handle_the_driver_refuses_stops_the_worker_with_advice(monkeypatch):
    def refuse(meta, nbytes, device):
        raise cuda_ipc.IpcError("cuIpcOpenMemHandle failed: CUDA_ERROR_INVALID_VALUE")

    monkeypatch.setattr(cuda_ipc, "copy_out", refuse)
    worker = PipelessWorker()
    with pytest.raises(WorkerCrashed, match="JUDGE_NO_IPC=1"):
        worker._copy_shared([{"name": "output", "dtype": "float32", "shape": [2], "ipc": HANDLE}], [], "a test")


def test_no_ipc_is_asked_for_on_the_cpu_or_when_turned_off(monkeypatch):
    assert not Worker("x.py", SPEC, "cpu", interpret=True).ipc
    assert Worker("x.py", SPEC, "cuda:0", interpret=False).ipc
    monkeypatch.setenv("JUDGE_NO_IPC", "1")
    assert not Worker("x.py", SPEC, "cuda:0", interpret=False).ipc


class PipeSession(Session):
    """A worker session whose replies are collected and whose acks come through a real pipe."""

    def __init__(self, request_fd):
        super().__init__({"device": "cpu", "solution": "x.py", "spec": {}}, -1, lambda: 0.0, request_fd)
        self.spec, self.replies, self.ipc = SPEC, [], True

    def reply(self, header, blobs=()):
        self.replies.append((header, list(blobs)))


def test_the_worker_shares_its_tensors_and_waits_for_the_ack(monkeypatch):
    read_fd, write_fd = os.pipe()
    session = PipeSession(read_fd)
    monkeypatch.setattr(session, "export", lambda tensor: {"handle": "cd" * 64, "offset": 0})
    protocol.send(write_fd, {"op": "ack"})
    args = [torch.ones(2, 3), torch.zeros(3, 2), 2, 3]
    session.send_tensors({"ok": True, "op": "result"}, args)
    header, blobs = session.replies[0]
    assert [m["ipc"]["handle"] for m in header["tensors"]] == ["cd" * 64] * 2 and blobs == []
    os.set_blocking(read_fd, False)
    with pytest.raises(BlockingIOError):  # the ack was read: nothing is left in the pipe
        os.read(read_fd, 1)


def test_the_worker_falls_back_to_the_pipe_when_export_fails(monkeypatch):
    session = PipeSession(-1)

    def unsupported(tensor):
        raise cuda_ipc.IpcError("cuIpcGetMemHandle failed: CUDA_ERROR_NOT_SUPPORTED")

    monkeypatch.setattr(cuda_ipc, "export", unsupported)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))  # as if on the GPU
    monkeypatch.setattr("judge.worker.session._synchronize", lambda: None)
    session.send_tensors({"ok": True, "op": "result"}, [torch.ones(2, 3), torch.zeros(3, 2), 2, 3])
    header, blobs = session.replies[0]
    assert not session.ipc and len(blobs) == 2 and all("ipc" not in m for m in header["tensors"])


# -- on the GPU ------------------------------------------------------------------

@pytest.mark.gpu
def test_a_real_worker_shares_its_outputs_and_is_judged_the_same_without_ipc(monkeypatch):
    from judge.catalog import load_challenge
    from judge.runner import Options, judge_solution
    from conftest import EXAMPLES

    spec = load_challenge("transpose")
    worker = Worker(str(EXAMPLES / "transpose/tuned.py"), spec, "cuda:0", interpret=False)
    worker.start(timeout=120)
    try:
        assert worker.ipc, "the IPC probe failed on this GPU"
    finally:
        worker.stop()
    verdicts = []
    for off in ("0", "1"):
        monkeypatch.setenv("JUDGE_NO_IPC", off)
        result = judge_solution(spec, str(EXAMPLES / "transpose/tuned.py"), Options(seed=1, bench_budget_s=0.3))
        verdicts.append((result.verdict, [t.verdict for t in result.tests], len(result.benchmarks)))
    assert verdicts[0] == verdicts[1] and verdicts[0][0].value == "accepted"


@pytest.mark.gpu
def test_a_forged_handle_is_an_ipc_error_and_the_judges_gpu_still_works():
    with pytest.raises(cuda_ipc.IpcError):
        cuda_ipc.copy_out({"handle": "00" * 64, "offset": 0}, 16, "cuda:0")
    assert torch.ones(4, device="cuda:0").add_(1).sum().item() == 8.0


@pytest.mark.gpu
def test_copy_out_refuses_to_read_past_the_allocation():
    """A worker's own allocation, exported and opened in a child process: an offset past its end is refused."""
    import multiprocessing as mp

    tensor = torch.arange(1024, dtype=torch.uint8, device="cuda:0")
    torch.cuda.synchronize()
    meta = cuda_ipc.export(tensor)
    context = mp.get_context("spawn")
    with context.Pool(1) as pool:
        inside, past = pool.apply(_open_in_child, (meta,))
    assert inside == list(range(16)) and "holds" in past


def _open_in_child(meta):
    got = cuda_ipc.copy_out(meta, 16, "cuda:0").tolist()
    try:
        cuda_ipc.copy_out(dict(meta, offset=meta["offset"] + (1 << 40)), 16, "cuda:0")
        past = "read"
    except cuda_ipc.IpcError as exc:
        past = str(exc)
    return got, past
