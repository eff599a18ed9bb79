// Transpose in CUDA C++ through shared memory: both reads and writes coalesced.
//
// A block of 32x8 threads moves a 32x32 tile: it reads the tile's rows from the
// input (coalesced), and writes the tile's columns as rows of the output
// (coalesced again), swapping the indices in shared memory. The tile is 33
// floats wide so that reading a column of it hits 32 different banks.
//
//   judge run transpose solutions/transpose/tiled.cu
#include <cuda_runtime.h>
#include <cstddef>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_tiled(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (col < cols && row + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = input[(size_t)(row + j) * cols + col];
        }
    }
    __syncthreads();
    // The output tile: its rows are the input tile's columns.
    int out_col = blockIdx.y * TILE + threadIdx.x;  // an input row
    int out_row = blockIdx.x * TILE + threadIdx.y;  // an input column
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (out_col < rows && out_row + j < cols) {
            output[(size_t)(out_row + j) * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(TILE, BLOCK_ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled<<<grid, block>>>(input, output, rows, cols);
}
