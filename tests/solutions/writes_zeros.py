"""Writes zeros: what tests/leetgpu/precision/easy/2_reads_flags expects when its reference ran with every
precision switch exact (issue 39)."""
import torch


def solve(output: torch.Tensor, N: int):
    output.zero_()
