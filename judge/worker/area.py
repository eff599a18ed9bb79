"""A shared-memory area beside the pipe, for the tensors a worker sends back (Linux).

Why: on the H200 host a 256 MiB output took ~0.5 s to reach the judge through
the pipe (0.16 s GPU to a fresh host buffer, 0.35 s the pipe itself;
docs/benchmarks.md), and every functional test and verified timed call sends
outputs back.  Through the area the worker copies each tensor once, into
memory the judge reads in place.

The judge owns the area: an anonymous memfd (no path to clean up, no
``/dev/shm`` size limit), sealed so that it can grow but never shrink, since a
worker that truncated it would make the judge's reads fault (SIGBUS).  The
judge grows it before each request to the largest reply it expects, says in
the request how many bytes it has mapped (``area_bytes``: the worker writes no
further), and passes its descriptor to the worker at spawn.  A reply that uses it carries
``"area": [[offset, length], ...]`` in its header instead of blobs; the judge
checks every span against its own mapping.

One rule keeps the two sides from tripping over each other: after a reply
that used the area, the worker writes into it again only after the judge has
sent ``area_free``, which the judge does before its next message of any kind.
So the bytes of a reply stay put until the judge asks for more.

Where memfd is missing (not Linux) or a reply does not fit, the bytes go
through the pipe as before.
"""

from __future__ import annotations

import mmap
import os

__all__ = ["ALIGN", "AreaError", "layout", "span", "check_spans", "JudgeArea", "WorkerArea"]

ALIGN = 4096  # page-aligned tensors: the copies to and from the GPU are fastest there


class AreaError(RuntimeError):
    """A reply named bytes outside the area (only a tampered worker does that)."""


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def layout(sizes: list[int]) -> list[tuple[int, int]]:
    """(offset, length) of each blob, back to back at page-aligned offsets."""
    spans, offset = [], 0
    for size in sizes:
        spans.append((offset, size))
        offset += _align(size)
    return spans


def span(sizes: list[int]) -> int:
    """Bytes of area that ``layout(sizes)`` needs."""
    return sum(_align(size) for size in sizes)


def check_spans(spans, size: int) -> list[tuple[int, int]]:
    """The worker's spans, validated: pairs of non-negative ints inside ``size`` bytes."""
    if not isinstance(spans, list):
        raise AreaError("the area spans are not a list")
    checked = []
    for item in spans:
        if (not isinstance(item, list) or len(item) != 2
                or not all(type(x) is int and x >= 0 for x in item) or item[0] + item[1] > size):
            raise AreaError(f"area span {str(item)[:40]} is not inside the {size}-byte area")
        checked.append((item[0], item[1]))
    return checked


def _unmap(view: mmap.mmap | None) -> None:
    if view is None:
        return
    try:
        view.close()
    except BufferError:  # a reader still holds a view: unmapped when the last one goes
        pass


class JudgeArea:
    """The judge's side: creates, grows and reads the area."""

    def __init__(self, fd: int):
        self.fd, self.size = fd, 0
        self._map: mmap.mmap | None = None

    @classmethod
    def create(cls) -> "JudgeArea | None":
        """A new sealed area, or None where the platform has no memfd or seals."""
        import fcntl

        try:
            fd = os.memfd_create("judge-area", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except (AttributeError, OSError):
            return None
        try:  # and no further seals: a worker could otherwise stop the judge from growing it
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
        except (AttributeError, OSError):
            os.close(fd)  # without the seal a worker could make the judge fault
            return None
        return cls(fd)

    def reserve(self, nbytes: int) -> bool:
        """Grow the area to at least ``nbytes``; False when the system refuses."""
        if nbytes <= self.size:
            return True
        try:
            os.ftruncate(self.fd, max(nbytes, os.fstat(self.fd).st_size))  # never a shrink (a worker may grow it)
            grown = mmap.mmap(self.fd, nbytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except (OSError, ValueError, OverflowError):
            return False
        _unmap(self._map)
        self._map, self.size = grown, nbytes
        return True

    def views(self, spans) -> list[memoryview]:
        """Writable views of the reply's blobs; valid until the judge's next message."""
        if self._map is None:
            raise AreaError("a reply named the area before the judge made one")
        checked = check_spans(spans, self.size)
        if not checked:
            return []
        whole = memoryview(self._map)
        return [whole[offset:offset + length] for offset, length in checked]

    def close(self) -> None:
        _unmap(self._map)
        self._map, self.size = None, 0
        try:
            os.close(self.fd)
        except OSError:
            pass


class WorkerArea:
    """The worker's side: maps the judge's area and copies tensors into it."""

    def __init__(self, fd: int):
        self.fd, self.size = fd, 0
        self.owed = False  # a reply used the area and the judge has not said ``area_free`` yet
        self.usable = 0  # bytes the judge has mapped (``area_bytes`` of its last request)
        self._map: mmap.mmap | None = None
        self._bytes = None  # a uint8 tensor over the whole mapping

    def fits(self, nbytes: int) -> bool:
        """True when ``nbytes`` fit in what the judge has mapped (mapping it anew if it grew).
        Any failure to map means the pipe, never an error."""
        try:
            size = min(os.fstat(self.fd).st_size, self.usable)
            if size != self.size:
                self._remap(size)
        except (OSError, ValueError):
            self._bytes, self._map, self.size = None, None, 0
            return False
        return 0 < nbytes <= self.size

    def _remap(self, size: int) -> None:
        import torch

        self._bytes = None
        _unmap(self._map)
        self._map, self.size = None, 0
        if size > 0:
            self._map = mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            # Through a memoryview, so that the mapping cannot be closed under the tensor (BufferError).
            self._bytes, self.size = torch.frombuffer(memoryview(self._map), dtype=torch.uint8), size

    def write(self, tensors: list) -> list[list[int]]:
        """Copy each tensor's raw bytes in (from the GPU directly); returns the spans to send."""
        from judge.challenge.tensors import raw_bytes

        raw = [raw_bytes(t) for t in tensors]
        spans = layout([r.numel() for r in raw])
        for (offset, length), data in zip(spans, raw):
            if length:
                self._bytes[offset:offset + length].copy_(data)
        self.owed = True
        return [list(s) for s in spans]
