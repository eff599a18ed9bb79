"""The checks of one KernelBench output beyond KernelBench's own (docs/kernelbench.md, issue 47).

KernelBench's check is ``torch.allclose(atol=rtol=1e-4)`` (float32).  Two holes are closed here:

- **Outputs so small that the tolerance accepts zeros** (KernelBench#165: Softmax, FrobeniusNorm,
  Min, L2Norm): where every element of the reference lies within atol of zero, the output is also
  judged relative to its own scale, atol times the reference's largest magnitude
  (``DegenerateOutput``).  Nothing changes for an output of magnitude 1 or more.
- **A lower precision hidden by the tolerance**: a float32 output whose every sampled value is a
  float16 (or bfloat16) value while the reference's are not carries that precision's rounding
  (``PrecisionDowngrade``): an honest float32 answer lands on such a grid about once in 8 000
  values.

On the judge's own trials (signed, wide, kinks: judge/challenge/kernelbench_inputs.py) the
tolerance is relative to the output's scale both ways: atol times the reference's largest
magnitude (1 where that is 0), so that wider inputs do not fail an honest float32 kernel on
rounding that grows with them, and small outputs are judged as above.

Judged at its own scale, an output is still right where it is as close to the float64 answer
as the reference's own float32 answer is, within error_order.ORDER (30) times: some references
are rounding noise (level 2's 23_Conv3d_GroupNorm_Mean is the mean of a GroupNorm's output,
zero but for rounding, about 1e-8), and an answer nearer the truth than torch's is no failure.
The float64 answer is computed only then (the problem's Model copied to float64).

Comparisons are chunked (``compare_chunked``): level 1's ReLU output is 1.6 G elements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch

from judge.challenge.spec_model import Tolerance
from judge.judging.checks import Mismatch, compare_output, unravel
from judge.judging.error_order import ORDER

__all__ = ["ConstantOutput", "DegenerateOutput", "PrecisionDowngrade", "FallbackRan", "compare_chunked",
           "largest_magnitude", "own_scale", "judge_output", "as_accurate", "precision_fingerprint", "equal_input", "CHUNK_ELEMENTS",
           "SAMPLE_ELEMENTS"]

# Outputs are compared this many elements at a time: a 1.6 G-element output (level 1's ReLU) widened to float64
# whole would need 13 GB per copy on the judge's GPU.
CHUNK_ELEMENTS = 1 << 26
SAMPLE_ELEMENTS = 1 << 20  # the values the precision fingerprint reads, evenly spaced through the output
_FINGERPRINT_MIN = 256  # fewer nonzero values than this: no fingerprint (a grid is likely by chance)


@dataclass
class ConstantOutput(Mismatch):
    """An output bit-identical to an earlier call's while the reference's differs: it ignores its inputs."""

    rule = "seed-independent-output"
    earlier: str = ""

    def message(self) -> str:
        return (f"'{self.name}' is bit-identical to {self.earlier}'s, while the reference's output changed with the "
                "inputs: the result does not depend on this call's inputs (a constant, or one kept from an earlier "
                "call)")

    def cause(self) -> str:
        return f"'{self.name}': the same for other inputs"


@dataclass
class DegenerateOutput(Mismatch):
    """An output within KernelBench's tolerance that zeros would pass too, wrong at the reference's own scale."""

    rule = "degenerate-output"
    scale: float = 0.0
    atol: float = 0.0
    constant: float | None = None  # every element of the output holds this value
    scaled: Mismatch = field(default_factory=lambda: Mismatch("", True))

    def message(self) -> str:
        constant = f"; it is constant (every element {self.constant!r})" if self.constant is not None else ""
        detail = self.scaled.message().split(": ", 1)[-1]
        return (f"'{self.name}' passes KernelBench's tolerance, but so would zeros: the reference's largest "
                f"magnitude is {self.scale:.3g}, within atol {self.atol:g}{constant}. Judged relative to its own "
                f"scale (atol x {self.scale:.3g}): {detail}")

    def cause(self) -> str:
        return f"'{self.name}': wrong at its own scale (KernelBench's atol accepts zeros)"


@dataclass
class PrecisionDowngrade(Mismatch):
    """A float32 output carrying float16 or bfloat16 rounding, within the tolerance or not."""

    rule = "precision-downgrade"
    precision: str = ""
    sampled: int = 0

    def message(self) -> str:
        return (f"'{self.name}' is float32, but each of its {self.sampled} nonzero values sampled is a {self.precision} "
                f"value and the reference's are not: it was computed in {self.precision} (a lower precision is no "
                "speed-up of the same answer)")

    def cause(self) -> str:
        return f"'{self.name}': computed in {self.precision}"


@dataclass
class FallbackRan(Mismatch):
    """The call launched none of the solution's Triton kernels, and its file falls back to torch in an except."""

    rule = "fallback-to-reference"
    where: str = ""

    def message(self) -> str:
        return (f"forward() launched none of the solution's Triton kernels in this call, and {self.where}: the answer "
                "came from torch's fallback, not from the kernel")

    def cause(self) -> str:
        return "forward: torch's fallback ran instead of the kernel"


