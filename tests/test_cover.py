"""The launch guard's kernel without a GPU: its fill table (fills.py, pure), how many programs
fill an SM (cover.py), and the kernel itself under Triton's interpreter (in a subprocess, since
the interpreter is chosen when triton is imported)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from judge.timer.cover import THREADS, fills_sm, programs_per_sm
from judge.timer.fills import COPY_PERIOD, WORD, Fill, fill_table, pattern_of

from conftest import ROOT

NAN32 = bytes.fromhex("0000c07f")


def test_pattern_of_repeats_an_element_to_eight_bytes():
    assert pattern_of(NAN32) == NAN32 * 2 and pattern_of(b"\x80") == b"\x80" * 8
    with pytest.raises(ValueError):
        pattern_of(b"abc")


def test_an_aligned_fill_is_whole_words_then_a_byte_tail():
    table = fill_table([Fill(0x1000, 8 * 5 + 3, pattern=NAN32 * 2)], base=0x9000)
    assert (table.word_rows, table.byte_rows) == (1, 1)
    pattern_at = 0x9000 + WORD * 4 * 2  # after the two rows
    assert table.values[:4] == [0x1000, pattern_at, 5, 0]  # step 0: one word repeated
    assert table.values[4:8] == [0x1000 + 40, pattern_at, 3, 8]  # bytes, the pattern's period
    assert table.values[8] == int.from_bytes(NAN32 * 2, "little", signed=True)


def test_a_copy_steps_through_its_source_and_a_misaligned_fill_goes_by_bytes():
    table = fill_table([Fill(0x2000, 16, src=0x3000), Fill(0x4001, 10, src=0x5000),
                        Fill(0x6000, 0, pattern=bytes(8))], base=0x100)
    assert (table.word_rows, table.byte_rows) == (1, 1)  # the empty fill has no row
    assert table.values[:4] == [0x2000, 0x3000, 2, 1]
    assert table.values[4:8] == [0x4001, 0x5000, 10, COPY_PERIOD]
    assert table.values[8:] == [0]  # the empty fill's pattern, pointed at by nothing


def test_bad_fills_are_refused():
    with pytest.raises(ValueError):
        Fill(0x1000, 8, pattern=b"\x00")
    with pytest.raises(ValueError):
        Fill(0, 8)


@pytest.mark.parametrize("threads, registers, count, full", [
    (2048, 32, 4, True),  # H100/H200 at the kernel's register cap: threads and registers both full
    (2048, 59, 2, True),  # 59 -> 64 allocated: two programs use all 65536 registers
    (2048, 40, 3, False),  # 3 x 512 x 40 leaves 512 threads and 4096 registers: another block fits
    (1536, 32, 3, True),  # an SM of 1536 threads
    (2048, None, 4, True),  # unknown (the interpreter): taken as the cap
])
def test_programs_per_sm_and_whether_they_leave_room_for_another_block(threads, registers, count, full):
    assert programs_per_sm(threads, 65536, registers) == count
    assert fills_sm(threads, 65536, registers, count) is full
    assert THREADS == 512


KERNEL_SCRIPT = textwrap.dedent("""
    import torch
    from judge.timer.timed_loop import Repoison, _poison_pattern
    from judge.timer.cover import Cover
    from judge.challenge.spec import parse_spec
    from judge.challenge.tensors import make_arguments

    spec = parse_spec(open(SPEC).read(), "inout.yaml")
    args = make_arguments(spec, {"rows": 3, "cols": 5}, 5, "cpu")
    drawn = args[2].clone()
    flush = torch.ones(1000, dtype=torch.int32)
    cover = Cover(flush, spin=False)
    odd = torch.zeros(11, dtype=torch.float16)[1:]  # 10 halves at an address 2 bytes past a word
    from judge.timer.fills import Fill
    repoison = Repoison(spec, args)
    fills = repoison.fills + [Fill(odd.data_ptr(), 20, pattern=_poison_pattern(torch.float16))]
    args[1].fill_(7.0)
    args[2].add_(1)
    cover(0, cover.prepare(fills))
    assert args[1].isnan().all(), args[1]
    assert torch.equal(args[2], drawn), (args[2], drawn)
    assert odd.isnan().all(), odd
    assert not flush.any() and not args[0].isnan().any()
    kept_name = [p.name for p in spec.parameters if getattr(p, "role", "") == "out"][0]
    args[1].fill_(3.0)
    kept = Repoison(spec, args, kept={kept_name})  # an output the challenge's generator initialised
    args[1].fill_(9.0)
    cover(0, cover.prepare(kept.fills))
    assert (args[1] == 3.0).all(), args[1]  # put back as it started, not poisoned
    table = cover.prepare([])
    cover(0, table)
    try:
        cover(0, table)  # its clock slot holds the first run's start: a second run would not spin
        raise SystemExit("a guard table ran twice")
    except RuntimeError:
        pass
    print("ok", cover.programs)
""")


def test_the_kernel_writes_the_poison_the_drawn_values_and_the_flush(tmp_path):
    """The real kernel, interpreted on the CPU (no spin: the interpreter has no global timer)."""
    text = (ROOT / "tests" / "specs" / "tiny_transpose.yaml").read_text()
    text = text.replace(
        "  - {name: output, tensor: float32, shape: [cols, rows], role: out}",
        "  - {name: output, tensor: float32, shape: [cols, rows], role: out}\n"
        "  - {name: scratch, tensor: int16, shape: [rows], role: inout, init: {dist: randint, low: 0, high: 9}}")
    text = text.replace("def reference(input, output, rows, cols):", "def reference(input, output, scratch, rows, cols):")
    spec_path = tmp_path / "inout.yaml"
    spec_path.write_text(text)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", f"SPEC = {str(spec_path)!r}\n" + KERNEL_SCRIPT],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stderr[-2000:]


def test_the_kernel_compiles_for_a_hopper_gpu_without_one():
    """The spin and the barrier never run under the interpreter (no global timer there), so compile the
    kernel as the GPU would, ahead of time for sm_90: a global the kernel may not read broke it on the
    device once, with every CPU test passing."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from judge.timer.cover import MAX_REGISTERS, WORDS, _cover_kernel

    signature = {"table": "*i64", "word_rows": "i64", "byte_rows": "i64", "spin_ns": "i64", "starts": "*i64",
                 "WORDS": "constexpr", "SPIN": "constexpr"}
    source = ASTSource(_cover_kernel, signature, constexprs={"WORDS": WORDS, "SPIN": True})
    kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                            options={"num_warps": THREADS // 32, "maxnreg": MAX_REGISTERS})
    ptx = kernel.asm["ptx"]
    assert "%globaltimer" in ptx and f".maxnreg {MAX_REGISTERS}" in ptx and "atom.global" in ptx
