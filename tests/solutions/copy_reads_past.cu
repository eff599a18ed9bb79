// A copy (the copy challenge: b = a, N x N) whose last thread reads one element past the end of `a`: the
// value read is never used, so the answer is right, but the read is out of bounds (issue 39:
// `judge run --sanitize`'s memcheck names the line).
#include <cuda_runtime.h>

__global__ void copy_reads_past(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float next = a[i + 1];  // one past the end for i == n - 1
        b[i] = (i + 1 < n) ? a[i] : a[i] + 0.0f * next;
    }
}

extern "C" void solve(const float* a, float* b, int N) {
    int n = N * N;
    copy_reads_past<<<(n + 255) / 256, 256>>>(a, b, n);
}
