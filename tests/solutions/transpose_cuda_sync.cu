// The tiled transpose with LeetGPU's starter habit: cudaDeviceSynchronize() at the end of solve().
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose_tiled(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    __shared__ float tile[32][33];
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (col < cols && row + j < rows) tile[threadIdx.y + j][threadIdx.x] = input[(size_t)(row + j) * cols + col];
    __syncthreads();
    int oc = blockIdx.y * 32 + threadIdx.x, orow = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (oc < rows && orow + j < cols) output[(size_t)(orow + j) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8), grid((cols + 31) / 32, (rows + 31) / 32);
    transpose_tiled<<<grid, block>>>(input, output, rows, cols);
    cudaDeviceSynchronize();
}
