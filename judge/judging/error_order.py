"""Whether an answer that a LeetGPU tolerance rejects is as close to the truth as the reference's own.

A LeetGPU challenge compares with its float32 ``reference_impl`` elementwise, ``|got - ref| <= atol +
rtol * |ref|``.  For a long float32 accumulation (a prefix sum of 250 000 values) the reference's answer
is one rounding of many: an honest solution that sums in another order differs from it by the two
errors together, and where the tolerance is of the order of those errors the verdict depends on the
seed (issue 39: a blocked Triton scan, accepted in one run of ``medium/16_prefix_sum`` and rejected in
another).  So when the tolerance rejects an output, the judge runs ``reference_impl`` again in float64
on the same inputs (the truth, for these sizes) and measures both float32 answers against it.  The
solution is **of the reference's order** when

- it is within the challenge's own tolerance of the float64 answer (``err / (atol + rtol * |truth|)``
  at most 1 at every element), or
- its largest absolute error is at most ``ORDER`` (30) times the reference's.

The second measure is the largest error, not the largest error in units of the tolerance: near a zero
of the output (a prefix sum crossing 0) the tolerance shrinks to ``atol`` and that ratio swings with
whichever answer happens to round worse there.  The factor is measured (scripts/scan_order_sim.py, on
the CPU with float32 arithmetic in a GPU's orders, LeetGPU's data, N = 1 000 ... 250 000): honest
orders of a prefix sum (a tree scan; blocked scans of 256, 1 024 and 4 096) have largest errors up to
18 times one another's, while the same blocked scan of inputs read in half precision is 63 to 2 500 times
the worst honest order.  30 sits between the two.

A reference that adds in float64 itself (``medium/4_reduction``: ``torch.sum(input.double()).float()``) has no
error of its own beyond one final rounding, so the second measure cannot tell an honest float32 order from a bad
one, and on inputs that cancel (a sum near zero, where the tolerance shrinks to ``atol``) every float32 order is
rejected on some seeds (issue 45: ``output[:] = torch.sum(input)`` was a wrong answer in one run and accepted in
the next).  So where the reference is positively homogeneous on the case (its float64 answer on doubled inputs
is ``2**k`` times its answer, ``k >= 1``: sums, products, matrix products, convolutions, prefix sums, norms;
not exp or softmax), the solution is also of the reference's order when

- its error is at most ``ORDER`` times float32's unit roundoff times ``reference_impl`` of the inputs'
  absolute values in float64, at every element: the forward error bound of float32 arithmetic on these
  inputs (``rounding_units`` at most ``ORDER``).

Measured (scripts/sum_order_sim.py, float32 arithmetic on the CPU, LeetGPU's data): honest sums of 10 000
values in [-1000, 1000] (pairwise, 256 and 4 096 threads each adding a strided share, blocks of 1 024 added in
turn) err by at most 0.1 of that scale, LeetGPU's tolerance rejecting each order on 0.5-1 % of seeds; inputs read
in half precision err by 128.

The judge then accepts the output, with a note that LeetGPU's tolerance, not the algorithm, rejected it
(LeetGPU's own checker may still reject it on some inputs); otherwise the rejection stands and its
message says how far both answers are from the float64 one.

Pure: numbers in, a decision and a sentence out (checks.errors_against measures the errors).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ORDER", "UNIT_ROUNDOFF", "OrderCheck", "of_reference_order", "order_note"]

ORDER = 30.0
UNIT_ROUNDOFF = 2.0**-24  # float32's


@dataclass(frozen=True)
class OrderCheck:
    """One output's errors against the float64 run: in units of the tolerance (1.0: at its edge) and absolute."""

    name: str
    solution_units: float
    solution_abs: float
    reference_units: float
    reference_abs: float
    bad: int  # elements the tolerance rejected against the float32 reference
    total: int
    # The largest error in units of float32's rounding on these inputs (UNIT_ROUNDOFF * reference_impl(|inputs|));
    # None where the reference is not homogeneous on the case (then this measure says nothing).
    rounding_units: float | None = None

    @property
    def accepted(self) -> bool:
        return self.by_reference or self.by_rounding

    @property
    def by_reference(self) -> bool:
        return of_reference_order(self.solution_units, self.solution_abs, self.reference_abs)

    @property
    def by_rounding(self) -> bool:
        return self.rounding_units is not None and self.rounding_units <= ORDER  # NaN compares False

    def why_not(self) -> str:
        """What a rejection's message adds when the float64 run shows an error of a larger order."""
        return (f"against reference_impl run in float64, {self.errors()}: an error of a larger order than the "
                "reference's own rounding")

    def errors(self) -> str:
        rounding = ("" if self.rounding_units is None else
                    f", {_units(self.rounding_units)} float32's rounding on these inputs (2^-24 x reference_impl of "
                    "their absolute values)")
        return (f"your largest error is {self.solution_abs:.3g} ({_units(self.solution_units)} the tolerance"
                f"{rounding}) and the reference's own float32 answer's {self.reference_abs:.3g} "
                f"({_units(self.reference_units)})")


def order_note(atol: float, rtol: float, found: list[tuple[str, OrderCheck]]) -> str:
    """The run's note on the outputs it accepted although the tolerance rejected them: ``found`` is (where,
    check) for each, in order (``where``: "functional-3", "timed calls of the performance test")."""
    where = list(dict.fromkeys(w for w, _ in found))
    worst_where, worst = max(found, key=lambda item: item[1].solution_abs / max(item[1].reference_abs, 1e-300))
    places = ", ".join(where[:5]) + (f" and {len(where) - 5} more" if len(where) > 5 else "")
    return (f"LeetGPU's tolerance, not an error of your algorithm's order: on {places}, some elements of "
            f"'{worst.name}' are outside atol={atol:g}, rtol={rtol:g} of reference_impl's float32 answer, but "
            f"against reference_impl run in float64 (on {worst_where}: {worst.bad} of {worst.total} elements "
            f"outside) {worst.errors()}: your error is of the reference's order (within the tolerance of the "
            f"float64 answer, or at most {ORDER:g} times the reference's largest error or float32's rounding on "
            "these inputs), so the judge accepts it. "
            "LeetGPU's own checker compares with the float32 answer and may reject this solution on some inputs")


def of_reference_order(solution_units: float, solution_abs: float, reference_abs: float) -> bool:
    """Whether a solution is as close to the float64 answer as the reference: within the tolerance of it
    (``solution_units`` <= 1), or its largest error at most ``ORDER`` times the reference's."""
    if solution_units <= 1.0:
        return True
    return reference_abs > 0 and solution_abs <= ORDER * reference_abs  # NaN compares False: rejected


def _units(value: float) -> str:
    return "infinitely many times" if value == float("inf") else f"{value:.3g}x"
