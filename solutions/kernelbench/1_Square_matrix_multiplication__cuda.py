# C = A @ B for KernelBench's level1/1_Square_matrix_multiplication_, in CUDA C++ through load_inline.
#
# Teaches: the classic shared-memory tiled SGEMM (32 x 32 tiles, one output a thread): correct, and far from
# cuBLAS; an honest baseline to beat.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/1_Square_matrix_multiplication_.py solutions/kernelbench/1_Square_matrix_multiplication__cuda.py
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

constexpr int TILE = 32;

__global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                      int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[(long long)row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(long long)(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
}

torch::Tensor matmul(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda() && A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32);
    A = A.contiguous();
    B = B.contiguous();
    int M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    dim3 threads(TILE, TILE);
    dim3 blocks((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                                                     C.data_ptr<float>(), M, N, K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return C;
}
"""

_extension = load_inline(name="kb_sgemm", cpp_sources="torch::Tensor matmul(torch::Tensor A, torch::Tensor B);",
                         cuda_sources=_source, functions=["matmul"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return _extension.matmul(A, B)
