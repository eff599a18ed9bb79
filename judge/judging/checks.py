"""Comparing a solution's outputs with the reference, and inputs with their
pristine copies.  Pure computation on tensors (whatever device they are on);
no I/O.

Tolerance kinds (docs/spec-format.md):

- ``exact``: bit-for-bit equal values (``-0.0 == 0.0``); for pure data movement.
- ``close``: ``|got - ref| <= atol + rtol * |ref|`` elementwise.
- ``summation``: ``|got - ref| <= atol + rtol * scale`` where ``scale`` is the
  reference applied to the absolute values of the inputs (for a dot product,
  ``sum |a_k * b_k|``).  That is the quantity in which the classical error
  bounds of floating-point summation are stated, so any order of summation
  in the right precision passes, while cancellation in ``ref`` cannot make the
  test impossibly tight, nor can a lower precision hide under a loose atol.

NaN never matches anything, and neither does an infinity of the wrong sign.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from judge.challenge.spec import Tolerance

__all__ = ["Mismatch", "compare_output", "compare_input", "model_explains", "precision_explains", "cut_input", "to_tf32",
           "rounded_to", "errors_against", "failed_alike", "unravel"]


def unravel(flat: int, shape) -> tuple[int, ...]:
    """The index of the element at ``flat`` in a row-major tensor of ``shape``: torch.unravel_index's answer in
    plain integers, without the torch.fx and sympy that its first call imports (1.4 s of every served run's
    first wrong answer: the server does not import them)."""
    index = []
    for size in reversed(tuple(shape)):
        flat, position = divmod(flat, size) if size else (flat, 0)
        index.append(position)
    return tuple(reversed(index))


@dataclass
class Mismatch:
    """What was wrong with one tensor; ``ok`` when nothing was."""

    name: str
    ok: bool
    total: int = 0
    bad: int = 0
    unwritten: int = 0
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    first_bad_index: tuple = ()
    expected: float | None = None
    got: float | None = None
    modified_input: bool = False
    notes: list = field(default_factory=list)
    positions: int = 0  # a checksum of the failed elements' flat indices (``same_failure``)
    poison_text: str = "NaN"  # the value outputs start as, in words (message)
    first_unwritten: bool = False  # the first failed element still holds the poison

    def message(self) -> str:
        """One line: how many elements differ, how many of them were never written (said once, in words),
        the error of those written, and the first failed element; no "inf"/"nan" for elements never written."""
        if self.ok:
            return ""
        if self.modified_input:
            return (f"input '{self.name}' was modified: {self.bad} of {self.total} elements changed, "
                    f"first at {_index(self.first_bad_index)} (was {self.expected!r}, now {self.got!r})")
        if self.unwritten and self.unwritten == self.bad:
            parts = [f"'{self.name}': {self.bad} of {self.total} elements never written ({self._unwritten_why()})",
                     f"first at {_index(self.first_bad_index)}: expected {self.expected!r}"]
            return "; ".join(parts + self.notes)
        parts = [f"'{self.name}': {self.bad} of {self.total} elements differ"]
        if self.unwritten:
            parts.append(f"{self.unwritten} of them never written ({self._unwritten_why()})")
        where = " where written" if self.unwritten else ""
        parts.append(f"max abs err {self.max_abs_err:.3g}, max rel err {self.max_rel_err:.3g}{where}")
        got = f"{self.got!r} (never written)" if self.first_unwritten else repr(self.got)
        parts.append(f"first at {_index(self.first_bad_index)}: expected {self.expected!r}, got {got}")
        return "; ".join(parts + self.notes)

    def _unwritten_why(self) -> str:
        return (f"they still hold {self.poison_text}, the value every output starts as: no store reached them, "
                "or the kernel added to them without zeroing first")

    def same_failure(self, other: "Mismatch") -> bool:
        """Whether ``other`` (the same output, from another call on the same inputs) failed in exactly the same
        elements, as many of them unwritten: not whether their wrong values are equal, since an honest
        reduction by atomics may round differently from call to call."""
        return (self.ok, self.name, self.total, self.bad, self.unwritten, self.positions, self.modified_input) == \
            (other.ok, other.name, other.total, other.bad, other.unwritten, other.positions, other.modified_input)

    def cause(self) -> str:
        """What went wrong, without the numbers: failures alike share it (judging/failures.py)."""
        if self.modified_input:
            return f"input '{self.name}' modified"
        if not self.total:
            return f"'{self.name}': wrong shape"
        if self.unwritten == self.bad == self.total:
            return f"'{self.name}': never written"
        if self.unwritten == self.bad:
            return f"'{self.name}': some elements never written"
        return f"'{self.name}': wrong values" + (", some never written" if self.unwritten else "")


def _index(index: tuple) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _scalar(t: torch.Tensor):
    value = t.item()
    return round(value, 8) if isinstance(value, float) else value


def compare_output(name: str, got: torch.Tensor, ref: torch.Tensor, tol: Tolerance,
                   scale: torch.Tensor | None = None, poison=None) -> Mismatch:
    """Check one output; ``scale`` is required for ``summation`` tolerances."""
    if tuple(got.shape) != tuple(ref.shape):
        return Mismatch(name, False, notes=[f"shape {tuple(got.shape)} != expected {tuple(ref.shape)}"])
    if tol.kind == "exact":
        # No widening: an exact comparison needs none, and 1G-element outputs
        # (a 32768^2 transpose) would need 8 GiB per widened copy.
        good = got.to(ref.dtype) == ref
        got64 = ref64 = err = None
    else:
        got64, ref64 = _widen(got), _widen(ref)
        err = (got64 - ref64).abs()
        if tol.kind == "close":
            bound = tol.atol + tol.rtol * ref64.abs()
        elif scale is None:
            raise ValueError("a summation tolerance needs the scale tensor")
        else:
            bound = tol.atol + tol.rtol * _widen(scale).abs()
        # An infinite error is never within tolerance, even of an infinite
        # bound; equal infinities pass through ``got == ref``; NaN fails both.
        good = (got64 == ref64) | (torch.isfinite(err) & (err <= bound))
    bad_mask = ~good
    bad = int(bad_mask.sum())
    result = Mismatch(name, bad == 0, total=got.numel(), bad=bad)
    if bad:
        if got64 is None:
            got64, ref64 = _widen(got), _widen(ref)
            err = (got64 - ref64).abs()
        _describe_failure(result, got64, ref64, err, bad_mask, poison)
    return result


def _widen(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.float64) if t.dtype.is_floating_point or t.dtype == torch.bool else t.to(torch.int64)


def _describe_failure(result: Mismatch, got, ref, err, bad_mask, poison) -> None:
    """Fill in the counts, the errors of the elements written (an element still holding the poison has no
    error worth a number) and the first failed element."""
    unwritten = None
    if poison is not None:
        is_poison = torch.isnan(got) if isinstance(poison, float) else (got == poison)
        unwritten = is_poison & bad_mask
        result.unwritten = int(unwritten.sum())
        result.poison_text = "NaN" if isinstance(poison, float) else repr(poison)
        if result.unwritten and not isinstance(poison, bool):  # True: a bool's poison and a legal value alike
            result.notes += _tail_note(unwritten)
    measured = bad_mask if unwritten is None else bad_mask & ~unwritten
    finite = torch.isfinite(err) & measured
    if finite.any():
        errs = err[finite]
        result.max_abs_err = float(errs.max())
        rel = errs / ref[finite].abs().clamp_min(torch.finfo(torch.float64).tiny)
        result.max_rel_err = float(rel.max())
    else:
        result.max_abs_err = result.max_rel_err = float("inf")
    flat_bad = bad_mask.reshape(-1).nonzero().reshape(-1)
    result.positions = int((flat_bad * 2654435761 % 4294967291).sum())  # wraps alike in every call
    flat = int(flat_bad[0])
    index = unravel(flat, got.shape)
    result.first_bad_index = index
    result.expected, result.got = _scalar(ref[index]), _scalar(got[index])
    result.first_unwritten = unwritten is not None and bool(unwritten[index])


def _tail_note(unwritten: torch.Tensor) -> list[str]:
    """Where the unwritten elements are exactly the last ones in memory order, or all those outside a
    leading block of every dimension (the last rows, the last columns, or both: the L of a 2-D grid),
    the commonest cause: a grid one block short (N // BLOCK instead of cdiv)."""
    count, flat = int(unwritten.sum()), unwritten.reshape(-1)
    if count < flat.numel() and bool(flat[-count:].all()):
        where = f"the last {count} in memory order"
    else:
        where = _outside_leading_block(unwritten)
    if where is None:
        return []
    return [f"the unwritten elements are {where}: does the grid cover the last partial block "
            "(triton.cdiv(n, BLOCK) programs, each store masked)?"]


def _outside_leading_block(unwritten: torch.Tensor) -> str | None:
    """``every index 16 and above of dimension 1`` where the written elements are exactly a block
    ``[0:e0, 0:e1, ...]`` smaller than the tensor (None otherwise, or when nothing was written)."""
    written = ~unwritten
    if not bool(written.any()) or bool(written.all()):
        return None
    extents = []
    for dim in range(written.dim()):
        along = written.movedim(dim, 0).reshape(written.shape[dim], -1).any(dim=1)
        extents.append(int(along.nonzero().max()) + 1)
    block = torch.zeros_like(written)
    block[tuple(slice(0, e) for e in extents)] = True
    if not torch.equal(block, written):
        return None
    cut = [f"every index {e} and above of dimension {d}" for d, e in enumerate(extents) if e < written.shape[d]]
    return " and ".join(cut)


def failed_alike(first: list[Mismatch], again: list[Mismatch]) -> bool:
    """Whether two calls on the same inputs failed in the same way: the same outputs failed, each in the same
    elements (``Mismatch.same_failure``).  A call that passed (``again`` all ok) did not fail alike."""
    first_bad = {m.name: m for m in first if not m.ok and not m.modified_input}
    again_bad = {m.name: m for m in again if not m.ok and not m.modified_input}
    return first_bad.keys() == again_bad.keys() and all(m.same_failure(again_bad[n]) for n, m in first_bad.items())


def errors_against(got: torch.Tensor, truth: torch.Tensor, atol: float, rtol: float) -> tuple[float, float]:
    """(the worst element's error in units of a ``close`` tolerance, ``|got - truth| / (atol + rtol * |truth|)``,
    1.0 at its edge; the largest absolute error) against ``truth`` (judging/error_order.py).  Both infinite
    where an element is NaN or infinite and ``truth``'s is not the same."""
    got64, truth64 = _widen(got.to(truth.device)), _widen(truth)
    same = got64 == truth64  # equal infinities included
    err = torch.where(same, torch.zeros_like(got64), (got64 - truth64).abs())
    if not err.numel():
        return 0.0, 0.0
    if not bool(torch.isfinite(err).all()):
        return float("inf"), float("inf")
    bound = atol + rtol * truth64.abs()
    units = torch.where(err == 0, torch.zeros_like(err), err / bound)  # a zero tolerance: inf where it differs
    return float(units.max()), float(err.max())


def model_explains(got: torch.Tensor, exact: torch.Tensor, model: torch.Tensor) -> bool:
    """Whether ``got`` is ``model``'s answer (the reference at a narrower precision): far closer (10x) to it
    than to the exact one, where the narrower precision changes the answer at all.  Rounding is deterministic,
    so two answers of one precision differ only by their summation order."""
    if not (got.dtype.is_floating_point and exact.dtype.is_floating_point):
        return False  # a count or a flag that rounding flips is no matmul's precision
    got64, exact64, tf64 = (t.to(torch.float64) for t in (got, exact, model))
    if not (torch.isfinite(got64).all() and torch.isfinite(tf64).all()):
        return False
    off_exact, off_tf32 = float((got64 - exact64).abs().max()), float((got64 - tf64).abs().max())
    changed = float((tf64 - exact64).abs().max())
    return changed > 0 and off_tf32 <= 0.1 * off_exact


def rounded_to(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``t`` rounded to ``dtype`` (to nearest, as a store's conversion does) and back to its own type."""
    return t.to(dtype).to(t.dtype)


# The narrower precisions an input may have been cut to, in the order they are tried; TF32 only where the
# challenge has a matmul-like operation (hints.matmul_like), rounded (Ampere's cvt.rna) or truncated (an H200).
INPUT_CUTS = {
    "TF32": (lambda t: to_tf32(t, False), lambda t: to_tf32(t, True)),
    "float16 inputs": (lambda t: rounded_to(t, torch.float16),),
    "bfloat16 inputs": (lambda t: rounded_to(t, torch.bfloat16),),
}
OUTPUT_ROUNDINGS = (("float16 output", torch.float16), ("bfloat16 output", torch.bfloat16))


def precision_explains(got: dict, exact: dict, names: list[str], on_cut_inputs, matmul_like: bool) -> str | None:
    """The narrower precision that explains every failed output in ``names`` (``model_explains``), or None:
    ``float16 output``/``bfloat16 output`` where the output is the right answer rounded so; ``TF32`` (only
    where ``matmul_like``), ``float16 inputs``, ``bfloat16 inputs`` where the reference on inputs cut so is.
    ``on_cut_inputs(cut)``: the reference's outputs by name on the inputs through ``cut``, or None if it failed."""
    if not names or any(name not in got or name not in exact for name in names):
        return None

    def explained(model: dict | None) -> bool:
        return model is not None and all(name in model and model_explains(
            got[name].to(exact[name].device), exact[name], model[name]) for name in names)

    for key, dtype in OUTPUT_ROUNDINGS:
        if explained({name: rounded_to(exact[name], dtype) for name in names
                      if exact[name].dtype.is_floating_point}):
            return key
    for key, cuts in INPUT_CUTS.items():
        if (key != "TF32" or matmul_like) and any(explained(on_cut_inputs(cut)) for cut in cuts):
            return key
    return None


def cut_input(value, role: str, cut):
    """A reference argument at a narrower precision: float32 inputs through ``cut``, everything else as it is."""
    if isinstance(value, torch.Tensor) and value.dtype == torch.float32 and role != "out":
        return cut(value)
    return value


def to_tf32(t: torch.Tensor, truncate: bool = False) -> torch.Tensor:
    """float32 values cut to TF32's 10-bit mantissa: rounded to nearest (Triton's cvt.rna before an Ampere
    mma), or truncated (what an H200's tensor cores gave tl.dot's tf32, measured: docs/benchmarks.md)."""
    t = t.to(torch.float32).contiguous()
    bits = t.view(torch.int32)
    cut = ((bits if truncate else bits + 0x1000) & ~0x1FFF).view(torch.float32)
    return torch.where(torch.isfinite(t), cut, t)  # a NaN's payload must not carry into ±0


def compare_input(name: str, after: torch.Tensor, before: torch.Tensor) -> Mismatch:
    """An input must come back bit-identical (NaN inputs compare by their bits)."""
    if tuple(after.shape) != tuple(before.shape) or after.dtype != before.dtype:
        return Mismatch(name, False, modified_input=True, notes=["shape or dtype changed"])
    a = after.contiguous().view(-1).view(torch.uint8) if after.numel() else after
    b = before.contiguous().view(-1).view(torch.uint8) if before.numel() else before
    if torch.equal(a, b):
        return Mismatch(name, True, total=after.numel())
    changed = (after != before) & ~(torch.isnan(after) & torch.isnan(before)) \
        if after.dtype.is_floating_point else after != before
    bad = int(changed.sum())
    result = Mismatch(name, False, total=after.numel(), bad=max(bad, 1), modified_input=True)
    if bad:
        flat = int(changed.reshape(-1).nonzero()[0])
        index = unravel(flat, after.shape)
        result.first_bad_index = index
        result.expected, result.got = _scalar(before[index]), _scalar(after[index])
    return result
