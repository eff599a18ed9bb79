"""What the launch guard's kernel writes before each timed call, as a table of
numbers (no GPU, no I/O: cover.py puts the table on the device and runs it).

Before every timed call the guard's kernel (cover.py) puts the outputs back
(the poison for ``out`` tensors, the drawn values for ``inout`` ones) and
zeroes the L2 flush buffer.  Each of those is a ``Fill``: bytes to write at a
device address, either copied from another address or one 8-byte pattern
repeated.  ``fill_table`` turns fills into rows the kernel reads:

- word rows ``[dst, src, words, step]``: 8-byte words, the k-th from
  ``src + 8 * k * step`` (step 0: one pattern word repeated, 1: a copy);
- byte rows ``[dst, src, nbytes, period]``: bytes, the k-th from
  ``src + k % period`` (period 8: a pattern, ``COPY_PERIOD``: a copy), for
  the last ``nbytes % 8`` bytes and for addresses not 8-byte aligned (an
  8-byte access there would fault);
- then the pattern words themselves, which the rows point into.

(cover.py puts one clock slot in front of the table and runs the byte rows
before the word rows, so that the flush is written last.)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Fill", "Table", "fill_table", "pattern_of", "WORD", "COPY_PERIOD", "ROW"]

WORD = 8
ROW = 4  # numbers per row
COPY_PERIOD = 1 << 62  # a byte row's period when it copies: larger than any offset


@dataclass(frozen=True)
class Fill:
    """``nbytes`` to write at ``dst``: copied from ``src``, or ``pattern`` (8 bytes) repeated from ``dst`` on."""

    dst: int
    nbytes: int
    src: int | None = None
    pattern: bytes = bytes(WORD)

    def __post_init__(self):
        if self.src is None and len(self.pattern) != WORD:
            raise ValueError(f"a fill's pattern is {WORD} bytes, not {len(self.pattern)}")
        if self.nbytes < 0 or (self.nbytes and self.dst <= 0):  # an empty tensor's address is 0
            raise ValueError(f"bad fill: {self.nbytes} bytes at {self.dst:#x}")


@dataclass(frozen=True)
class Table:
    """The kernel's table: ``values`` laid out at ``base`` (word rows, byte rows, pattern words)."""

    values: list[int]
    word_rows: int
    byte_rows: int


def pattern_of(element: bytes) -> bytes:
    """One element's bytes repeated to fill 8 bytes (its size must divide 8: every dtype a spec allows)."""
    if not element or WORD % len(element):
        raise ValueError(f"an element of {len(element)} bytes does not tile {WORD} bytes")
    return element * (WORD // len(element))


def fill_table(fills: list[Fill], base: int) -> Table:
    """The rows for ``fills`` in order, for a table that will live at device address ``base``.

    A fill whose destination (and source, if any) is 8-byte aligned becomes a
    word row for its whole words and a byte row for the rest; any other fill
    is one byte row.  Empty fills are left out.  Pattern rows point at the
    pattern words stored after the rows, so ``base`` must be where the values
    will be.  Tensors start at element-aligned addresses, and every word or
    byte row of a pattern starts at an element boundary, so repeating the
    8-byte pattern from ``dst`` on writes whole elements.
    """
    words, tails, patterns = [], [], []
    for fill in fills:
        word_ok = fill.dst % WORD == 0 and (fill.src is None or fill.src % WORD == 0)
        whole = fill.nbytes // WORD if word_ok else 0
        if fill.src is None:
            patterns.append(fill.pattern)
        pattern_index = len(patterns) - 1
        if whole:
            words.append((fill.dst, fill.src, whole, pattern_index))
        rest = fill.nbytes - whole * WORD
        if rest:
            src = None if fill.src is None else fill.src + whole * WORD
            tails.append((fill.dst + whole * WORD, src, rest, pattern_index))
    pattern_base = base + WORD * ROW * (len(words) + len(tails))
    values = []
    for dst, src, count, index in words:
        values += [dst, pattern_base + WORD * index, count, 0] if src is None else [dst, src, count, 1]
    for dst, src, count, index in tails:
        values += [dst, pattern_base + WORD * index, count, WORD] if src is None else [dst, src, count, COPY_PERIOD]
    values += [int.from_bytes(p, "little", signed=True) for p in patterns]
    return Table(values, len(words), len(tails))
