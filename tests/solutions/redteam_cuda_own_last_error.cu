// RED TEAM (CUDA C++), finding 7 (cosmetic): the launch check asks the solution's own library.
// cuda_solve.CudaSolve binds self.library.cudaGetLastError: dlsym on the solution's handle, which
// finds a cudaGetLastError the solution defines before libcudart's.  This one always answers
// cudaSuccess, so its failed launch (4096 threads a block) is not the runtime_error
// "CUDA error ... after solve() returned" that tests/solutions/transpose_cuda_bad_launch.cu gets.
// The error stays pending in the runtime, where torch may raise it later inside the judge's code.
//
// What a secure judge must answer: runtime_error, "cudaErrorInvalid... after solve() returned"
// (bind cudaGetLastError from libcudart itself - ctypes.CDLL("libcudart.so.13") or the handle
// torch loaded - never through the solution's handle; refuse a library that exports cuda* names).
// Insecure (current code): no "after solve() returned": either wrong_answer (the outputs keep their
// poison), or, since the error is still pending in the runtime, a runtime_error raised by the next
// torch launch inside the judge's own code ("CUDA error: invalid argument"), blaming torch.  The
// CPU test shows the binding directly: the judge's last_error() is the solution's function.
//
// Check: tests/test_cuda_redteam.py -k launch_check (CPU, with nvcc);
//        pytest -m gpu tests/test_cuda_redteam_gpu.py -k own_last_error
#include <cuda_runtime.h>

// cuda_runtime.h declares cudaGetLastError (host and device): an asm label gives the symbol the name.
extern "C" int redteam_no_error(void) __asm__("cudaGetLastError");
extern "C" int redteam_no_error(void) { return 0; }
extern "C" int redteam_marker(void) { return 4242; }

__global__ void transpose(const float* in, float* out, int rows, int cols) {}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    transpose<<<1, 4096>>>(input, output, rows, cols);
}
