"""CUTLASS and CuTe headers for CUDA C++ solutions (issue 41), without a GPU: where the headers are found
($CUTLASS_PATH, the nvidia-cutlass wheel), what nvcc is given, the cache key, and the paragraph a solution
that includes them gets when they are missing (with a stand-in nvcc, and with the real one where it is
installed: nvcc compiles without a GPU)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from judge.challenge.spec import load_spec
from judge.worker import cuda_build, nvcc
from judge.worker.client import Worker

from conftest import ROOT
from test_cuda import _solution, fake_nvcc  # noqa: F401 - the stand-in nvcc fixture

TRANSPOSE = load_spec(str(ROOT / "challenges" / "transpose.yaml"))
VERSION_H = "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0 \n#define CUTLASS_BUILD 0\n"


def _headers(include: Path, version_h: str = VERSION_H) -> Path:
    """A stand-in for CUTLASS's include/: cute/tensor.hpp and cutlass/version.h."""
    (include / "cute").mkdir(parents=True)
    (include / "cutlass").mkdir()
    (include / "cute" / "tensor.hpp").write_text("#pragma once\n#define CUTE_STAND_IN 1\n")
    (include / "cutlass" / "version.h").write_text(version_h)
    return include


@pytest.fixture
def no_cutlass(monkeypatch):
    """No $CUTLASS_PATH and no wheel, whatever this machine has installed."""
    monkeypatch.delenv(cuda_build.CUTLASS_ENV, raising=False)
    monkeypatch.setattr(cuda_build, "_wheel_source", lambda: None)


# -- discovery ---------------------------------------------------------------------------------
def test_cutlass_path_names_a_checkout_whose_include_folder_is_used(tmp_path, no_cutlass):
    checkout = tmp_path / "cutlass"
    _headers(checkout / "include")
    (checkout / "tools" / "util" / "include" / "cutlass" / "util").mkdir(parents=True)
    found = cuda_build.find_cutlass({"CUTLASS_PATH": str(checkout)})
    assert found["include"] == [str((checkout / "include").resolve()),
                                str((checkout / "tools" / "util" / "include").resolve())]
    assert found["version"] == "4.2.0" and found["from"] == "$CUTLASS_PATH"


def test_cutlass_path_may_name_the_include_folder_itself(tmp_path, no_cutlass):
    include = _headers(tmp_path / "include")
    found = cuda_build.find_cutlass({"CUTLASS_PATH": str(include)})
    assert found["include"] == [str(include.resolve())]


def test_the_wheels_headers_are_found_without_importing_it(tmp_path, monkeypatch):
    """nvidia-cutlass installs cutlass_library/ with the headers under source/include; importing the package
    would run its generators' imports (numpy, networkx...), so only its location is asked for."""
    monkeypatch.delenv(cuda_build.CUTLASS_ENV, raising=False)
    package = tmp_path / "site" / "cutlass_library"
    _headers(package / "source" / "include")
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    sys.modules.pop("cutlass_library", None)
    found = cuda_build.find_cutlass({})
    assert found["include"] == [str((package / "source" / "include").resolve())]
    assert found["from"] == "the nvidia-cutlass wheel" and "cutlass_library" not in sys.modules


def test_a_cutlass_path_without_headers_falls_back_and_nothing_is_none(tmp_path, no_cutlass):
    assert cuda_build.find_cutlass({"CUTLASS_PATH": str(tmp_path)}) is None
    assert cuda_build.find_cutlass({}) is None


def test_the_version_is_read_from_version_h():
    assert nvcc.cutlass_version(VERSION_H) == "4.2.0"
    assert nvcc.cutlass_version("#define CUTLASS_MAJOR 3\n") == "unknown"


