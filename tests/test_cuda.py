"""CUDA C++ solutions, what needs no GPU: the C signature of a challenge, nvcc's command lines and
cache key, the dependency file, diagnostics cut to the user's file, the build cache (with a fake
nvcc that writes what the real one would), the languages the judge refuses, and the errors a user
meets in CPU mode or without nvcc.  Compiling and judging on a GPU: tests/test_cuda_gpu.py."""

from __future__ import annotations

import ctypes
import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.base.languages import is_cuda_source, unsupported_language
from judge.base.solution_file import SolutionFileError, check_solution_file
from judge.challenge import c_signature
from judge.challenge.leetgpu_format import map_signature
from judge.challenge.spec import load_spec
from judge.challenge.spec_model import Scalar
from judge.cli import main
from judge.grading.submissions import discover
from judge.worker import cuda_build, nvcc

from conftest import ROOT

TRANSPOSE = load_spec(str(ROOT / "challenges" / "transpose.yaml"))
MATMUL = load_spec(str(ROOT / "challenges" / "matmul.yaml"))


# -- the C signature -----------------------------------------------------------------------
def test_a_yaml_specs_tensors_are_pointers_and_its_scalars_c_int():
    assert c_signature.argument_types(TRANSPOSE.parameters) == ["pointer", "pointer", "c_int", "c_int"]
    assert c_signature.prototype(TRANSPOSE.parameters) == \
        'extern "C" void solve(const float* input, float* output, int rows, int cols)'
    assert c_signature.prototype(MATMUL.parameters).startswith('extern "C" void solve(const float* A, const float* B')


def test_a_leetgpu_signature_keeps_its_ctypes_scalar_types():
    """LeetGPU's vector add gives N as c_size_t (ctypes' alias of c_ulong): the C call must pass a 64-bit
    integer, and a c_float factor a float (a double in its place would be read as garbage)."""
    signature = {"x": (ctypes.POINTER(ctypes.c_float), "in"), "y": (ctypes.POINTER(ctypes.c_float), "out"),
                 "N": (ctypes.c_size_t, "in"), "alpha": (ctypes.c_float, "in"), "beta": (ctypes.c_double, "in")}
    parameters = map_signature(signature, {"x": "float32", "y": "float32"})
    assert c_signature.argument_types(parameters) == ["pointer", "pointer", "c_ulong", "c_float", "c_double"]
    assert c_signature.prototype(parameters) == \
        'extern "C" void solve(const float* x, float* y, unsigned long N, float alpha, double beta)'


def test_a_scalar_c_cannot_take_is_named():
    with pytest.raises(c_signature.UnsupportedCType, match="'n'"):
        c_signature.argument_types([Scalar("n", "int", "N", "c_wchar")])


def test_an_int_that_does_not_fit_a_c_int_is_caught():
    assert c_signature.fits("c_int", 2**31 - 1) and not c_signature.fits("c_int", 2**31)
    assert c_signature.fits("c_size_t", 2**40)


# -- nvcc's command lines, the key, dependencies, diagnostics --------------------------------
def test_code_is_built_for_the_gpu_it_runs_on():
    assert nvcc.arch_flags((9, 0)) == ["-gencode=arch=compute_90a,code=sm_90a"]  # H100/H200: wgmma allowed
    assert nvcc.arch_flags((8, 9)) == ["-gencode=arch=compute_89,code=sm_89"]
    command = nvcc.compile_command("/cuda/bin/nvcc", "s.cu", "s.o", "s.d", (9, 0), ["/home/me/sol"], ["-DX"])
    assert command[0] == "/cuda/bin/nvcc" and "-I/home/me/sol" in command and "-DX" in command
    assert command[-4:] == ["-c", "s.cu", "-o", "s.o"] and command[command.index("-MF") + 1] == "s.d"
    link = nvcc.link_command("/cuda/bin/nvcc", "s.o", "s.so", (9, 0), "/cuda/lib64", [])
    assert "-shared" in link and link[link.index("-cudart") + 1] == "shared" and "-rpath,/cuda/lib64" in link


