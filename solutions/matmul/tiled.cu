// Matmul in CUDA C++ on the CUDA cores (fp32 FMA, no tensor cores): C = A B with
// A of M x N, B of N x K and C of M x K (this challenge's names).
//
// Each block computes a 128x128 tile of C from 8-wide slices of A and B held in
// shared memory; each of its 256 threads keeps an 8x8 piece of the tile in
// registers, so every value read from shared memory feeds 8 FMAs. Loads out of
// the matrices' bounds read zeros and stores out of bounds are skipped, so any
// M, N, K works. fp32 throughout: exact enough for the challenge's fp32
// tolerance, unlike TF32 tensor cores.
//
//   judge run matmul solutions/matmul/tiled.cu
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 128, BN = 128, BK = 8;  // C tile rows, C tile columns, slice depth
constexpr int TM = 8, TN = 8;              // the piece of the tile one thread computes
constexpr int THREADS = (BM / TM) * (BN / TN);

__global__ void __launch_bounds__(THREADS)
matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    __shared__ float As[BK][BM];  // the slice of A, transposed: As[k][m]
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = tid / (BN / TN), tc = tid % (BN / TN);
    float acc[TM][TN] = {};
    float a[TM], b[TN];
    for (int k0 = 0; k0 < N; k0 += BK) {
        for (int i = tid; i < BM * BK; i += THREADS) {
            int m = i / BK, k = i % BK;
            As[k][m] = (row0 + m < M && k0 + k < N) ? A[(size_t)(row0 + m) * N + k0 + k] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += THREADS) {
            int k = i / BN, n = i % BN;
            Bs[k][n] = (k0 + k < N && col0 + n < K) ? B[(size_t)(k0 + k) * K + col0 + n] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][tr * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        int row = row0 + tr * TM + i;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tc * TN + j;
            if (row < M && col < K) C[(size_t)row * K + col] = acc[i][j];
        }
    }
}

// A, B, C are device pointers
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 grid((K + BN - 1) / BN, (M + BM - 1) / BM);
    matmul_tiled<<<grid, THREADS>>>(A, B, C, M, N, K);
}