def compare_chunked(name: str, got: torch.Tensor, ref: torch.Tensor, tol: Tolerance,
                    chunk: int = CHUNK_ELEMENTS) -> Mismatch:
    """``checks.compare_output`` over ``chunk`` elements at a time, one result for the whole tensor."""
    if tuple(got.shape) != tuple(ref.shape) or got.numel() <= chunk:
        return compare_output(name, got, ref, tol)
    flat_got, flat_ref = got.reshape(-1), ref.reshape(-1)
    total = Mismatch(name, True, total=got.numel())
    total.max_abs_err = total.max_rel_err = -1.0  # below any error: the chunks' finite maxima replace it
    for start in range(0, got.numel(), chunk):
        part = compare_output(name, flat_got[start:start + chunk], flat_ref[start:start + chunk], tol)
        if part.ok:
            continue
        if total.ok:  # the first bad element, as an index of the whole tensor
            flat = start + part.first_bad_index[0]
            total.first_bad_index = unravel(flat, got.shape)
            total.expected, total.got = part.expected, part.got
        total.ok = False
        total.bad += part.bad
        if math.isfinite(part.max_abs_err):  # a chunk of NaN alone says inf: the whole's maxima are the finite ones
            total.max_abs_err = max(total.max_abs_err, part.max_abs_err)
            total.max_rel_err = max(total.max_rel_err, part.max_rel_err)
    if total.max_abs_err < 0:
        total.max_abs_err = total.max_rel_err = float("inf") if not total.ok else 0.0
    return total


def largest_magnitude(ref: torch.Tensor, chunk: int = CHUNK_ELEMENTS) -> tuple[float, bool]:
    """(the largest finite |element| of ``ref``, whether every element is finite); (0.0, True) for an empty one."""
    if not ref.dtype.is_floating_point:
        return (float(ref.abs().max()) if ref.numel() else 0.0), True
    largest, finite, flat = 0.0, True, ref.reshape(-1)
    for start in range(0, flat.numel(), chunk):
        part = flat[start:start + chunk]
        ok = torch.isfinite(part)
        finite = finite and bool(ok.all())
        if ok.any():
            largest = max(largest, float(part[ok].abs().max()))
    return largest, finite


def own_scale(tol: Tolerance, scale: float) -> Tolerance:
    """``tol`` with its atol relative to the output's scale (its largest magnitude; atol as it is for 0)."""
    return Tolerance(tol.kind, tol.atol * scale if scale > 0 else tol.atol, tol.rtol)


def zeros_pass(tol: Tolerance, scale: float, finite: bool) -> bool:
    """Whether an output of zeros would pass ``tol`` against a reference of largest magnitude ``scale``:
    |ref| <= atol + rtol * |ref| everywhere."""
    return finite and tol.kind == "close" and scale > 0 and scale * (1 - tol.rtol) <= tol.atol


