// Correct values, but the last block writes past the output's end (no bounds check on the store).
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r = i / cols, c = i % cols;
    float v = (r < rows) ? in[(size_t)r * cols + c] : 1.0f;
    out[(size_t)c * rows + r] = v;
}
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    int n = rows * cols;
    transpose<<<(n + 255) / 256, 256>>>(input, output, rows, cols);
}
