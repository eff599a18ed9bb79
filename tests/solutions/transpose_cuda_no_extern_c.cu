// solve() without extern "C", as LeetGPU's older starters were written: C++ linkage, a mangled name
// (_Z5solvePKfPfii). The judge finds the one global solve and calls it: accepted.
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    transpose<<<grid, block>>>(input, output, rows, cols);
}
