"""One search order for NVIDIA's programs (judge/base/cuda_tools.py), as each of its callers uses it: nvcc
(cuda_build.find_nvcc: the real program), compute-sanitizer (sanitize.find_sanitizer: also beside nvcc,
the real program) and ncu (tool_wrap.find_tool: also Nsight Compute's install folders, the link kept)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.base import cuda_tools
from judge.judging import profile, sanitize
from judge.worker import cuda_build, tool_wrap

SANITIZER_STAND_IN = Path(__file__).parent / "sanitizer" / "fake-compute-sanitizer"


@pytest.fixture
def no_default_toolkit(tmp_path, monkeypatch):
    """/usr/local/cuda of this machine (which may hold a real toolkit) out of the search."""
    monkeypatch.setattr(cuda_tools, "DEFAULT_TOOLKIT", str(tmp_path / "no-default-toolkit"))


def _program(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_the_toolkit_the_user_named_comes_before_path_and_cuda_home_before_cuda_path(tmp_path, no_default_toolkit):
    home, cuda_path, on_path = (_program(tmp_path / f / "bin" / "nvcc") for f in ("home", "cuda-path", "on-path"))
    everything = {"CUDA_HOME": str(tmp_path / "home"), "CUDA_PATH": str(tmp_path / "cuda-path"),
                  "PATH": str(Path(on_path).parent)}
    assert cuda_tools.find_cuda_tool("nvcc", everything) == home
    assert cuda_tools.find_cuda_tool("nvcc", {**everything, "CUDA_HOME": ""}) == cuda_path
    assert cuda_tools.find_cuda_tool("nvcc", {"PATH": everything["PATH"]}) == on_path


def test_the_default_toolkit_comes_after_beside_and_before_after(tmp_path, monkeypatch):
    monkeypatch.setattr(cuda_tools, "DEFAULT_TOOLKIT", str(tmp_path / "cuda"))
    default = _program(tmp_path / "cuda" / "bin" / "ncu")
    beside, after = _program(tmp_path / "beside" / "ncu"), _program(tmp_path / "after" / "ncu")
    nothing = {"PATH": ""}
    assert cuda_tools.find_cuda_tool("ncu", nothing, beside=[beside], after=[after]) == beside
    assert cuda_tools.find_cuda_tool("ncu", nothing, beside=[str(tmp_path / "none")], after=[after]) == default
    os.unlink(default)
    assert cuda_tools.find_cuda_tool("ncu", nothing, after=[after]) == after


def test_a_file_that_is_not_executable_is_passed_over(tmp_path, no_default_toolkit):
    _program(tmp_path / "home" / "bin" / "nvcc")
    (tmp_path / "home" / "bin" / "nvcc").chmod(0o644)
    assert cuda_tools.find_cuda_tool("nvcc", {"CUDA_HOME": str(tmp_path / "home"), "PATH": ""}) is None


# -- nvcc ------------------------------------------------------------------------------------------------------
def test_nvcc_only_under_cuda_home_is_found_as_the_real_program(tmp_path, no_default_toolkit):
    real = _program(tmp_path / "cuda-13.0" / "bin" / "nvcc")
    (tmp_path / "cuda").symlink_to(tmp_path / "cuda-13.0")
    assert cuda_build.find_nvcc({"CUDA_HOME": str(tmp_path / "cuda"), "PATH": ""}) == os.path.realpath(real)


def test_nvcc_only_on_path_is_found(tmp_path, no_default_toolkit):
    tool = _program(tmp_path / "bin" / "nvcc")
    assert cuda_build.find_nvcc({"PATH": str(tmp_path / "bin")}) == os.path.realpath(tool)


def test_without_nvcc_anywhere_the_message_says_where_the_judge_looked(tmp_path, no_default_toolkit, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert cuda_build.find_nvcc() is None
    assert cuda_build.cuda_unavailable(cpu_mode=False) == (
        "CUDA C++ solutions (.cu) are compiled with nvcc, which is not on this machine (looked in "
        f"$CUDA_HOME/bin, $CUDA_PATH/bin, PATH and /usr/local/cuda/bin): {cuda_build.NVCC_HINT}.")


# -- compute-sanitizer -----------------------------------------------------------------------------------------
def test_the_sanitizer_stand_in_under_cuda_home_is_found_as_the_real_program(tmp_path, no_default_toolkit):
    (tmp_path / "toolkit" / "bin").mkdir(parents=True)
    (tmp_path / "toolkit" / "bin" / "compute-sanitizer").symlink_to(SANITIZER_STAND_IN)
    found = sanitize.find_sanitizer({"CUDA_HOME": str(tmp_path / "toolkit"), "PATH": ""})
    assert found == os.path.realpath(SANITIZER_STAND_IN)


def test_the_sanitizer_on_path_is_found(tmp_path, no_default_toolkit):
    tool = _program(tmp_path / "bin" / "compute-sanitizer")
    assert sanitize.find_sanitizer({"PATH": str(tmp_path / "bin")}) == tool


def test_the_sanitizer_is_found_beside_nvcc_in_either_of_a_toolkits_folders(tmp_path, no_default_toolkit):
    _program(tmp_path / "cuda" / "bin" / "nvcc")
    own_folder = _program(tmp_path / "cuda" / "compute-sanitizer" / "compute-sanitizer")
    environ = {"PATH": str(tmp_path / "cuda" / "bin")}
    assert sanitize.find_sanitizer(environ) == own_folder
    in_bin = _program(tmp_path / "cuda" / "bin" / "compute-sanitizer")
    assert sanitize.find_sanitizer(environ) == in_bin


def test_without_the_sanitizer_the_message_says_where_the_judge_looked(tmp_path, no_default_toolkit):
    environ = {"PATH": str(tmp_path / "empty")}
    assert sanitize.find_sanitizer(environ) is None
    assert sanitize.sanitize_problem(False, environ) == (
        "--sanitize runs the failing case under NVIDIA's compute-sanitizer, which was not found (looked in "
        f"$CUDA_HOME/bin, $CUDA_PATH/bin, PATH, beside nvcc and /usr/local/cuda/bin). {sanitize.HOW_TO_GET}.")


# -- ncu -------------------------------------------------------------------------------------------------------
def test_ncu_only_on_path_is_found_with_its_link_kept(tmp_path, no_default_toolkit, monkeypatch):
    monkeypatch.setattr(tool_wrap, "NSIGHT_COMPUTE_INSTALLS", str(tmp_path / "none" / "*" / "ncu"))
    real = _program(tmp_path / "nsight-compute-2025.3.1" / "ncu")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "ncu").symlink_to(real)
    assert tool_wrap.find_tool("ncu", {"PATH": str(tmp_path / "bin")}) == str(tmp_path / "bin" / "ncu")


def test_ncu_in_nsight_computes_own_folders_is_the_newest(tmp_path, no_default_toolkit, monkeypatch):
    monkeypatch.setattr(tool_wrap, "NSIGHT_COMPUTE_INSTALLS", str(tmp_path / "nsight-compute" / "*" / "ncu"))
    _program(tmp_path / "nsight-compute" / "2025.1.0" / "ncu")
    newest = _program(tmp_path / "nsight-compute" / "2025.3.1" / "ncu")
    assert tool_wrap.find_tool("ncu", {"PATH": ""}) == newest
    assert tool_wrap.find_tool("compute-sanitizer", {"PATH": ""}) is None  # Nsight Compute's folders hold ncu only


def test_without_ncu_profile_says_where_it_looked(tmp_path, no_default_toolkit, monkeypatch):
    monkeypatch.setattr(tool_wrap, "NSIGHT_COMPUTE_INSTALLS", str(tmp_path / "none" / "*" / "ncu"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert tool_wrap.find_tool("ncu") is None
    options = profile.ProfileOptions(ncu="auto")
    assert profile._ncu_pass(None, "s.py", None, 0, "cuda", options, print) == {
        "status": "not found", "problem": profile.NCU_NOT_FOUND}
    assert "($CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute)" in (
        profile.NCU_NOT_FOUND)
