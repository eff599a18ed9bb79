"""The third-party answer of issue 45 for LeetGPU's medium/4_reduction: torch's own float32 sum."""
import torch


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    output[:] = torch.sum(input)
