// Writes through a wild pointer: an illegal memory access, which CUDA reports asynchronously.
#include <cuda_runtime.h>
__global__ void wild(float* out) {
    float* p = (float*)0x10;
    p[threadIdx.x] = out[0];
}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    wild<<<1, 32>>>(output);
}
