// bob's kernel: writes nothing (a wrong answer), yet bob is judged with alice's library.
__global__ void transpose_kernel(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {}
