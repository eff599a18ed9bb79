// Two overloads of solve(), neither extern "C": the judge cannot tell which one is meant.
#include <cuda_runtime.h>
void solve(const float* input, float* output, int rows, int cols) {}
void solve(const double* input, double* output, int rows, int cols) {}
