"""Stand-in LeetGPU matmul with TF32's precision, as tl.dot's default gives on a GPU (simulated, since the
interpreter ignores input_precision): operands truncated to 10 mantissa bits, fp32 accumulation."""
import torch


def _tf32(x):
    return (x.contiguous().view(torch.int32) & ~0x1FFF).view(torch.float32)


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    torch.matmul(_tf32(A), _tf32(B), out=C)
