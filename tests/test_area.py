"""The shared area that tensors travel through from the worker to the judge
(judge/worker/area.py): its layout, its seal, the ``area_free`` hand-shake, and
a real worker's replies through it."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
import torch

from judge.judging.reference import Reference
from judge.challenge.spec import load_spec
from judge.worker import area as area_module
from judge.worker import protocol
from judge.worker.area import ALIGN, AreaError, JudgeArea, WorkerArea, check_spans, layout, span
from judge.worker.client import Worker
from judge.worker.session import Session

from conftest import SOLUTIONS, SPECS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="memfd is Linux-only")
SPEC = load_spec(SPECS / "tiny_transpose.yaml")


def test_layout_puts_each_blob_at_a_page_aligned_offset():
    assert layout([10, ALIGN, 0, 3]) == [(0, 10), (ALIGN, ALIGN), (2 * ALIGN, 0), (2 * ALIGN, 3)]
    assert span([10, ALIGN, 0, 3]) == 3 * ALIGN
    assert span([]) == 0


@pytest.mark.parametrize("spans", [
    "0,4", [[0]], [[0, 4, 1]], [[-1, 4]], [[0, 1.5]], [[True, 4]], [[4000, 200]], [[0, 1 << 40]],
])
def test_spans_outside_the_area_or_malformed_are_refused(spans):
    with pytest.raises(AreaError):
        check_spans(spans, 4096)


def test_spans_inside_the_area_pass():
    assert check_spans([[0, 4096], [4096, 0], [100, 10]], 4096) == [(0, 4096), (4096, 0), (100, 10)]


def test_the_area_grows_and_cannot_be_shrunk_by_anyone():
    judge_side = JudgeArea.create()
    try:
        assert judge_side.reserve(3 * ALIGN) and judge_side.size == 3 * ALIGN
        assert judge_side.reserve(ALIGN) and judge_side.size == 3 * ALIGN  # never smaller
        with pytest.raises(PermissionError):  # what a worker trying to make the judge fault gets
            os.ftruncate(judge_side.fd, 0)
    finally:
        judge_side.close()


def test_the_worker_writes_what_the_judge_reads_in_place():
    judge_side = JudgeArea.create()
    worker_side = WorkerArea(os.dup(judge_side.fd))
    try:
        tensors = [torch.arange(6, dtype=torch.float32).reshape(2, 3), torch.tensor([True, False])]
        sizes = [t.numel() * t.element_size() for t in tensors]
        assert not worker_side.fits(span(sizes))  # the judge has not grown it yet
        judge_side.reserve(span(sizes))
        assert not worker_side.fits(span(sizes))  # nor said so in a request
        worker_side.usable = judge_side.size
        assert worker_side.fits(span(sizes))
        views = judge_side.views(worker_side.write(tensors))
        assert worker_side.owed
        assert bytes(views[0]) == tensors[0].numpy().tobytes() and bytes(views[1]) == b"\x01\x00"
    finally:
        judge_side.close()
        os.close(worker_side.fd)


def test_the_worker_waits_for_area_free_before_overwriting_a_reply():
    """Two replies in a row (as verified timed calls are): the second must not touch the
    area until the judge has said it is done with the first."""
    judge_side = JudgeArea.create()
    request_r, request_w = os.pipe()
    response_r, response_w = os.pipe()
    session = Session({"device": "cpu", "solution": "x.py"}, response_w, time.perf_counter,
                      request_r, WorkerArea(os.dup(judge_side.fd)))
    session.spec = SPEC
    judge_side.reserve(span(Reference(SPEC, "cpu").reply_sizes({"rows": 4, "cols": 4}, outputs_only=True)))
    session.area.usable = judge_side.size
    first, second = (session.arguments({"rows": 4, "cols": 4}, seed) for seed in (1, 2))
    first[1].fill_(1.0)
    second[1].fill_(2.0)

    def worker():
        for args in (first, second):
            session.send_tensors({"op": "verify"}, args, outputs_only=True)

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        header, _ = protocol.receive(response_r, time.monotonic() + 10)
        (view,) = judge_side.views(header["area"])
        time.sleep(0.2)  # time for a worker that does not wait to overwrite it
        assert torch.frombuffer(view, dtype=torch.float32).eq(1.0).all()
        protocol.send(request_w, {"op": "area_free"})
        header, _ = protocol.receive(response_r, time.monotonic() + 10)
        (view,) = judge_side.views(header["area"])
        assert torch.frombuffer(view, dtype=torch.float32).eq(2.0).all()
    finally:
        thread.join(10)
        for fd in (request_r, request_w, response_r, response_w, session.area.fd):
            os.close(fd)
        judge_side.close()


def _call(worker: Worker, params: dict, seed: int):
    reference = Reference(SPEC, "cpu")
    worker.expect_reply(reference.reply_sizes(params))
    header, blobs = worker.request({"op": "call", "params": params, "seed": seed}, 60)
    got = reference.decode(params, header, blobs, outputs_only=False)
    return blobs, [m for m in reference.check(params, seed, got) if not m.ok]


@pytest.mark.slow
def test_a_real_worker_replies_through_the_area_and_keeps_answering():
    worker = Worker(str(SOLUTIONS / "transpose_ok.py"), SPEC, "cpu", interpret=True)
    worker.start(120)
    try:
        for seed, params in enumerate([{"rows": 5, "cols": 3}, {"rows": 33, "cols": 65}, {"rows": 2, "cols": 2}]):
            blobs, problems = _call(worker, params, seed)
            assert all(isinstance(b, memoryview) for b in blobs)  # views of the area, not pipe bytes
            assert problems == []
    finally:
        worker.stop()


@pytest.mark.slow
def test_without_an_area_the_bytes_go_through_the_pipe(monkeypatch):
    monkeypatch.setattr(area_module.JudgeArea, "create", classmethod(lambda cls: None))
    worker = Worker(str(SOLUTIONS / "transpose_ok.py"), SPEC, "cpu", interpret=True)
    worker.start(120)
    try:
        blobs, problems = _call(worker, {"rows": 9, "cols": 4}, 3)
        assert all(isinstance(b, bytearray) for b in blobs) and problems == []
    finally:
        worker.stop()


def test_a_reply_naming_the_area_before_the_judge_made_one_is_refused():
    judge_side = JudgeArea.create()
    try:
        with pytest.raises(AreaError):
            judge_side.views([[0, 0]])
    finally:
        judge_side.close()


def test_the_worker_uses_no_more_than_the_judge_said_it_mapped():
    """The judge's ftruncate can succeed and its mmap fail: then the file is larger than the
    judge's view of it, and the worker must not write beyond the size the judge last sent."""
    judge_side = JudgeArea.create()
    worker_side = WorkerArea(os.dup(judge_side.fd))
    try:
        judge_side.reserve(2 * ALIGN)
        os.ftruncate(judge_side.fd, 8 * ALIGN)  # as if a later reserve had failed after growing the file
        worker_side.usable = judge_side.size
        assert worker_side.fits(2 * ALIGN) and not worker_side.fits(3 * ALIGN)
        os.close(worker_side.fd)
        worker_side.usable = 16 * ALIGN
        assert not worker_side.fits(ALIGN)  # a failure to map means the pipe, not an error
    finally:
        judge_side.close()
