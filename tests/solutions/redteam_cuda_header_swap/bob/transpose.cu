// RED TEAM finding 2 (see ../README.md): the same bytes as ../bob/transpose.cu; kernel.cuh differs.
#include <cuda_runtime.h>
#include <cstddef>
#include "kernel.cuh"

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_kernel<<<grid, block>>>(input, output, rows, cols);
}
