// A tiled fp32 matmul (the matmul challenge: A is M x N, B is N x K, C is M x K) with the second
// __syncthreads() left out: a fast warp overwrites the shared tiles with the next slice while a slow one
// still reads the last.  Its answers are often right and sometimes not, run to run (issue 39: the judge
// says the same inputs gave different results; `judge run --sanitize`'s racecheck names the two lines).
#include <cuda_runtime.h>
#include <cstddef>

constexpr int TILE = 16;

__global__ void matmul_racy(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < N) ? A[(size_t)row * N + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < N && col < K) ? B[(size_t)(k0 + threadIdx.y) * K + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        // missing: __syncthreads();
    }
    if (row < M && col < K) C[(size_t)row * K + col] = acc;
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE, TILE), grid((K + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_racy<<<grid, block>>>(A, B, C, M, N, K);
}
