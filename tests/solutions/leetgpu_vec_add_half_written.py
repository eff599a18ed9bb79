"""Wrong: writes only the first half of C (the rest keeps the judge's poison)."""
import torch


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
    half = (N + 1) // 2
    torch.add(A[:half], B[:half], out=C[:half])
