# Plain torch matmul in fp32 (cuBLAS on the GPU): must pass the tolerance at every size.
import torch


def solve(A, B, C, M, N, K):
    torch.matmul(A, B, out=C)
