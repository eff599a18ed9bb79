#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + undefined_name;
}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    transpose<<<1, 32>>>(input, output, rows, cols);
}
