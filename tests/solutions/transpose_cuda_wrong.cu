// Writes the input's layout unchanged (a copy, not a transpose): wrong for any non-square case.
#include <cuda_runtime.h>
__global__ void copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    int n = rows * cols;
    copy<<<(n + 255) / 256, 256>>>(input, output, n);
}
