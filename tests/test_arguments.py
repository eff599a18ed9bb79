"""The shared arguments (judge/worker/arguments.py): slots laid out at page-aligned offsets with guard zones, the
judge's memory that only grows, the worker's mapping of each slot inside inaccessible address space, a slot the
other side sent checked before it is used, and stores outside a tensor found in its zones."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from judge.worker.arguments import (PAGE, ArgumentsError, JudgeArguments, Slot, WorkerArguments, plan, span,
                                    zone_bytes)

from conftest import ROOT

LINUX = sys.platform.startswith("linux")
needs_memfd = pytest.mark.skipif(not LINUX, reason="the shared memory is a memfd (Linux)")


def test_slots_are_page_aligned_blocks_with_a_zone_of_the_tensors_own_size_on_each_side():
    slots = plan([("a", "float32", (3, 4)), ("b", "float16", (0,)), ("c", "int64", (100_000,))])
    assert [s.offset % PAGE for s in slots] == [0, 0, 0]
    assert slots[0].front == zone_bytes(48) == 64 * 1024 and slots[0].nbytes == 48
    assert slots[2].front == zone_bytes(800_000) and slots[2].nbytes == 800_000
    assert all(b.offset == a.offset + a.block for a, b in zip(slots, slots[1:]))
    assert span(slots) == slots[-1].offset + slots[-1].block
    assert plan([("a", "float32", (3,))], zoned=False)[0].front == 0


@pytest.mark.parametrize("item", [
    ["a", "float32", [2, 2], 0, 0, 17, 0],  # bytes that do not match the shape
    ["a", "complex64", [2], 0, 0, 16, 0],  # a dtype no spec has
    ["a", "float32", [2], 100, 0, 8, 0],  # not page-aligned
    ["a", "float32", [2], 0, 0, 8, 1 << 40],  # past the end of the memory
    ["a", "float32", [-2], 0, 0, -8, 0],
    "not a slot",
])
def test_a_slot_outside_the_memory_or_malformed_is_refused(item):
    with pytest.raises(ArgumentsError):
        Slot.from_message(item, 1 << 20)


@needs_memfd
def test_the_worker_sees_what_the_judge_placed_and_the_judge_reads_what_the_call_wrote():
    judge = JudgeArguments("cpu")
    try:
        drawn = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        slots = judge.place([("input", "float32", (3, 4), drawn), ("output", "float32", (4, 3), float("nan"))])
        worker = WorkerArguments("cpu", judge.fd)
        tensors = worker.tensors(judge.handle(), [s.message() for s in slots])
        assert torch.equal(tensors["input"], drawn) and tensors["output"].isnan().all()
        tensors["output"].copy_(tensors["input"].T)
        assert torch.equal(judge.read()["output"], drawn.T) and judge.violations() == []
        assert worker.tensors(judge.handle(), [s.message() for s in slots])["input"] is tensors["input"]  # kept
    finally:
        judge.close()


@needs_memfd
def test_a_store_past_a_tensors_end_is_found_in_its_zone():
    import ctypes

    judge = JudgeArguments("cpu")
    try:
        slots = judge.place([("output", "float32", (4, 3), 0.0)])
        tensor = WorkerArguments("cpu", judge.fd).tensors(judge.handle(), [slots[0].message()])["output"]
        ctypes.memset(tensor.data_ptr() + tensor.nbytes + 8, 7, 4)
        (violation,) = judge.violations()
        assert violation.after == 12 and violation.before == 0
        assert "wrote outside `output` (float32[4, 3]): up to 12 bytes past its end" in violation.message()
    finally:
        judge.close()


@needs_memfd
def test_the_memory_grows_and_no_one_can_shrink_it():
    import os

    judge = JudgeArguments("cpu")
    try:
        judge.place([("a", "uint8", (16,), 0)])
        small = judge.memory.size
        judge.place([("a", "uint8", (8 << 20,), 0)])
        assert judge.memory.size > small
        with pytest.raises(OSError):
            os.ftruncate(judge.fd, 0)  # sealed: a worker that shrank it would make the judge's reads fault
    finally:
        judge.close()


@needs_memfd
def test_a_store_far_outside_a_slot_faults_in_the_worker_every_time():
    """Each slot is mapped inside inaccessible address space: a store 1 MiB past a 48-byte tensor (past its zone)
    is a fault, the same every run, never a write into other memory of the worker's."""
    script = f"""
import ctypes, sys
sys.path.insert(0, {str(ROOT)!r})
from judge.worker.arguments import JudgeArguments, WorkerArguments
judge = JudgeArguments("cpu")
slots = judge.place([("output", "float32", (4, 3), 0.0)])
tensor = WorkerArguments("cpu", judge.fd).tensors(judge.handle(), [slots[0].message()])["output"]
ctypes.memset(tensor.data_ptr() + (1 << 20), 7, 4)
print("no fault")
"""
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == -11 and "no fault" not in done.stdout, (done.returncode, done.stderr[-400:])


@needs_memfd
def test_no_two_zones_hold_the_same_bytes_at_the_same_distance_from_their_tensor():
    """An unmasked 1x1 transpose read the bytes past its input's end and stored them past its output's end: with one
    canary phase for every zone they were the same bytes, and the case passed (issue 49)."""
    import ctypes

    judge = JudgeArguments("cpu")
    try:
        slots = judge.place([("input", "float32", (1, 1), torch.ones(1, 1)), ("output", "float32", (1, 1), 0.0)])
        tensors = WorkerArguments("cpu", judge.fd).tensors(judge.handle(), [s.message() for s in slots])
        source, target = tensors["input"], tensors["output"]
        ctypes.memmove(target.data_ptr() + 4, source.data_ptr() + 4, 28)  # a stray 32-byte row's tail, copied
        ctypes.memmove(target.data_ptr() - 64, source.data_ptr() - 64, 64)  # and a stray store before it
        (violation,) = judge.violations()
        assert violation.name == "output" and violation.after == 28 and violation.before == 64
    finally:
        judge.close()


@needs_memfd
def test_zones_are_written_again_after_a_store_into_them_and_only_then():
    """The canary is written for a new layout or after a check found a zone changed (a timed call's 2 x 64 MiB of a
    large tensor's zones need not be written before every call): a clean check leaves them for the next call."""
    import ctypes

    judge = JudgeArguments("cpu")
    try:
        slots = judge.place([("output", "float32", (4, 3), 0.0)])
        tensor = WorkerArguments("cpu", judge.fd).tensors(judge.handle(), [slots[0].message()])["output"]
        ctypes.memset(tensor.data_ptr() + tensor.nbytes, 7, 4)
        assert judge.violations()  # found: the next place writes the zones again
        judge.place([("output", "float32", (4, 3), 0.0)])
        assert judge.violations() == []
        judge.place([("output", "float32", (4, 3), 0.0)])  # clean: not written again, still clean
        assert judge.violations() == []
    finally:
        judge.close()
