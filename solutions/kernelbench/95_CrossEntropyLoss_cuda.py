# Cross entropy for KernelBench's level1/95_CrossEntropyLoss, in CUDA C++ through load_inline.
#
# Teaches: a block a row, each thread's running log-sum-exp merged in shared memory.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/95_CrossEntropyLoss.py solutions/kernelbench/95_CrossEntropyLoss_cuda.py
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cfloat>

constexpr int THREADS = 256;

__global__ void row_loss(const float* __restrict__ x, const int64_t* __restrict__ target, float* __restrict__ loss,
                         int C) {
    const float* row = x + (long long)blockIdx.x * C;
    float m = -FLT_MAX, s = 0.0f;
    for (int c = threadIdx.x; c < C; c += THREADS) {
        float v = row[c];
        if (v > m) { s = s * __expf(m - v) + 1.0f; m = v; } else { s += __expf(v - m); }
    }
    __shared__ float sm[THREADS], ss[THREADS];
    sm[threadIdx.x] = m;
    ss[threadIdx.x] = s;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float m1 = sm[threadIdx.x], m2 = sm[threadIdx.x + half];
            float mm = fmaxf(m1, m2);
            ss[threadIdx.x] = ss[threadIdx.x] * __expf(m1 - mm) + ss[threadIdx.x + half] * __expf(m2 - mm);
            sm[threadIdx.x] = mm;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) loss[blockIdx.x] = sm[0] + logf(ss[0]) - row[target[blockIdx.x]];
}

torch::Tensor cross_entropy(torch::Tensor x, torch::Tensor target) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && target.scalar_type() == torch::kInt64);
    x = x.contiguous();
    target = target.contiguous();
    int rows = x.size(0), C = x.size(1);
    auto loss = torch::empty({rows}, x.options());
    row_loss<<<rows, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), target.data_ptr<int64_t>(),
                                                                     loss.data_ptr<float>(), C);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return loss.mean();
}
"""

_extension = load_inline(name="kb_cross_entropy",
                         cpp_sources="torch::Tensor cross_entropy(torch::Tensor x, torch::Tensor target);",
                         cuda_sources=_source, functions=["cross_entropy"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return _extension.cross_entropy(predictions, targets)
