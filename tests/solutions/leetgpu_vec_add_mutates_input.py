"""Wrong: right output, but it scribbles on its input A."""
import torch


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
    torch.add(A, B, out=C)
    A.zero_()
