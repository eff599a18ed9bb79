# fp32 with the worst common summation order (one long sequential sum per
# element): less accurate than blocked sums, still fp32 - must pass.
import torch


def solve(A, B, C, M, N, K):
    acc = torch.zeros(M, K, dtype=torch.float32, device=A.device)
    for n in range(N):
        acc += A[:, n:n + 1] * B[n:n + 1, :]
    C.copy_(acc)