def judge_output(name: str, got: torch.Tensor, ref: torch.Tensor, tol: Tolerance, own_trial: bool,
                 truth: Callable[[], torch.Tensor | None] = lambda: None) -> list[Mismatch]:
    """The checks of one output: first KernelBench's tolerance as it is (on its own inputs) or relative to the
    output's scale (``own_trial``: the judge's inputs), then a degenerate output and a lower precision.  Judged at
    its own scale, an output is still right when it is as close to the float64 answer (``truth()``, None where the
    model cannot run in float64) as the reference is: an output whose reference is rounding noise (a mean of a
    normalization's output, KernelBench's level 2) has no scale of its own to judge it by."""
    if tol.kind != "close":
        return [compare_chunked(name, got, ref, tol)]
    scale, finite = largest_magnitude(ref)
    first = compare_chunked(name, got, ref, own_scale(tol, scale) if own_trial else tol)
    if own_trial and not first.ok and as_accurate(got, ref, truth()):
        first = Mismatch(name, True, total=got.numel())
    found = [first]
    if first.ok and not own_trial and zeros_pass(tol, scale, finite):
        scaled = compare_chunked(name, got, ref, own_scale(tol, scale))
        if not scaled.ok and not as_accurate(got, ref, truth()):
            found.append(DegenerateOutput(name, False, total=scaled.total, bad=scaled.bad, scale=scale, atol=tol.atol,
                                          constant=constant_value(got), scaled=scaled))
    precision = precision_fingerprint(got, ref)
    if precision is not None:
        found.append(PrecisionDowngrade(name, False, total=got.numel(), bad=got.numel(), precision=precision[0],
                                        sampled=precision[1]))
    return found


def as_accurate(got: torch.Tensor, ref: torch.Tensor, truth: torch.Tensor | None) -> bool:
    """Whether ``got``'s largest error against the float64 answer is at most ORDER (30) times the reference's own
    (judging/error_order.py); False without a float64 answer, or where ``got`` is not finite."""
    if truth is None or truth.shape != got.shape:
        return False
    truth = truth.to(torch.float64)
    mine = (got.to(torch.float64) - truth).abs()
    if not bool(torch.isfinite(mine).all()):
        return False
    theirs = (ref.to(torch.float64) - truth).abs()
    theirs = theirs[torch.isfinite(theirs)]
    return float(mine.max()) <= ORDER * (float(theirs.max()) if theirs.numel() else 0.0) if mine.numel() else True


def constant_value(t: torch.Tensor) -> float | None:
    """The value every element of ``t`` holds (two or more elements), else None."""
    if t.numel() < 2 or not t.dtype.is_floating_point:
        return None
    low, high = torch.aminmax(t.reshape(-1))
    return float(low) if bool(low == high) else None


def _sample(t: torch.Tensor) -> torch.Tensor:
    flat = t.detach().reshape(-1)
    step = max(1, flat.numel() // SAMPLE_ELEMENTS)
    return flat[::step][:SAMPLE_ELEMENTS]


def precision_fingerprint(got: torch.Tensor, ref: torch.Tensor) -> tuple[str, int] | None:
    """(``bfloat16`` or ``float16``, values sampled) when a float32 ``got`` holds only values of that precision
    among its nonzero finite ones sampled and fewer than half of the reference's are; else None."""
    if got.dtype != torch.float32 or ref.dtype != torch.float32 or got.shape != ref.shape:
        return None
    mine, theirs = _sample(got), _sample(ref)
    keep = torch.isfinite(mine) & (mine != 0) & torch.isfinite(theirs) & (theirs != 0)
    mine, theirs = mine[keep], theirs[keep]
    if mine.numel() < _FINGERPRINT_MIN:
        return None
    for precision, dtype in (("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        if bool((mine.to(dtype).to(torch.float32) == mine).all()) and \
                float((theirs.to(dtype).to(torch.float32) == theirs).float().mean()) < 0.5:
            return precision, int(mine.numel())
    return None


def equal_input(got: torch.Tensor, inputs: dict[str, torch.Tensor]) -> str | None:
    """The name of an input ``got`` equals bit for bit (returned unchanged), else None."""
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor) and value.shape == got.shape and value.dtype == got.dtype \
                and torch.equal(value, got):
            return name
    return None
