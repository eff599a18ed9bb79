"""CPU mode's device mapping (judge/worker/cpu_device.py): a solution that names the GPU gets the CPU."""

from __future__ import annotations

import torch

from judge.worker.cpu_device import CudaOnCpu


def test_every_way_of_naming_the_gpu_gives_the_cpu_and_is_counted():
    x = torch.ones(3)
    with CudaOnCpu() as mode:
        made = [torch.zeros(3, device="cuda"), torch.full((2,), 1.0, device=torch.device("cuda", 0)),
                torch.empty_like(x, device="cuda:0"), x.new_zeros(4, device="cuda"), torch.arange(5, device="cuda"),
                torch.tensor([1, 2], device="cuda"), x.cuda(), x.to("cuda"), x.to(device="cuda"),
                x.to(torch.device("cuda"), non_blocking=True), x.to(0), torch.zeros(2, device=0)]
        assert all(t.device.type == "cpu" for t in made)
        assert mode.count == len(made)
        assert x.to(torch.float64).dtype == torch.float64 and (x + 1).device.type == "cpu"
        assert mode.count == len(made)  # what names no GPU is neither changed nor counted
    assert torch.zeros(1, device="cpu").device.type == "cpu"


def test_outside_the_mode_the_gpu_is_the_gpu():
    if torch.cuda.is_available():
        return  # nothing to show where there is one
    with CudaOnCpu():
        pass
    try:
        torch.zeros(1, device="cuda")
    except (AssertionError, RuntimeError) as exc:
        assert "CUDA" in str(exc)
    else:
        raise AssertionError("torch made a CUDA tensor without CUDA")
