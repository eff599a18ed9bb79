// A plain fp32 2-D convolution (valid cross-correlation, F.conv2d's), one thread per output element, for
// LeetGPU's medium/10_2d_convolution and tests/leetgpu/precision/medium/3_conv2d: exact in fp32.  Under
// torch's defaults cuDNN computed the reference in TF32 and this kernel was rejected (issue 39).
#include <cuda_runtime.h>

__global__ void conv2d(const float* input, const float* kernel, float* output, int rows, int cols, int krows, int kcols) {
    int out_cols = cols - kcols + 1, out_rows = rows - krows + 1;
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= out_rows || c >= out_cols) return;
    float acc = 0.0f;
    for (int i = 0; i < krows; ++i)
        for (int j = 0; j < kcols; ++j) acc += input[(r + i) * cols + c + j] * kernel[i * kcols + j];
    output[r * out_cols + c] = acc;
}

extern "C" void solve(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                      int kernel_rows, int kernel_cols) {
    dim3 block(16, 16);
    dim3 grid((input_cols - kernel_cols + 16) / 16, (input_rows - kernel_rows + 16) / 16);
    conv2d<<<grid, block>>>(input, kernel, output, input_rows, input_cols, kernel_rows, kernel_cols);
}
