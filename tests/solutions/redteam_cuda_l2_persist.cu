// RED TEAM (CUDA C++), finding 4: the judge flushes the L2 before every timed call (a 256 MiB
// write, timer/cover.py), but lines a solution marked *persisting* survive normal traffic, so a
// memory-bound solution times warm-cache reads.
//
// What it does: copy (challenges/copy.yaml), the float4 kernel of solutions/copy/vectorized.cu,
// launched with cudaLaunchKernelEx and an access-policy window over the input `a` (hitProp =
// persisting) after raising cudaLimitPersistingL2CacheSize to the device's maximum.  The judge
// draws each call's inputs into the same guarded buffer (Arena.again), so the lines stay resident
// and persisting through its flush; the next call's reads hit the L2.  The physical floor checks
// bytes "less the L2", so a case whose input fits the set-aside (up to ~3/4 of the L2) has no floor.
//
// What a secure judge must answer: a time no better than vectorized.cu's on the same case (the
// guard calls cudaCtxResetPersistingL2Cache / sets the persisting limit back to 0 before its flush,
// or the worker refuses a changed cudaLimitPersistingL2CacheSize after a call).
// Insecure (current code, if the hardware keeps the lines as documented): accepted, faster than
// vectorized.cu on a 2048x2048 (16 MiB) case.
//
// Check: pytest -m gpu tests/test_cuda_redteam_gpu.py -k l2_persist
#include <cuda_runtime.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>

__global__ void copy_float4(const float4* __restrict__ a, float4* __restrict__ b, size_t n4) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n4; i += stride) b[i] = a[i];
}

__global__ void copy_scalar(const float* __restrict__ a, float* __restrict__ b, size_t start, size_t n) {
    size_t i = start + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}

extern "C" void solve(const float* a, float* b, int N) {
    static size_t setaside = 0, max_window = 0;
    static int sms = 0;
    if (!sms) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, device);
        setaside = prop.persistingL2CacheMaxSize;
        max_window = prop.accessPolicyMaxWindowSize;
        sms = prop.multiProcessorCount;
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, setaside);
    }
    size_t n = (size_t)N * N, bytes = n * sizeof(float);
    bool aligned = ((uintptr_t)a % 16 == 0) && ((uintptr_t)b % 16 == 0);
    size_t n4 = aligned ? n / 4 : 0;
    if (n4) {
        cudaLaunchAttribute attribute[1];
        attribute[0].id = cudaLaunchAttributeAccessPolicyWindow;
        attribute[0].val.accessPolicyWindow.base_ptr = (void*)a;
        attribute[0].val.accessPolicyWindow.num_bytes = std::min(bytes, max_window);
        attribute[0].val.accessPolicyWindow.hitRatio =
            std::min(1.0f, (float)setaside / (float)std::max<size_t>(1, std::min(bytes, max_window)));
        attribute[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attribute[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3((unsigned)std::min<size_t>((n4 + 255) / 256, (size_t)sms * 16));
        config.blockDim = dim3(256);
        config.stream = 0;
        config.attrs = attribute;
        config.numAttrs = 1;
        cudaLaunchKernelEx(&config, copy_float4, reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b), n4);
    }
    size_t rest = n - 4 * n4;
    if (rest) copy_scalar<<<(unsigned)((rest + 255) / 256), 256>>>(a, b, 4 * n4, n);
}
