# Simulates TF32 products (inputs rounded to 10 mantissa bits, fp32 accumulation):
# about three decimal digits less accurate than fp32; the judge must reject it.
import torch


def _tf32(x):
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def solve(A, B, C, M, N, K):
    torch.matmul(_tf32(A), _tf32(B), out=C)
