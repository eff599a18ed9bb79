"""Where the judge's processes keep bytecode (judge/base/bytecode.py), and that the
solution itself is always judged from its text, never from a stale ``.pyc``."""

from __future__ import annotations

import os
import py_compile
import sys
import textwrap

import pytest

from judge.base.bytecode import keep_bytecode, worker_bytecode_env
from judge.challenge.spec import load_spec
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import SPECS


@pytest.fixture
def python_flags(monkeypatch):
    """sys's bytecode settings, restored after the test."""
    monkeypatch.setattr(sys, "dont_write_bytecode", sys.dont_write_bytecode)
    monkeypatch.setattr(sys, "pycache_prefix", sys.pycache_prefix)
    monkeypatch.delenv("JUDGE_BYTECODE_CACHE", raising=False)
    return monkeypatch


def test_a_python_that_may_not_write_bytecode_keeps_it_in_the_judge_cache(python_flags, tmp_path):
    sys.dont_write_bytecode, sys.pycache_prefix = True, None
    assert keep_bytecode(tmp_path) is True
    assert sys.pycache_prefix == str(tmp_path / "pycache") and sys.dont_write_bytecode is False
    env = worker_bytecode_env({"PYTHONDONTWRITEBYTECODE": "1", "HOME": "/h"})
    assert env == {"PYTHONPYCACHEPREFIX": str(tmp_path / "pycache"), "HOME": "/h"}


def test_python_s_own_settings_are_left_alone(python_flags, tmp_path):
    sys.dont_write_bytecode, sys.pycache_prefix = False, None  # it writes beside the sources: fine
    assert keep_bytecode(tmp_path) is False and sys.pycache_prefix is None
    assert "PYTHONDONTWRITEBYTECODE" not in worker_bytecode_env({"PYTHONDONTWRITEBYTECODE": "1"})
    sys.dont_write_bytecode, sys.pycache_prefix = True, "/elsewhere"  # the user chose a prefix
    assert keep_bytecode(tmp_path) is False and sys.pycache_prefix == "/elsewhere"
    sys.pycache_prefix = None
    python_flags.setenv("JUDGE_BYTECODE_CACHE", "0")  # opted out: no bytecode anywhere, workers too
    assert keep_bytecode(tmp_path) is False and sys.dont_write_bytecode is True
    assert worker_bytecode_env({})["PYTHONDONTWRITEBYTECODE"] == "1"


_SOLUTION = textwrap.dedent("""
    import triton
    import triton.language as tl
    from _offset_helper import OFFSET


    @triton.jit
    def _k(x, y, rows, cols, add, B: tl.constexpr):
        r = tl.program_id(0) * B + tl.arange(0, B)
        c = tl.program_id(1) * B + tl.arange(0, B)
        tile = tl.load(x + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
        tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile) + add,
                 mask=(c[:, None] < cols) & (r[None, :] < rows))


    def solve(input, output, rows, cols):
        _k[(triton.cdiv(rows, 16), triton.cdiv(cols, 16))](input, output, rows, cols, OFFSET + ADD, B=16)


    ADD = {add}
""")


@pytest.mark.slow
def test_an_edit_in_the_same_second_at_the_same_size_is_judged(tmp_path, python_flags):
    """A .pyc is trusted when the source's size and whole-second mtime match: the
    wrong version's bytecode must not stand in for the fixed file."""
    python_flags.delenv("PYTHONPYCACHEPREFIX", raising=False)  # the stale .pyc goes where the worker looks
    sys.pycache_prefix = None
    (tmp_path / "_offset_helper.py").write_text("OFFSET = 0.0\n")
    solution = tmp_path / "solution.py"
    solution.write_text(_SOLUTION.format(add="1.0"))  # wrong: adds 1
    stamp = os.stat(solution).st_mtime_ns
    py_compile.compile(str(solution), invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    solution.write_text(_SOLUTION.format(add="0.0"))  # fixed, the same length
    os.utime(solution, ns=(stamp, stamp))
    result = judge_solution(load_spec(SPECS / "tiny_transpose.yaml"), str(solution),
                            Options(seed=3, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message
    # and the helper it imports left no bytecode beside it
    assert sorted(p.name for p in (tmp_path / "__pycache__").iterdir()) == [
        f"solution.{sys.implementation.cache_tag}.pyc"]


def test_the_warm_kernel_finds_what_it_uses_in_this_triton():
    """The worker's warm-up swallows its errors (session.warm_up): a Triton that moved what it
    uses would silently turn it off, so the names are checked here."""
    import triton
    from triton.runtime.cache import triton_key

    from judge.worker import warm_kernel

    assert isinstance(triton.knobs.cache.dir, str) and len(triton_key()) > 16
    assert warm_kernel._triton_cache_in_use() in (True, False)
