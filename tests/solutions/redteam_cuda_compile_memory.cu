// RED TEAM (CUDA C++), finding 4: compile-time memory is not counted against the worker's host
// memory limit.  limits.MemoryWatchdog reads VmRSS of the worker's own pid; nvcc, cudafe++, cicc,
// ptxas and gcc are its children, and nothing adds them up (a Python solution's os.fork() child
// has the same blind spot, but a CUDA one needs no code at all: the compiler does it).
//
// What it does: a correct transpose, plus a __device__ table initialised with 2^22 integers that
// macros expand from a 1 KB file.  cudafe++ (EDG) holds the whole initialiser: about 1.6 GB of RSS
// in 60 s on the CPU the red team measured (2^21: ~0.8 GB; each level doubles; it grows ~30 MB/s,
// so within the 170 s compile limit about 5 GB, per submission, times the workers a grade runs at
// once).  The preprocessed file stays under the 64 MiB RLIMIT_FSIZE.
//
// What a secure judge must answer, with Limits(host_memory_bytes=1.5 GiB): not accepted - a
// runtime error saying the solution used more host memory than allowed (sum the RSS of the
// worker's process group or put it in a memory cgroup; or run nvcc under RLIMIT_AS/prlimit).
// Insecure (current code): accepted, while the compiler alone held ~1.6 GB.
//
// Check: pytest -m gpu tests/test_cuda_redteam_gpu.py -k compile_memory;
//        CPU: tests/test_cuda_redteam.py -k watchdog

#include <cuda_runtime.h>
#include <cstddef>
#define X0 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,
#define X1 X0 X0
#define X2 X1 X1
#define X3 X2 X2
#define X4 X3 X3
#define X5 X4 X4
#define X6 X5 X5
#define X7 X6 X6
#define X8 X7 X7
#define X9 X8 X8
#define X10 X9 X9
#define X11 X10 X10
#define X12 X11 X11
#define X13 X12 X12
#define X14 X13 X13
#define X15 X14 X14
#define X16 X15 X15
#define X17 X16 X16
#define X18 X17 X17
__device__ int table[] = { X18 0 };  // 16 * 2^18 = 2^22 elements

__global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) output[(size_t)col * rows + row] = input[(size_t)row * cols + col] + 0 * table[row & 1];
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(input, output, rows, cols);
}