@pytest.mark.parametrize("change", ["source", "compiler", "architecture", "flags"])
def test_the_cache_key_changes_with_everything_that_decides_the_build(change):
    base = dict(source=b"code", nvcc_identity="/nvcc:1:2", capability=(9, 0), extra=[])
    changed = dict(base, **{"source": {"source": b"code2"}, "compiler": {"nvcc_identity": "/nvcc:1:3"},
                            "architecture": {"capability": (10, 0)}, "flags": {"extra": ["-DFAST"]}}[change])
    assert nvcc.cache_key(**base) == nvcc.cache_key(**dict(base))
    assert nvcc.cache_key(**base) != nvcc.cache_key(**changed)


def test_the_dependency_file_is_read_with_continuations_and_escaped_spaces():
    text = "solution.o : /b/solution.cu /home/me/my\\ dir/helper.cuh \\\n /usr/local/cuda/include/cuda.h\n"
    deps = nvcc.parse_dependencies(text)
    assert deps == ["/b/solution.cu", "/home/me/my dir/helper.cuh", "/usr/local/cuda/include/cuda.h"]
    assert nvcc.local_dependencies(deps, "/b/solution.cu", ["/usr/local/cuda", "/usr"]) == ["/home/me/my dir/helper.cuh"]


def test_diagnostics_show_the_users_file_by_name_and_drop_the_toolkits_noise():
    output = textwrap.dedent("""\
        /tmp/j/.build-1/mine.cu(4): error: identifier "undefined_name" is undefined
              out[i] = in[i] + undefined_name;
                               ^

        /usr/local/cuda/include/crt/host_defines.h(9): warning: something about the toolkit

        /home/me/sol/helper.cuh(2): error: expected a ";"

        2 errors detected in the compilation of "/tmp/j/.build-1/mine.cu".
        """)
    shown = nvcc.user_diagnostics(output, "/tmp/j/.build-1/mine.cu", "mine.cu", "/tmp/j/.build-1", "/home/me/sol")
    assert shown.splitlines()[0] == 'mine.cu(4): error: identifier "undefined_name" is undefined'
    assert "helper.cuh(2): error" in shown and "/tmp/j" not in shown and "host_defines" not in shown
    assert shown.endswith('2 errors detected in the compilation of "mine.cu".')


def test_long_diagnostics_are_cut():
    output = "\n".join(f"mine.cu({i}): error: bad" for i in range(500))
    shown = nvcc.user_diagnostics(output, "mine.cu", "mine.cu", "", "")
    assert len(shown.splitlines()) == nvcc.MAX_DIAGNOSTIC_LINES + 1 and shown.endswith("(440 more lines)")


# -- the build and its cache, with a fake nvcc -----------------------------------------------
FAKE_NVCC = textwrap.dedent("""\
    #!{python}
    # A stand-in for nvcc: compiles nothing, but fails, sleeps and lists local headers as nvcc would.
    import os, re, sys, time
    args = sys.argv[1:]
    with open(os.environ["FAKE_NVCC_LOG"], "a") as log:
        log.write(" ".join(args) + "\\n")
    out = args[args.index("-o") + 1]
    if "-c" in args:
        source = args[args.index("-c") + 1]
        text = open(source).read()
        if "SLEEP" in text:
            time.sleep(30)
        if "BROKEN" in text:
            sys.stderr.write(source + '(3): error: identifier "BROKEN" is undefined\\n\\n'
                             '1 error detected in the compilation of "' + source + '".\\n')
            sys.exit(2)
        includes = [a[2:] for a in args if a.startswith("-I")]
        headers = [os.path.join(d, name) for name in re.findall(r'#include "([^"]+)"', text) for d in includes
                   if os.path.exists(os.path.join(d, name))]
        open(args[args.index("-MF") + 1], "w").write(out + ": " + source + " " + " ".join(headers) +
                                                     " /usr/include/stdio.h\\n")
    open(out, "w").write("built")
    """)