# -- what nvcc is given, and the key ---------------------------------------------------------------
def test_the_headers_go_to_nvcc_after_the_solutions_folder_with_the_flag_cute_needs():
    command = nvcc.compile_command("/cuda/bin/nvcc", "s.cu", "s.o", "s.d", (9, 0), ["/sol"], ["-DX"], ["/cutlass/include"])
    assert command.index("-I/sol") < command.index("-isystem") and "/cutlass/include" in command
    assert "--expt-relaxed-constexpr" in command
    plain = nvcc.compile_command("/cuda/bin/nvcc", "s.cu", "s.o", "s.d", (9, 0), ["/sol"], ["-DX"])
    assert "-isystem" not in plain and "--expt-relaxed-constexpr" not in plain  # other builds as before


def test_the_cache_key_changes_with_the_cutlass_headers():
    base = dict(source=b"code", nvcc_identity="/nvcc:1:2", capability=(9, 0), extra=[], context="/sol")
    plain = nvcc.cache_key(**base)
    first = nvcc.cutlass_identity(["/a/include"], "4.2.0", "d1")
    assert nvcc.cache_key(**base, libraries=first) != plain
    assert nvcc.cache_key(**base, libraries=first) == nvcc.cache_key(**base, libraries=first)
    for other in (nvcc.cutlass_identity(["/b/include"], "4.2.0", "d1"), nvcc.cutlass_identity(["/a/include"], "4.3.0", "d2")):
        assert nvcc.cache_key(**base, libraries=other) != nvcc.cache_key(**base, libraries=first)


def test_a_build_with_the_headers_uses_them_and_another_version_builds_again(tmp_path, fake_nvcc, no_cutlass):  # noqa: F811
    tool, log = fake_nvcc
    include = _headers(tmp_path / "cutlass" / "include")
    source = _solution(tmp_path / "sol", '#include <cute/tensor.hpp>\nextern "C" void solve() {}\n')
    cutlass = cuda_build.find_cutlass({"CUTLASS_PATH": str(tmp_path / "cutlass")})
    cache = str(tmp_path / "cache")
    first = cuda_build.build(source, tool, (9, 0), cache, [], 60, cutlass=cutlass)
    compiled = log.read_text().splitlines()[0].split()
    assert compiled[compiled.index("-isystem") + 1] == str(include.resolve())
    assert cuda_build.build(source, tool, (9, 0), cache, [], 60, cutlass=cutlass).cached
    (include / "cutlass" / "version.h").write_text(VERSION_H.replace("MINOR 2", "MINOR 3"))
    newer = cuda_build.find_cutlass({"CUTLASS_PATH": str(tmp_path / "cutlass")})
    assert newer["version"] == "4.3.0"
    again = cuda_build.build(source, tool, (9, 0), cache, [], 60, cutlass=newer)
    assert not again.cached and again.library != first.library


def test_the_sandboxed_build_may_read_the_cutlass_headers(tmp_path, monkeypatch, fake_nvcc):  # noqa: F811
    """nvcc runs confined (Landlock): the headers' folders are among its read paths, wherever they are."""
    tool, _ = fake_nvcc
    include = _headers(tmp_path / "home" / "cutlass" / "include")
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.setenv("CUDA_HOME", str(Path(tool).parent.parent))
    monkeypatch.setenv(cuda_build.CUTLASS_ENV, str(include.parent))
    monkeypatch.delenv("JUDGE_SANDBOX", raising=False)
    worker = Worker(_solution(tmp_path / "sol", "// .cu\n"), TRANSPOSE, "cuda:0", False)
    worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")
    try:
        settings = worker._cuda_settings(60)
        assert settings["cutlass"]["version"] == "4.2.0"
        policy = worker._build_policy(settings, str(tmp_path / "build"))
        assert str(include.resolve()) in policy["read"] and str(tmp_path / "build") in policy["write"]
    finally:
        worker.workdir.cleanup()


# -- missing headers ----------------------------------------------------------------------------------
MISSING = {"gcc": "mine.cu:1:10: fatal error: cute/tensor.hpp: No such file or directory\ncompilation terminated.",
           "edg": 'mine.cu(1): catastrophic error: cannot open source file "cutlass/numeric_types.h"'}


