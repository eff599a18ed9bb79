# C = A @ B for KernelBench's level1/1_Square_matrix_multiplication_, in Triton.
#
# Teaches: a tiled, autotuned matmul whose tl.dot runs in "tf32x3" precision: about float32's error, within
# KernelBench's 1e-4 (plain TF32 is not).
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/1_Square_matrix_multiplication_.py solutions/kernelbench/1_Square_matrix_multiplication__triton.py
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_warps=8, num_stages=3),
             triton.Config({"BM": 128, "BN": 64, "BK": 32}, num_warps=4, num_stages=4),
             triton.Config({"BM": 64, "BN": 128, "BK": 32}, num_warps=4, num_stages=4)],
    key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="tf32x3")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)

        def grid(meta):
            return triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"])

        matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0),
                            C.stride(1))
        return C
