# ReLU for KernelBench's level1/19_ReLU, in CUDA C++ through load_inline.
#
# Teaches: load_inline in the judge's sandbox (built once per source, then loaded from the cache), float4 loads
# and stores in a grid-stride loop, a scalar kernel for the tail or an unaligned input, torch's current stream.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/19_ReLU.py solutions/kernelbench/19_ReLU_cuda.py
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cstdint>

__global__ void relu4(const float4* __restrict__ x, float4* __restrict__ out, long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.0f); v.y = fmaxf(v.y, 0.0f); v.z = fmaxf(v.z, 0.0f); v.w = fmaxf(v.w, 0.0f);
        out[i] = v;
    }
}

__global__ void relu1(const float* __restrict__ x, float* __restrict__ out, long long start, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = start + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = fmaxf(x[i], 0.0f);
    }
}

torch::Tensor relu(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "a float32 CUDA tensor");
    x = x.contiguous();
    auto out = torch::empty_like(x);
    long long n = x.numel();
    if (n == 0) return out;
    auto stream = at::cuda::getCurrentCUDAStream();
    const int threads = 256;
    bool aligned = (reinterpret_cast<std::uintptr_t>(x.data_ptr<float>()) % 16 == 0)
                && (reinterpret_cast<std::uintptr_t>(out.data_ptr<float>()) % 16 == 0);
    long long n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        long long blocks = std::min<long long>((n4 + threads - 1) / threads, 132LL * 32);
        relu4<<<(unsigned)blocks, threads, 0, stream>>>(reinterpret_cast<const float4*>(x.data_ptr<float>()),
                                                         reinterpret_cast<float4*>(out.data_ptr<float>()), n4);
    }
    long long start = n4 * 4;
    if (start < n) {
        long long blocks = std::min<long long>((n - start + threads - 1) / threads, 132LL * 32);
        relu1<<<(unsigned)blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), start, n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

_extension = load_inline(name="kb_relu", cpp_sources="torch::Tensor relu(torch::Tensor x);", cuda_sources=_source,
                         functions=["relu"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _extension.relu(x)