@pytest.fixture
def fake_nvcc(tmp_path, monkeypatch):
    root = tmp_path / "cuda"
    (root / "bin").mkdir(parents=True)
    (root / "lib64").mkdir()
    (root / "include").mkdir()
    (root / "include" / "cuda_runtime.h").write_text("// a stand-in toolkit\n")
    path = root / "bin" / "nvcc"
    path.write_text(FAKE_NVCC.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "nvcc.log"
    log.write_text("")
    monkeypatch.setenv("FAKE_NVCC_LOG", str(log))
    return str(path), log


def _solution(folder: Path, text: str, name: str = "mine.cu") -> str:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return str(folder / name)


def test_a_second_build_of_the_same_source_comes_from_the_cache(tmp_path, fake_nvcc):
    tool, log = fake_nvcc
    source = _solution(tmp_path / "sol", 'extern "C" void solve() {}\n')
    first = cuda_build.build(source, tool, (9, 0), str(tmp_path / "cache"), [], 60)
    second = cuda_build.build(source, tool, (9, 0), str(tmp_path / "cache"), [], 60)
    assert not first.cached and second.cached and first.library == second.library
    assert Path(first.library).read_text() == "built" and first.arch == "sm_90a"
    assert len(log.read_text().splitlines()) == 2  # one compile, one link: nothing for the cached one
    other_gpu = cuda_build.build(source, tool, (10, 0), str(tmp_path / "cache"), [], 60)
    assert not other_gpu.cached and other_gpu.arch == "sm_100a"


def test_an_edited_local_header_builds_again_and_the_old_build_is_kept(tmp_path, fake_nvcc):
    tool, _ = fake_nvcc
    folder = tmp_path / "sol"
    source = _solution(folder, '#include "helper.cuh"\nextern "C" void solve() {}\n')
    (folder / "helper.cuh").write_text("#define TILE 32\n")
    cache = str(tmp_path / "cache")
    first = cuda_build.build(source, tool, (9, 0), cache, [], 60)
    (folder / "helper.cuh").write_text("#define TILE 64\n")
    second = cuda_build.build(source, tool, (9, 0), cache, [], 60)
    assert not second.cached and second.library != first.library
    (folder / "helper.cuh").write_text("#define TILE 32\n")
    assert cuda_build.build(source, tool, (9, 0), cache, [], 60).library == first.library  # back: cached


def test_what_is_built_is_the_source_as_read_not_the_file_later(tmp_path, fake_nvcc):
    """The build compiles a copy of the bytes it hashed: an edit during the build cannot land in a
    library cached under the old source's key."""
    tool, log = fake_nvcc
    source = _solution(tmp_path / "sol", 'extern "C" void solve() {}\n')
    cuda_build.build(source, tool, (9, 0), str(tmp_path / "cache"), [], 60)
    compiled = log.read_text().splitlines()[0].split()
    assert compiled[compiled.index("-c") + 1] != source and compiled[compiled.index("-c") + 1].endswith("mine.cu")


def test_a_compile_error_is_cut_to_the_users_file_and_leaves_nothing_in_the_cache(tmp_path, fake_nvcc):
    tool, _ = fake_nvcc
    source = _solution(tmp_path / "sol", "int x;\n\nBROKEN\n")
    cache = tmp_path / "cache"
    with pytest.raises(cuda_build.CompileFailed) as failed:
        cuda_build.build(source, tool, (9, 0), str(cache), [], 60)
    assert str(failed.value) == ('mine.cu(3): error: identifier "BROKEN" is undefined\n'
                                 '1 error detected in the compilation of "mine.cu".')
    assert not list(cache.rglob("*.so")) and not [p for p in cache.rglob(".build-*")]


def test_a_build_that_takes_too_long_is_stopped(tmp_path, fake_nvcc):
    tool, _ = fake_nvcc
    source = _solution(tmp_path / "sol", "SLEEP\n")
    with pytest.raises(cuda_build.CompileFailed, match="did not finish within 1 s"):
        cuda_build.build(source, tool, (9, 0), str(tmp_path / "cache"), [], 1)


def test_nvcc_is_found_through_cuda_home_then_path(tmp_path, fake_nvcc):
    tool, _ = fake_nvcc
    home = str(Path(tool).parent.parent)
    assert cuda_build.find_nvcc({"CUDA_HOME": home, "PATH": ""}) == os.path.realpath(tool)
    assert cuda_build.find_nvcc({"PATH": str(Path(tool).parent)}) == os.path.realpath(tool)
    assert cuda_build.toolkit_root(tool) == os.path.realpath(home)


def test_without_nvcc_the_message_says_what_to_install(monkeypatch):
    monkeypatch.setattr(cuda_build, "find_nvcc", lambda environ=None: None)
    problem = cuda_build.cuda_unavailable(cpu_mode=False)
    assert "nvcc, which is not on this machine" in problem and "install the CUDA toolkit" in problem
    assert "CPU mode" in cuda_build.cuda_unavailable(cpu_mode=True)


def test_the_worker_settings_carry_the_c_types_and_refuse_cpu_mode(tmp_path, fake_nvcc, monkeypatch):
    tool, _ = fake_nvcc
    monkeypatch.setenv("CUDA_HOME", str(Path(tool).parent.parent))
    monkeypatch.setenv(cuda_build.FLAGS_ENV, "-DFAST --use_fast_math")
    settings = cuda_build.cuda_settings(TRANSPOSE, False, str(tmp_path), 60)
    assert settings["argtypes"] == ["pointer", "pointer", "c_int", "c_int"]
    assert settings["flags"] == ["-DFAST", "--use_fast_math"] and settings["nvcc"] == os.path.realpath(tool)
    with pytest.raises(cuda_build.CudaUnavailable, match="CPU mode"):
        cuda_build.cuda_settings(TRANSPOSE, True, str(tmp_path), 60)


# -- languages ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name, text, language", [
    ("starter.jax.py", "import jax\nimport jax.numpy as jnp\n", "JAX"),
    ("starter.cute.py", "import cutlass\nimport cutlass.cute as cute\n", "CuTe DSL"),
    ("mine.py", "from cutlass.cute.runtime import from_dlpack\n", "CuTe DSL"),
    ("starter.mojo", "fn solve(): pass\n", "Mojo"),
])
def test_languages_the_judge_cannot_run_yet_are_named_with_what_it_can(tmp_path, name, text, language):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SolutionFileError) as refused:
        check_solution_file(str(path))
    assert language in str(refused.value) and "not supported yet" in str(refused.value)
    assert "CUDA C++ (.cu)" in str(refused.value) and "Triton and PyTorch (.py)" in str(refused.value)


