// RED TEAM (CUDA C++), finding 5: nvcc's diagnostics reach the report uncut in width.
// nvcc.user_diagnostics keeps at most 60 lines but any number of characters a line, and the worker
// captures all of nvcc's output in memory.  A Python solution's error message is cut to ~4000
// characters (loader.format_error); this 1 KB file makes a compile_error message of ~8.5 MB (one
// static_assert whose message is a string literal that macros double 17 times).  It lands in the
// terminal, the --json report, JUnit and a CI summary, for every such submission of a grade; with
// two such lines the worker's reply passes protocol.MAX_HEADER (16 MiB) and the verdict becomes a
// "malformed reply" runtime_error instead.  A 2 MB source of lines that warn or fail does the same
// without any macro.
//
// What a secure judge must answer: compile_error whose message is short (each line cut, the
// whole message bounded like a Python error's: a few KB, "... (N more characters)").
// Insecure (current code): compile_error with a message of about 8.5 million characters.
//
// Check: tests/test_cuda_redteam.py -k 'diagnostics or kilobyte' (CPU; the second needs nvcc);
//        pytest -m gpu tests/test_cuda_redteam_gpu.py -k diagnostic_flood

#define S0 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define S1 S0 S0
#define S2 S1 S1
#define S3 S2 S2
#define S4 S3 S3
#define S5 S4 S4
#define S6 S5 S5
#define S7 S6 S6
#define S8 S7 S7
#define S9 S8 S8
#define S10 S9 S9
#define S11 S10 S10
#define S12 S11 S11
#define S13 S12 S12
#define S14 S13 S13
#define S15 S14 S14
#define S16 S15 S15
#define S17 S16 S16
static_assert(sizeof(int) == 3, S16);
extern "C" void solve(const float* input, float* output, int rows, int cols) {}
