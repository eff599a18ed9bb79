// RED TEAM (CUDA C++), finding 1 (the deterministic half): a native thread solve() leaves running
// is not seen.  docs/security.md says "a thread solve() leaves running is a runtime_error"
// (Session.threads_left), but that check walks threading.enumerate(): Python threads only.
//
// What it does: transpose, correctly (solutions/transpose/naive.cu), and on every call starts a
// detached std::thread that sleeps 200 ms and exits - doing nothing, so that the only question is
// whether the judge notices it.  A thread like this one can write the outputs after the call's
// synchronize (redteam_cuda_deferred_native_thread.cu does).
//
// What a secure judge must answer: runtime_error, "solve() left 1 thread(s) of its own running"
// (count the tasks in /proc/self/task before the solution loads and after every call).
// Insecure (current code): accepted.
//
// Check: pytest -m gpu tests/test_cuda_redteam_gpu.py -k native_thread_left
#include <cuda_runtime.h>
#include <chrono>
#include <cstddef>
#include <thread>

__global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) output[(size_t)col * rows + row] = input[(size_t)row * cols + col];
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(input, output, rows, cols);
    std::thread([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }).detach();
}
