"""A solution that holds the GPU's memory leaves none for the judge's next call's arguments: that is the
solution's runtime error, not an internal error of the judge's (seen on an H200, 2026-12-02:
test_gpu_sealed's abuse_lift_memory_fraction ended the run with JudgeEnvironmentError from cuMemAlloc)."""

from types import SimpleNamespace

import pytest

from judge.worker import arguments
from judge.worker.arguments import ArgumentsError, ArgumentsOutOfMemory, CallArguments
from judge.worker.client import Worker, WorkerCrashed


def test_the_drivers_out_of_memory_is_its_own_error():
    with pytest.raises(ArgumentsOutOfMemory, match="out of memory"):
        arguments._check(arguments.CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc")
    with pytest.raises(ArgumentsError) as other:
        arguments._check(1, "cuMemAlloc")
    assert not isinstance(other.value, ArgumentsOutOfMemory)


def test_no_memory_left_for_the_arguments_is_the_solutions_runtime_error():
    def place(tensors, zoned):
        raise ArgumentsOutOfMemory("cuMemAlloc failed: the GPU is out of memory (CUDA driver error 2)")

    worker = SimpleNamespace(arguments=SimpleNamespace(place=place), device="cuda")
    with pytest.raises(WorkerCrashed, match="the solution's process holds it"):
        Worker.place(worker, [], CallArguments([]))
