// solve() without extern "C": its name is mangled, so the judge cannot find it.
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {}
void solve(const float* input, float* output, int rows, int cols) {
    transpose<<<1, 32>>>(input, output, rows, cols);
}
