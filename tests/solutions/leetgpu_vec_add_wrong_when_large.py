"""Wrong only at the performance test's size: passes the functional tests, fails while timed."""
import torch


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
    torch.add(A, B, out=C)
    if N > 1_000_000:
        C[-1] = 0.0