def test_triton_pytorch_and_cuda_files_are_accepted(tmp_path):
    for name, text in (("a.py", "import torch\nimport triton\n"), ("b.cu", "#include <cuda_runtime.h>\n"),
                       ("c.py", "def solve(:\n")):  # a syntax error is the worker's to report, with its line
        (tmp_path / name).write_text(text)
        assert check_solution_file(str(tmp_path / name))
    assert is_cuda_source("x.cu") and not is_cuda_source("x.py") and unsupported_language("x.cu", "") is None


def test_a_grade_folder_finds_cuda_submissions(tmp_path):
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "transpose.cu").write_text("//\n")
    (tmp_path / "ada" / "copy.py").write_text("#\n")
    (tmp_path / "ada" / "notes.txt").write_text("\n")
    found, _, _ = discover(tmp_path)
    assert [(who, challenge) for who, challenge, _ in found] == [("ada", "copy"), ("ada", "transpose")]


# -- the CLI ----------------------------------------------------------------------------------
def test_run_of_a_cu_file_in_cpu_mode_is_a_usage_error_that_says_why(tmp_path):
    solution = tmp_path / "mine.cu"
    solution.write_text((ROOT / "solutions" / "transpose" / "tiled.cu").read_text())
    result = CliRunner().invoke(main, ["run", "transpose", str(solution), "--interpret"])
    assert result.exit_code == 2, result.output
    assert "CUDA C++ solutions (.cu) run on an NVIDIA GPU" in result.output and "CPU mode" in result.output
    rank = CliRunner().invoke(main, ["rank", "transpose", str(solution), str(ROOT / "solutions/transpose/tiled.py"),
                                     "--interpret"])
    assert rank.exit_code == 2 and "NVIDIA GPU" in rank.output


def test_grade_gives_a_cu_submission_in_cpu_mode_its_own_verdict_and_grades_the_rest(tmp_path):
    (tmp_path / "ada").mkdir()
    (tmp_path / "bob").mkdir()
    (tmp_path / "ada" / "transpose.cu").write_text((ROOT / "solutions" / "transpose" / "naive.cu").read_text())
    (tmp_path / "bob" / "transpose.py").write_text((ROOT / "tests" / "solutions" / "transpose_ok.py").read_text())
    report = tmp_path / "grade.json"
    result = CliRunner().invoke(main, ["grade", "--dir", str(tmp_path), "--interpret", "--json", str(report)])
    assert result.exit_code == 1, result.output
    doc = json.loads(report.read_text())
    verdicts = {r["submission"]: r for r in doc["results"]}
    assert verdicts["bob"]["verdict"] == "accepted"
    assert verdicts["ada"]["verdict"] == "invalid_submission" and "NVIDIA GPU" in verdicts["ada"]["message"]


