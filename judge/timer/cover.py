"""The launch guard's kernel (GPU only): it holds every SM while the host
launches solve(), then puts the outputs back and flushes the L2 cache.

Why one kernel that fills the GPU.  Before each timed call the GPU must stay
busy until solve()'s launch is queued (the launch guard, timed_loop.py), and the
outputs must be poisoned again and the L2 flushed.  A guard that sleeps on
one SM (``torch.cuda._sleep``) leaves the rest of the GPU free: a solution
could do its real work into scratch memory on a stream of its own while the
guard sleeps, then make the current stream wait and copy the scratch to the
outputs, and only the copy would be timed.  This kernel runs
``programs_per_sm`` programs of ``THREADS`` threads on every SM, as many
threads as an SM holds, so no block of any other kernel, on any stream or
priority, can start until it ends; the start event follows it at once.  Its
programs spin on the GPU's global timer for the guard's length, then write
the fill table (fills.py): the outputs' poison or drawn values, then the
zeroed flush buffer, so the flush is still the last thing before solve().

What it cannot hold: the copy engines.  A ``cudaMemcpyAsync`` on another
stream can run during the spin, so the inputs hold poison until the fills
write their drawn values back, and the outputs are poisoned again: only
copies that land during the flush escape (docs/security.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from judge.timer.fills import WORD, Fill, fill_table

__all__ = ["Cover", "Prepared", "THREADS", "programs_per_sm", "fills_sm", "precompile"]

# Bound when the worker imports this, before the solution: a solution that patches torch does not reach them.
_empty, _zeros, _tensor = torch.empty, torch.zeros, torch.tensor
_copy = torch.Tensor.copy_
_properties = torch.cuda.get_device_properties

CLOCK_UNSET = (1 << 63) - 1  # the table's clock slot before the first program writes its start
SLOTS = (CLOCK_UNSET, 0)  # the clock, the barrier's counter: in front of every table (a tuple: no solution edits it)
BARRIER_NS = tl.constexpr(1_000_000)  # a constexpr: a jit function reads no other globals
THREADS = 512  # threads per program: divides every SM size (1024, 1536, 2048)
MAX_REGISTERS = 32  # per thread: 2048 threads x 32 fill an SM's 65536 registers exactly
WORDS = 1024  # words each program writes per step


@triton.jit
def _now():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False,
                                     pack=1)


@triton.jit(do_not_specialize=["word_rows", "byte_rows", "spin_ns"])
def _cover_kernel(table, word_rows, byte_rows, spin_ns, starts, WORDS: tl.constexpr, SPIN: tl.constexpr):
    """``table``: a clock slot (the largest int64), a counter (0), then byte rows and word rows (fills.py).

    Every program spins until the earliest start it can see plus ``spin_ns``
    (one that spun from its own start would end early and free its SM while
    the others still hold theirs), writes its share of the rows, then waits
    at a barrier until every program has written its share, so that no SM
    frees up while the flush still runs (at most ``BARRIER_NS``: on a GPU
    where the programs do not all fit at once, the others never come).  Byte
    rows come first so that the flush, the last word row, is written last.
    """
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    if SPIN:  # the guard: hold this program's slot until spin_ns after the first program started
        begun = _now()
        tl.store(starts + pid, begun)  # Cover.residency_spread_us() reads when each program started
        earliest = tl.minimum(tl.atomic_min(table, begun), begun)
        now = begun
        while now - earliest < spin_ns:
            now = _now()
    rows = table + 2
    for r in range(byte_rows):  # [dst, src, nbytes, period]: byte k from src + k % period
        row = rows + (word_rows + r) * 4
        _write_row(tl.load(row).to(tl.pointer_type(tl.uint8)), tl.load(row + 1).to(tl.pointer_type(tl.uint8)),
                   tl.load(row + 2), tl.load(row + 3), pid, programs, WORDS, True)
    for r in range(word_rows):  # [dst, src, words, step]: word k from src + 8 k step
        row = rows + r * 4
        _write_row(tl.load(row).to(tl.pointer_type(tl.int64)), tl.load(row + 1).to(tl.pointer_type(tl.int64)),
                   tl.load(row + 2), tl.load(row + 3), pid, programs, WORDS, False)
    if SPIN:  # the barrier: leave together
        tl.atomic_add(table + 1, 1)
        written = _now()
        now = written
        done = tl.load(table + 1, volatile=True)
        while (done < programs) & (now - written < BARRIER_NS):
            now = _now()
            done = tl.load(table + 1, volatile=True)


@triton.jit
def _write_row(dst, src, count, param, pid, programs, WORDS: tl.constexpr, PERIODIC: tl.constexpr):
    """This program's share of one row: element k from src + k * param (words) or src + k % param (bytes).

    Words multiply (a modulo on every word would double the flush's time); bytes need the modulo to
    repeat a pattern, and are few: a tensor's last 1-7 bytes, or a whole tensor not 8-byte aligned.
    """
    for first in range(pid * WORDS, count, programs * WORDS):
        offsets = first + tl.arange(0, WORDS)
        inside = offsets < count
        if PERIODIC:
            values = tl.load(src + offsets % param, mask=inside)
        else:
            values = tl.load(src + offsets * param, mask=inside)
        tl.store(dst + offsets, values, mask=inside)


def precompile(device) -> None:
    """Compile the kernel now, on an empty table.  The worker does this before the solution loads,
    while Triton's cache is the judge's own (judge/worker/client.py): the binary that later guards
    the timed calls is never one a solution could have written into a cache."""
    empty = _tensor(SLOTS, dtype=torch.int64, device=device)
    starts = _zeros(1, dtype=torch.int64, device=device)
    _cover_kernel[(1,)](empty, 0, 0, 0, starts, WORDS=WORDS, SPIN=True, num_warps=THREADS // 32,
                        maxnreg=MAX_REGISTERS)


@dataclass
class Prepared:
    """One call's table on the device.  Used once: its clock slot keeps the earliest start of the
    programs that ran on it, and a second run would spin from that old time (no spin at all) and
    find its barrier already passed."""

    table: torch.Tensor
    word_rows: int
    byte_rows: int
    keep: object = None  # what the table's copy rows read from (timed_loop.Repoison's clones): alive until the call ran
    used: bool = False


class Cover:
    """The kernel on one device with its flush buffer; ``prepare`` builds a call's table, ``__call__`` runs it."""

    def __init__(self, flush: torch.Tensor, spin: bool = True):
        """``spin`` False: no global timer read (Triton's interpreter has none), so no guard; tests only."""
        self.flush, self.spin = flush, spin
        device = flush.device
        props = _properties(device) if device.type == "cuda" else None
        sms = props.multi_processor_count if props else 1
        threads_per_sm = getattr(props, "max_threads_per_multi_processor", 2048) if props else THREADS
        self.starts = _zeros(sms * max(1, threads_per_sm // THREADS), dtype=torch.int64, device=device)
        self.flush_fill = Fill(flush.data_ptr(), flush.nbytes)
        self.registers = self._compile()
        regs_per_sm = getattr(props, "regs_per_multiprocessor", 65536) if props else 65536
        self.programs_per_sm = programs_per_sm(threads_per_sm, regs_per_sm, self.registers)
        self.programs = sms * self.programs_per_sm
        self.fills_sm = fills_sm(threads_per_sm, regs_per_sm, self.registers, self.programs_per_sm)

    def _compile(self) -> int | None:
        """Launch once on an empty table (the first launch compiles); the registers each thread uses."""
        empty = _tensor(SLOTS, dtype=torch.int64, device=self.flush.device)
        kernel = _cover_kernel[(1,)](empty, 0, 0, 0, self.starts, WORDS=WORDS, SPIN=self.spin,
                                     num_warps=THREADS // 32, maxnreg=MAX_REGISTERS)
        return getattr(kernel, "n_regs", None)

    @property
    def flush_bytes(self) -> int:
        return self.flush_fill.nbytes

    def prepare(self, fills: list[Fill], keep: object = None) -> "Prepared":
        """The device table: the slots, then ``fills`` and the flush (a host-to-device copy: do it untimed).

        ``keep``: what the fills copy from, held by the table until the call ran.
        """
        probe = fill_table(fills + [self.flush_fill], 0)
        table = _empty((len(SLOTS) + len(probe.values),), dtype=torch.int64, device=self.flush.device)
        laid = fill_table(fills + [self.flush_fill], table.data_ptr() + WORD * len(SLOTS))
        _copy(table, _tensor(list(SLOTS) + laid.values, dtype=torch.int64))
        return Prepared(table, laid.word_rows, laid.byte_rows, keep)

    def __call__(self, spin_ns: int, prepared: "Prepared") -> None:
        """Queue the kernel on the current stream: spin ``spin_ns``, then write the table (once: see Prepared)."""
        if prepared.used:
            raise RuntimeError("a guard table is used once: its clock slot keeps the first call's start")
        prepared.used = True
        table, word_rows, byte_rows = prepared.table, prepared.word_rows, prepared.byte_rows
        _cover_kernel[(self.programs,)](table, word_rows, byte_rows, int(spin_ns), self.starts,
                                        WORDS=WORDS, SPIN=self.spin, num_warps=THREADS // 32,
                                        maxnreg=MAX_REGISTERS)

    def residency_spread_us(self) -> float:
        """After a call that spun: how far apart (µs) its programs started.

        All programs run at once when the kernel fills the GPU exactly; if one
        SM held fewer than ``programs_per_sm`` (more registers than expected,
        a smaller SM), the rest start a whole spin later.
        """
        starts = self.starts[:self.programs].tolist()
        return (max(starts) - min(starts)) / 1e3


def programs_per_sm(threads_per_sm: int, registers_per_sm: int, registers: int | None) -> int:
    """How many programs of ``THREADS`` threads fit on one SM at once.

    Registers are given out per warp in units of 256, so a thread's count is
    rounded up to a multiple of 8.  With at most ``MAX_REGISTERS`` per thread
    the threads run out first; unknown counts (the interpreter) are taken as that.
    """
    return max(1, min(threads_per_sm // THREADS, registers_per_sm // (_allocated(registers) * THREADS)))


def fills_sm(threads_per_sm: int, registers_per_sm: int, registers: int | None, programs: int) -> bool:
    """Do ``programs`` programs leave an SM too few threads or registers for one more warp of any kernel?"""
    threads_left = threads_per_sm - programs * THREADS
    registers_left = registers_per_sm - programs * THREADS * _allocated(registers)
    return threads_left < 32 or registers_left < 32 * 8


def _allocated(registers: int | None) -> int:
    """Registers per thread as allocated: rounded up to 8 (256 per warp)."""
    return -(-(registers or MAX_REGISTERS) // 8) * 8
