// RED TEAM (CUDA C++), finding 1: work deferred to a native thread, after the judge's device-wide
// synchronize, is neither timed nor refused.
//
// What it does: matmul (challenges/matmul.yaml).  solve() computes only the first 1/8 of C's rows
// (the same fp32 kernel as solutions/matmul/tiled.cu) and returns; a std::thread that solve() started
// on its first call and that lives on (the judge's "threads left running" check, Session.threads_left,
// lists Python threads only) waits until the default stream is idle - that is, until the judge's
// end event has completed and its cudaDeviceSynchronize is returning - and then launches the other
// 7/8 on the legacy default stream.  The judge queues its output digest (timed_loop.outputs_digest)
// a few tens of microseconds later, on the same stream, behind that kernel: the digest sees final
// outputs, the verified calls are right, and neither the CUDA events nor the host clock (which is
// read right after the synchronize) contain the 7/8.  The physical floor does not help on a
// compute-bound case: 1/8 of an fp32 CUDA-core matmul is still far above the tensor-core floor.
//
// What a secure judge must answer: runtime_error ("solve() left ... thread(s) of its own running",
// as for a Python thread: a census of /proc/self/task before the load and after every call), or at
// the very least a time no better than the honest kernel's.
// Insecure (current code): accepted, timed at ~1/8 of solutions/matmul/tiled.cu.
//
// Seen on an NVIDIA H200 (2026-11-26, nvcc 13.0, torch 2.11) in a harness doing measured_call's steps
// (synchronize, start event, solve(), end event, torch._C._cuda_synchronize, host clock, then the
// digest's int64 sum queued on the default stream) with the same thread and a compute-heavy kernel,
// 1/8 in solve(): honest 2.095 ms by events / 2.134 ms by the host clock; the cheat 0.283 / 0.326 ms;
// the digest held the final outputs in 30 of 30 calls and the outputs were right in 30 of 30.  The
// judge queues its digest after more Python than the harness did, which only widens the thread's lead.
//
// Check: pytest -m gpu tests/test_cuda_redteam_gpu.py -k deferred_native_thread
#include <cuda_runtime.h>
#include <atomic>
#include <cstddef>
#include <thread>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);

__global__ void __launch_bounds__(THREADS)
matmul_rows(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
            int row_begin) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int row0 = row_begin + blockIdx.y * BM, col0 = blockIdx.x * BN;
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

static void launch(const float* A, const float* B, float* C, int M, int N, int K, int begin, int end) {
    if (end <= begin) return;
    dim3 grid((K + BN - 1) / BN, (end - begin + BM - 1) / BM);
    matmul_rows<<<grid, THREADS>>>(A, B, C, end, N, K, begin);  // rows [begin, end): "M" bounds the rows
}

struct Job { const float* A; const float* B; float* C; int M, N, K, begin; };
static Job job;
static std::atomic<int> pending{0};
static int device = 0;

static void deferred() {
    cudaSetDevice(device);
    for (;;) {
        while (!pending.load(std::memory_order_acquire)) std::this_thread::yield();
        // The judge records its end event right after solve() returns and then synchronizes the
        // device: once the default stream is idle, that synchronize is returning.
        while (cudaStreamQuery(0) == cudaErrorNotReady) {
        }
        launch(job.A, job.B, job.C, job.M, job.N, job.K, job.begin, job.M);
        pending.store(0, std::memory_order_release);
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    static bool started = false;
    if (!started) {
        cudaGetDevice(&device);
        std::thread(deferred).detach();
        started = true;
    }
    while (pending.load(std::memory_order_acquire)) std::this_thread::yield();  // the last call's part is queued
    int split = ((M / 8) + BM - 1) / BM * BM;  // the first 1/8 of the rows, in whole tiles
    if (split > M || M < 4 * BM) split = M;    // small cases: all now (the tests' sizes)
    launch(A, B, C, M, N, K, 0, split);
    if (split < M) {
        job = Job{A, B, C, M, N, K, split};
        pending.store(1, std::memory_order_release);
    }
}