def test_init_writes_a_cuda_starter_with_the_c_signature(tmp_path):
    target = tmp_path / "mine.cu"
    result = CliRunner().invoke(main, ["init", "transpose", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text()
    assert 'extern "C" void solve(const float* input, float* output, int rows, int cols)' in text
    assert "size_t n = (size_t)cols * (size_t)rows;" in text and "kernel<<<blocks, threads>>>" in text
    wrong = CliRunner().invoke(main, ["init", "transpose", str(tmp_path / "x.py"), "--lang", "cuda"])
    assert wrong.exit_code == 2 and "must be a .cu file" in wrong.output


def test_init_of_a_leetgpu_folder_copies_its_own_cuda_starter(tmp_path):
    folder = ROOT / "tests" / "leetgpu" / "challenges" / "easy" / "1_vec_add"
    if not (folder / "starter" / "starter.cu").is_file():
        pytest.skip("the fake folder ships no starter.cu")
    target = tmp_path / "mine.cu"
    assert CliRunner().invoke(main, ["init", str(folder), str(target)]).exit_code == 0
    assert target.read_text() == (folder / "starter" / "starter.cu").read_text()


def test_show_gives_the_cuda_declaration():
    result = CliRunner().invoke(main, ["show", "transpose"])
    assert result.exit_code == 0, result.output
    assert 'in CUDA C++: extern "C" void solve(const float* input, float* output, int rows, int cols)' in result.output


NVCC = cuda_build.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None or cuda_build.toolkit_root(NVCC) is None,
                                reason="needs nvcc (no GPU: it compiles and links without one)")


@needs_nvcc
@pytest.mark.parametrize("fixture, found", [("transpose_cuda_no_extern_c.cu", ["_Z5solvePKfPfii"]),
                                            ("transpose_cuda_two_solves.cu", ["_Z5solvePKdPdii", "_Z5solvePKfPfii"])])
def test_a_solve_with_cpp_linkage_is_read_from_the_librarys_symbols(tmp_path, fixture, found):
    from judge.worker.elf_symbols import mangled_solves

    built = cuda_build.build(str(ROOT / "tests" / "solutions" / fixture), cuda_build.toolkit_nvcc(NVCC), (9, 0),
                             str(tmp_path), [], 170)
    assert sorted(mangled_solves(built.library)) == found


@needs_nvcc
def test_the_confined_build_compiles_and_cannot_read_outside_its_policy(tmp_path):
    """The judge's own build path (confined_runner: confined_exec, Landlock and seccomp, then nvcc) without a
    GPU: a solution builds; an #include of a file the policy does not allow is refused, its text not shown."""
    from judge.defence import sandbox

    if not sandbox.available()["landlock"].startswith("on"):
        pytest.skip("no Landlock here")
    nvcc = cuda_build.toolkit_nvcc(NVCC)
    secret = tmp_path / "outside" / "secret.h"
    secret.parent.mkdir()
    secret.write_text("int the_secret_is_swordfish = 1;\n")
    steal = _solution(tmp_path / "mine", f'#include "{secret}"\nextern "C" void solve() {{}}\n', "steal.cu")

    def runner():
        return cuda_build.confined_runner(lambda folder: sandbox.policy_for(
            str(tmp_path / "mine"), folder, (), (cuda_build.toolkit_root(nvcc),), strict=True).as_message(), 4 << 30)

    built = cuda_build.build(str(ROOT / "solutions" / "transpose" / "naive.cu"), nvcc, (9, 0), str(tmp_path / "c"),
                             [], 170, runner())
    assert Path(built.library).stat().st_size > 0
    with pytest.raises(cuda_build.CompileFailed) as refused:
        cuda_build.build(steal, nvcc, (9, 0), str(tmp_path / "c"), [], 170, runner())
    assert "Permission denied" in str(refused.value) and "swordfish" not in str(refused.value)
