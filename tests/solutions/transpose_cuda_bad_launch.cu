// Asks for 4096 threads per block (the limit is 1024): the kernel never runs, and only
// cudaGetLastError says so.
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    transpose<<<1, 4096>>>(input, output, rows, cols);
}
