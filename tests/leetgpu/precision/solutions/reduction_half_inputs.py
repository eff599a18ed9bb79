"""A reduction that reads its inputs in half precision (a precision downgrade): its error is of a larger order
than float32's rounding on the inputs, and stays rejected."""
import torch


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    output[:] = torch.sum(input.half().float())
