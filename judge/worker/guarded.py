"""Guard zones around every tensor handed to solve(), and the seal on its arguments.

**Guard zones.**  Each tensor argument is the middle of a larger allocation:
a zone of canary bytes before it and after it, ``zone_bytes(nbytes)`` each
(the tensor's own size, at least 64 KiB, at most 64 MiB).  After every call
(functional or timed, outside the timed region) the zones are compared with
the canary; a store outside the tensor shows as changed bytes, and the verdict
names the tensor and how far past its end (or before its start) they reach.
In CPU mode the allocation is an ``mmap`` whose zones are followed by
inaccessible address space (16 times the tensor, at least 256 MiB, reserved,
never committed), so a store further out faults at once: one seed, one verdict,
and no stray store ever reaches the worker's heap (before, the same kernel
timed out, aborted with ``double free`` or passed, run to run).  On a GPU a
store beyond the zones lands in the worker's own memory (never the judge's:
another process) and is caught by the zones it crossed or by the checks.

**The seal.**  Before each call the worker records every tensor argument's
storage, offset, shape, strides and dtype; after it, any change
(``Tensor.set_``, ``resize_``, ``as_strided_``, ``.data =``) is a
``runtime_error`` that says what happened, and the bytes sent to the judge
are always read from the buffers the worker allocated, never from whatever
the Python objects point to afterwards.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from dataclasses import dataclass

import torch

__all__ = ["zone_bytes", "Arena", "Seal", "GuardViolation", "canary_on"]

ZONE_MIN = 64 * 1024
ZONE_MAX = 64 * 1024**2
ALIGN = 512  # the CUDA caching allocator's alignment: the tensor keeps it
CPU_ALIGN = 64
PAGE = mmap.PAGESIZE
UNMAPPED_MIN = 256 * 1024**2  # address space only (MAP_NORESERVE, PROT_NONE): it costs no memory

# Bound before the solution is imported (the worker imports this module first).
_empty, _equal, _ne = torch.empty, torch.equal, torch.ne
_copy = torch.Tensor.copy_
_PLAIN = torch.Tensor
# `judge run --sanitize` (judging/sanitize.py): on a GPU every tensor is an allocation of its own, exactly its
# size (torch's caching allocator is off there too), so that compute-sanitizer's memcheck sees an access past
# it, which would land in a guard zone, inside the same allocation, otherwise.  The sanitizer checks instead.
_UNZONED = os.environ.get("JUDGE_WORKER_UNZONED") == "1"


def zone_bytes(nbytes: int) -> int:
    """Bytes of canary on each side of a tensor of ``nbytes``: its own size, within 64 KiB .. 64 MiB."""
    size = min(max(nbytes, ZONE_MIN), ZONE_MAX)
    return -(-size // PAGE) * PAGE


_BLOCK = 4096
_CANARIES: dict = {}


def canary_on(device, nbytes: int) -> torch.Tensor:
    """At least ``nbytes`` of canary on ``device``: a fixed pseudo-random 4 KiB block, repeated (the same in
    every worker; no value a kernel writes by accident).  Cached per device, grown when a longer one is asked."""
    device = torch.device(device)
    have = _CANARIES.get(device)
    # Only the judge's plain tensor: a subclass put here would run its __torch_function__ inside a draw
    # (the red team of the draw window); the class is read before anything else of it.
    if type(have) is not _PLAIN or have.dtype != torch.uint8 or have.device != device or have.numel() < nbytes:
        gen = torch.Generator(device="cpu")
        gen.manual_seed(0x6A756467)  # "judg"
        block = torch.randint(0, 256, (_BLOCK,), dtype=torch.uint8, generator=gen).to(device)
        size = max(1 << 20, 1 << max(0, nbytes - 1).bit_length())
        have = block.repeat(-(-size // _BLOCK))
        _CANARIES[device] = have
    return have


@dataclass
class GuardViolation:
    name: str
    description: str  # dtype[shape]
    after: int  # bytes past the end that changed (0: none)
    before: int  # bytes before the start that changed (0: none)

    def message(self) -> str:
        where = []
        if self.after:
            where.append(f"up to {_bytes(self.after)} past its end")
        if self.before:
            where.append(f"up to {_bytes(self.before)} before its start")
        return (f"solve() wrote outside `{self.name}` ({self.description}): {' and '.join(where)} "
                "(an out-of-bounds store: check the kernel's masks, grid and strides)")


def _bytes(n: int) -> str:
    return f"{n} byte{'s' if n != 1 else ''}" if n < 4096 else f"{n / 1024:.1f} KiB"


class _Guarded:
    """One tensor in the middle of its allocation: ``front`` zone, the tensor, ``back`` zone."""

    def __init__(self, buffer: torch.Tensor, front: int, nbytes: int, back: int, dtype, shape, keep=None):
        self.buffer, self.front_len, self.nbytes, self.back_len = buffer, front, nbytes, back
        self.keep = keep  # the mmap of a CPU allocation, alive as long as the tensor
        raw = buffer[front:front + nbytes]
        self.tensor = raw.view(dtype).reshape(shape) if nbytes else _empty(shape, dtype=dtype, device=buffer.device)
        self.canary = canary_on(buffer.device, max(front, back))
        self.front = buffer[:front]
        self.back = buffer[front + nbytes:front + nbytes + back]
        _copy(self.front, self.canary[:front])
        _copy(self.back, self.canary[:back])

    def mismatches(self) -> torch.Tensor:
        """How many zone bytes changed, as a tensor on the device (no synchronize)."""
        return (_ne(self.front, self.canary[:self.front_len]).sum()
                + _ne(self.back, self.canary[:self.back_len]).sum())

    def changed(self) -> tuple[int, int]:
        """(bytes past the end, bytes before the start) reached by changed canary bytes."""
        after = before = 0
        if not _equal(self.back, self.canary[:self.back_len]):
            after = int(_ne(self.back, self.canary[:self.back_len]).nonzero().max()) + 1
        if not _equal(self.front, self.canary[:self.front_len]):
            before = self.front_len - int(_ne(self.front, self.canary[:self.front_len]).nonzero().min())
        return after, before


class Arena:
    """The guarded tensors of one call; ``empty`` allocates, ``violations`` checks them all.

    ``again()`` starts another call on the same tensors: ``empty`` then hands back the previous
    call's tensors in order (their zones checked clean after that call), so the timed loop's calls
    cost no allocation and no canary writes (on a GPU 2 x 64 MiB a large tensor, in CPU mode an mmap)."""

    def __init__(self, device):
        self.device = torch.device(device)
        self.guarded: list[_Guarded] = []
        self.reused = 0  # how many of ``guarded`` this call has handed out again (``again``)
        self.fresh = True

    def again(self) -> "Arena":
        self.reused, self.fresh = 0, False
        return self

    def empty(self, shape, dtype: torch.dtype) -> torch.Tensor:
        if not self.fresh and self.reused < len(self.guarded):
            old = self.guarded[self.reused]
            if tuple(old.tensor.shape) == tuple(shape) and old.tensor.dtype == dtype:
                self.reused += 1
                return old.tensor
            del self.guarded[self.reused:]  # another shape from here on: allocate afresh
            self.fresh = True
        if _UNZONED and self.device.type == "cuda":
            return _empty(shape, dtype=dtype, device=self.device)  # no zones to check: violations() finds none
        nbytes = _numel(shape) * dtype.itemsize
        zone = zone_bytes(nbytes)
        if self.device.type == "cpu":
            guarded = self._cpu(shape, dtype, nbytes, zone)
        else:
            padded = -(-nbytes // ALIGN) * ALIGN
            buffer = _empty(zone + padded + zone, dtype=torch.uint8, device=self.device)
            guarded = _Guarded(buffer, zone, nbytes, padded - nbytes + zone, dtype, shape)
        self.guarded.append(guarded)
        return guarded.tensor

    def _cpu(self, shape, dtype, nbytes: int, zone: int) -> _Guarded:
        """[unmapped | zone | tensor, ending at a page boundary but for < 64 bytes | zone | unmapped]."""
        padded = -(-nbytes // CPU_ALIGN) * CPU_ALIGN
        unmapped = max(UNMAPPED_MIN, 16 * -(-nbytes // PAGE) * PAGE)
        middle = -(-padded // PAGE) * PAGE  # the tensor's pages
        total = unmapped + zone + middle + zone + unmapped
        region = mmap.mmap(-1, total, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
        base = ctypes.addressof(ctypes.c_char.from_buffer(region))
        for start in (0, total - unmapped):
            _mprotect_none(base + start, unmapped)
        data_start = unmapped + zone + middle - padded  # the tensor ends where its pages do (but for padding)
        front = zone + (data_start - unmapped - zone)
        buffer = torch.frombuffer(region, dtype=torch.uint8)[unmapped:total - unmapped]
        return _Guarded(buffer, front, nbytes, padded - nbytes + zone, dtype, shape, keep=region)

    def violations(self, names: list[tuple[str, torch.Tensor]]) -> list[GuardViolation]:
        """Every tensor whose zones changed; ``names`` pairs each argument's name with its tensor.
        One synchronize when nothing changed (the usual case), details only when something did."""
        if not self.guarded or int(sum(g.mismatches() for g in self.guarded)) == 0:
            return []
        found = []
        by_tensor = {id(g.tensor): g for g in self.guarded}
        for name, tensor in names:
            guarded = by_tensor.get(id(tensor))
            if guarded is None:
                continue
            after, before = guarded.changed()
            if after or before:
                found.append(GuardViolation(name, _describe(tensor), after, before))
        return found


def _numel(shape) -> int:
    count = 1
    for d in shape:
        count *= int(d)
    return count


def _describe(tensor: torch.Tensor) -> str:
    return f"{str(tensor.dtype).removeprefix('torch.')}[{', '.join(map(str, tensor.shape))}]"


def _mprotect_none(address: int, length: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if libc.mprotect(ctypes.c_void_p(address), ctypes.c_size_t(length), 0) != 0:  # PROT_NONE
        raise OSError(ctypes.get_errno(), "mprotect of a guard region failed")


class Seal:
    """What each tensor argument was before the call: storage, offset, shape, strides, dtype."""

    def __init__(self, names: list[tuple[str, torch.Tensor]]):
        self.entries = [(name, tensor, tensor.detach(), _identity(tensor)) for name, tensor in names]

    @staticmethod
    def _what_changed(before: tuple, after: tuple) -> str:
        labels = ("its storage", "its storage offset", "its shape", "its strides", "its dtype", "its device")
        return ", ".join(label for label, a, b in zip(labels, before, after) if a != b)

    def broken(self) -> list[str]:
        """A message for every argument whose Python object no longer views the judge's buffer."""
        problems = []
        for name, tensor, _, identity in self.entries:
            now = _identity(tensor)
            if now != identity:
                problems.append(f"solve() re-pointed `{name}` instead of writing into it ({self._what_changed(identity, now)} "
                                "changed: Tensor.set_, resize_, as_strided_ or .data =); write the results into the "
                                "tensor the judge passed")
        return problems

    def originals(self) -> list[torch.Tensor]:
        """The tensors as the judge allocated them (aliases made before the call), in order."""
        return [original for _, _, original, _ in self.entries]


def _identity(tensor: torch.Tensor) -> tuple:
    storage = tensor.untyped_storage()
    return (storage.data_ptr(), tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype,
            tensor.device)