def test_nvccs_missing_header_messages_name_the_cutlass_header():
    assert nvcc.missing_cutlass_header(MISSING["gcc"]) == "cute/tensor.hpp"
    assert nvcc.missing_cutlass_header(MISSING["edg"]) == "cutlass/numeric_types.h"
    assert nvcc.missing_cutlass_header('fatal error: mine/helper.cuh: No such file or directory') is None


def test_a_solution_that_includes_cute_without_the_headers_is_told_how_to_get_them(tmp_path, monkeypatch, no_cutlass):
    """A stand-in nvcc that fails as the real one does on a missing header: the compile error keeps nvcc's
    line and adds one paragraph with the two ways to install the headers."""
    tool = tmp_path / "cuda" / "bin" / "nvcc"
    tool.parent.mkdir(parents=True)
    tool.write_text(f"#!{sys.executable}\nimport sys\nsys.stderr.write({MISSING['gcc']!r})\nsys.exit(1)\n")
    tool.chmod(0o755)
    source = _solution(tmp_path / "sol", '#include <cute/tensor.hpp>\nextern "C" void solve() {}\n')
    with pytest.raises(cuda_build.CompileFailed) as failed:
        cuda_build.build(source, str(tool), (9, 0), str(tmp_path / "cache"), [], 60)
    message = str(failed.value)
    assert message.startswith("mine.cu:1:10: fatal error: cute/tensor.hpp: No such file or directory")
    assert "pip install 'judge[cutlass]'" in message and "CUTLASS_PATH" in message
    monkeypatch.setenv(cuda_build.CUTLASS_ENV, str(tmp_path / "nowhere"))
    assert f"CUTLASS_PATH is {tmp_path / 'nowhere'}, which holds no include/cute/tensor.hpp" in \
        cuda_build.missing_cutlass_message("cute/tensor.hpp")


NVCC = cuda_build.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None or cuda_build.toolkit_root(NVCC) is None,
                                reason="needs nvcc (compiles without a GPU)")


@needs_nvcc
def test_the_real_nvcc_without_the_headers_gives_the_paragraph(tmp_path, no_cutlass):
    source = _solution(tmp_path / "sol", '#include <cute/tensor.hpp>\nextern "C" void solve() {}\n')
    with pytest.raises(cuda_build.CompileFailed) as failed:
        cuda_build.build(source, cuda_build.toolkit_nvcc(NVCC), (9, 0), str(tmp_path / "cache"), [], 120)
    assert "cute/tensor.hpp" in str(failed.value) and "pip install 'judge[cutlass]'" in str(failed.value)


REAL_CUTLASS = cuda_build.find_cutlass()


@needs_nvcc
@pytest.mark.slow
@pytest.mark.skipif(REAL_CUTLASS is None, reason="needs the CUTLASS headers (pip install 'judge[cutlass]')")
def test_the_cute_transposes_compile_in_the_sandbox(tmp_path):
    """The three CuTe solutions, built by the judge's own confined build with the headers found here
    (about 15 s each on two cores: slow)."""
    from judge.defence import sandbox

    nvcc_path = cuda_build.toolkit_nvcc(NVCC)
    reads = (cuda_build.toolkit_root(nvcc_path), *REAL_CUTLASS["include"])
    folder = ROOT / "solutions" / "transpose"
    runner = cuda_build.confined_runner(lambda build: sandbox.policy_for(
        str(folder), build, (), reads, strict=True).as_message(), 8 << 30)
    for name in ("cute_naive.cu", "cute_smem.cu", "cute_swizzle.cu"):
        built = cuda_build.build(str(folder / name), nvcc_path, (9, 0), str(tmp_path), [], 170, runner, REAL_CUTLASS)
        assert os.path.getsize(built.library) > 0
