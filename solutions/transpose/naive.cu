// Transpose in CUDA C++, the simplest correct kernel: one thread per element.
//
// Reads are coalesced (neighbouring threads read neighbouring columns of a row),
// writes are not: neighbouring threads write addresses `rows` floats apart, so
// each warp's store touches 32 different memory segments. tiled.cu fixes that.
//
//   judge run transpose solutions/transpose/naive.cu
#include <cuda_runtime.h>
#include <cstddef>

__global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        output[(size_t)col * rows + row] = input[(size_t)row * cols + col];
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(input, output, rows, cols);
}
