// Copy in CUDA C++: 16-byte loads and stores (float4), one per thread.
//
// A memory-bound kernel is as fast as the bytes it moves per instruction: a
// float4 access moves four floats in one instruction. The pointers must be
// 16-byte aligned for that, which the judge's tensors are; the scalar kernel
// covers any other pointer and the last N*N % 4 elements.
//
//   judge run copy solutions/copy/vectorized.cu
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

__global__ void copy_float4(const float4* __restrict__ a, float4* __restrict__ b, size_t n4) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        b[i] = a[i];
    }
}

__global__ void copy_scalar(const float* __restrict__ a, float* __restrict__ b, size_t start, size_t n) {
    size_t i = start + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = a[i];
    }
}

// a, b are device pointers
extern "C" void solve(const float* a, float* b, int N) {
    const int threads = 256;
    size_t n = (size_t)N * N;
    bool aligned = ((uintptr_t)a % 16 == 0) && ((uintptr_t)b % 16 == 0);
    size_t n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        copy_float4<<<(unsigned)((n4 + threads - 1) / threads), threads>>>(
            reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b), n4);
    }
    size_t rest = n - 4 * n4;
    if (rest > 0) {
        copy_scalar<<<(unsigned)((rest + threads - 1) / threads), threads>>>(a, b, 4 * n4, n);
    }
}
