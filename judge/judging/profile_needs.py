"""What ``judge profile`` needs and says it lacks, torch-free: the CLI says it before importing anything heavy
(it took 2-3 s to say that a CPU machine has no GPU; issue 49 item 9).  Pure: no I/O."""

from __future__ import annotations

__all__ = ["NEEDS_GPU", "certainly_no_gpu"]

NEEDS_GPU = (
    "judge profile reads what the GPU itself recorded of the solution's kernels (CUPTI's activity records, "
    "and Nsight Compute's hardware counters), so it needs an NVIDIA GPU and a CUDA build of torch; this run "
    "is in CPU mode (--interpret, or no GPU that torch can use). In CPU mode, 'judge run' checks a solution's "
    "answers through Triton's interpreter; profile it on a machine with a GPU.")


def certainly_no_gpu(torch_has_cuda: bool | None, visible_devices: int | None) -> bool:
    """Whether torch certainly sees no GPU, from what base/cuda_driver tells without importing torch: a CPU
    build of torch, or a CUDA driver with no device.  Unknown (None) is not certain: torch is asked then."""
    return torch_has_cuda is False or visible_devices == 0
