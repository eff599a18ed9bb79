# The tanh GELU of KernelBench's level1/88_MinGPTNewGelu, in CUDA C++ through load_inline.
#
# Teaches: the same chain in one CUDA kernel (tanhf), a grid-stride loop.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/88_MinGPTNewGelu.py solutions/kernelbench/88_MinGPTNewGelu_cuda.py
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void gelu(const float* __restrict__ x, float* __restrict__ out, long long n) {
    const float c = 0.7978845608028654f;  // sqrt(2 / pi)
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
    }
}

torch::Tensor new_gelu(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32);
    x = x.contiguous();
    auto out = torch::empty_like(x);
    long long n = x.numel();
    if (n == 0) return out;
    const int threads = 256;
    long long blocks = std::min<long long>((n + threads - 1) / threads, 132LL * 32);
    gelu<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

_extension = load_inline(name="kb_new_gelu", cpp_sources="torch::Tensor new_gelu(torch::Tensor x);",
                         cuda_sources=_source, functions=["new_gelu"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _extension.new_gelu(x)
