"""Judging a LeetGPU challenge folder: the judge builds the tests with the
challenge's own generators (judge/challenge/leetgpu.py), places each call's
values in the memory it shares with the solution's process (judge/worker/arguments.py)
and checks what that memory holds after the call against the challenge's ``reference_impl``
run in its own process.

Everything else is ``Runner``'s: the worker, its isolation and crash handling,
poisoned outputs, the input checks, the verdicts, and the benchmark stage with
its timing method, guard and audits (every timed call's values drawn again by the
challenge's generator from the call's seed, here, and placed before the call).
"""

from __future__ import annotations

import copy
from dataclasses import replace

import torch

from judge.challenge.cases import Case, CaseSelectionError
from judge.challenge.leetgpu import ShippedCase, build_performance_test, build_tests, expected_outputs, \
    without_asserts
from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET
from judge.challenge.shipped_module import tensors as module_tensors
from judge.challenge.spec import Tensor
from judge.challenge.spec_model import Module, ReferenceError_
from judge.challenge.tensors import TORCH_DTYPES, poison_, poison_value
from judge.judging.checks import Mismatch, compare_input, compare_output, cut_input, precision_explains, errors_against
from judge.judging.error_order import UNIT_ROUNDOFF, OrderCheck, order_note
from judge.judging.reference import within_memory
from judge.worker.arguments import CallArguments
from judge.judging.runner import Runner
from judge.challenge.seeds import case_seed

__all__ = ["ShippedRunner", "ShippedReference", "as_float64"]

_DTYPE_NAMES = {dtype: name for name, dtype in TORCH_DTYPES.items()}


class ShippedReference:
    """Expected outputs and checks of shipped cases, on the judge's device.

    ``call_arguments``/``check`` take ``params`` like ``Reference``'s, for
    the benchmark stage, and answer for the one performance test (``benchmark``,
    a LeetGPU challenge has exactly one) or, given ``case``, for the values a
    timed call got (the performance test drawn again from that call's seed).
    """

    def __init__(self, spec, device: str):
        self.spec, self.device = spec, device
        self.instance = spec.instance(device)
        self.benchmark: ShippedCase | None = None
        self._expected: dict[str, dict] = {}
        self._truth: dict[str, dict | None] = {}  # reference_impl in float64, per test (``truth``)
        self._rounding: dict[str, dict | None] = {}  # float32's rounding on a test's inputs (``rounding_scale``)
        self.accepted_by_order: list[tuple[str, OrderCheck]] = []  # LeetGPU's tolerance rejected, the judge did not

    def expected(self, case: ShippedCase, keep: bool = True) -> dict[str, torch.Tensor]:
        """``reference_impl``'s outputs on the case, kept for the run (``keep``: a test's, not a timed call's)."""
        if not keep:
            return expected_outputs(self.instance, case, self.spec.source)
        if case.name not in self._expected:
            self._expected[case.name] = expected_outputs(self.instance, case, self.spec.source)
        return self._expected[case.name]

    def weights(self, case: ShippedCase) -> list[tuple[str, torch.Tensor]]:
        """(``model.weight``, tensor) of each model argument's parameters: inputs a call must leave unchanged."""
        return [(f"{p.name}.{inner}", value.detach()) for p in self.spec.parameters if isinstance(p, Module)
                for inner, value in module_tensors(case.arguments[p.name], buffers=False)]

    def check_case(self, case: ShippedCase, got: dict[str, torch.Tensor], keep: bool = True) -> list[Mismatch]:
        """Inputs unchanged, outputs within the challenge's atol/rtol of ``reference_impl``'s (``keep``: as
        ``expected``)."""
        expected = self.expected(case, keep)
        results = [compare_input(name, got[name].to(self.device), value) for name, value in self.weights(case)
                   if name in got]  # a model's weights, as its input tensors
        for p in self.spec.parameters:
            if not isinstance(p, Tensor) or p.name not in got:  # timed calls send outputs only
                continue
            returned = got[p.name].to(self.device)
            if p.role == "in":
                results.append(compare_input(p.name, returned, case.arguments[p.name]))
            else:
                poison = poison_value(TORCH_DTYPES[p.dtype]) if p.role == "out" else None
                found = compare_output(p.name, returned, expected[p.name], self.spec.tolerance, None, poison)
                results.append(self.order_of(case, found, returned, expected[p.name], keep))
        return results

    def order_of(self, case: ShippedCase, found: Mismatch, got: torch.Tensor, expected: torch.Tensor,
                 keep: bool) -> Mismatch:
        """An output the tolerance rejected, measured with the reference's own error against ``reference_impl``
        run in float64 (judging/error_order.py): accepted, with a note, when its error is of the reference's
        order; else the rejection, saying how far the two are from the float64 answer."""
        tol = self.spec.tolerance
        if found.ok or found.unwritten or tol.kind != "close" or not got.dtype.is_floating_point:
            return found
        truth = self.truth(case, keep)
        if truth is None or found.name not in truth:
            return found
        wide = truth[found.name]
        order = OrderCheck(found.name, *errors_against(got, wide, tol.atol, tol.rtol),
                           *errors_against(expected, wide, tol.atol, tol.rtol), found.bad, found.total)
        if not order.accepted:
            scale = self.rounding_scale(case, keep)
            if scale is not None and found.name in scale:
                order = replace(order, rounding_units=rounding_units(got, wide, scale[found.name]))
        if not order.accepted:
            found.notes.append(order.why_not())
            return found
        where = case.name if keep else "timed calls of the performance test"
        self.accepted_by_order.append((where, order))
        return Mismatch(found.name, True, total=found.total)

    def truth(self, case: ShippedCase, keep: bool = True) -> dict[str, torch.Tensor] | None:
        """``reference_impl`` on the case's floating tensors (and a model's weights) in float64: the answer
        both the solution and the reference are measured against.  None where it fails in float64 (a
        reference that insists on float32) or the GPU has no room for it (``keep``: as ``expected``)."""
        if keep and case.name in self._truth:
            return self._truth[case.name]
        found = self.truth_of(replace(case, arguments={name: as_float64(v) for name, v in case.arguments.items()}))
        if keep:
            self._truth[case.name] = found
        return found

    def truth_of(self, wide: ShippedCase) -> dict[str, torch.Tensor] | None:
        """``reference_impl`` on ``wide``'s arguments (float64 already), without its asserts if it refuses them
        with one; None where it fails or the GPU has no room for it."""
        for function in (None, "without asserts"):  # a reference that asserts float32 inputs: run without them
            try:
                function = without_asserts(self.instance) if function else None
                return expected_outputs(self.instance, wide, self.spec.source, function)
            except ReferenceError_:
                continue
            except torch.cuda.OutOfMemoryError:
                torch.cuda.empty_cache()
                return None
        return None

    def rounding_scale(self, case: ShippedCase, keep: bool = True) -> dict[str, torch.Tensor] | None:
        """Float32's rounding on the case, per output: ``UNIT_ROUNDOFF * reference_impl(|inputs|)`` in float64, where
        ``reference_impl`` is positively homogeneous on the case (judging/error_order.py); None where it is not (or
        has a model argument, or fails in float64)."""
        if keep and case.name in self._rounding:
            return self._rounding[case.name]
        found = None
        if not any(isinstance(v, torch.nn.Module) for v in case.arguments.values()):
            found = _rounding_scale(self, case)
        if keep:
            self._rounding[case.name] = found
        return found

    def precision_of_case(self, case: ShippedCase, got: dict[str, torch.Tensor], names: list[str]) -> str | None:
        """The narrower precision the failed outputs ``names`` match: ``reference_impl`` on the case's float32
        inputs cut (checks.precision_explains, as Reference.precision_of)."""
        def on_cut_inputs(cut) -> dict[str, torch.Tensor] | None:
            arguments = {name: cut_input(value, case.roles.get(name, "in"), cut)
                         for name, value in case.arguments.items()}
            try:  # expected_outputs runs reference_impl on copies
                return expected_outputs(self.instance, replace(case, arguments=arguments), self.spec.source)
            except Exception:  # noqa: BLE001 - only a hint
                return None

        return precision_explains(got, self.expected(case), names, on_cut_inputs, self.matmul_like())

    def matmul_like(self) -> bool:
        """Whether ``reference_impl`` has a matmul-like operation (hints.matmul_like); True when its source
        cannot be read (the TF32 hint as before)."""
        import inspect

        from judge.judging.hints import matmul_like

        try:
            return matmul_like(inspect.getsource(type(self.instance).reference_impl))
        except (OSError, TypeError, AttributeError):
            return True

    def call_arguments(self, params: dict, seed: int, case: ShippedCase | None = None) -> CallArguments:
        """The arguments of a call on ``case`` (the performance test as a timed call's generator drew it; None:
        the one built for the run), in signature order: its tensors, scalars and model as they are, the out
        tensors it does not initialise poisoned (fresh tensors: the case's own stay as they are)."""
        case = case if case is not None else self.benchmark
        values = []
        for p in self.spec.parameters:
            value = case.arguments[p.name]
            if isinstance(p, Tensor) and p.role == "out" and p.name not in case.kept:
                value = poison_(torch.empty_like(value))
            values.append(value)
        return CallArguments(values, frozenset(case.kept))

    # -- the Reference interface of the benchmark stage ---------------------------------
    # ``case``: the performance test as a timed call's generator drew it (ShippedCase.redraw), whose values
    # that call saw; None: the one built for the run (its warm-up's).
    def check(self, params: dict, seed: int, got: dict[str, torch.Tensor],
              case: ShippedCase | None = None) -> list[Mismatch]:
        """A timed call's outputs against ``reference_impl`` on the values it saw (computed now, not kept)."""
        return within_memory(self.check_case, case if case is not None else self.benchmark, got, case is None)


def _rounding_scale(reference: ShippedReference, case: ShippedCase) -> dict[str, torch.Tensor] | None:
    """``UNIT_ROUNDOFF * reference_impl(|inputs|)`` per output in float64, if ``reference_impl`` is positively
    homogeneous on ``case``: its float64 answer on the floating inputs doubled is ``2**k`` times its answer
    (``1 <= k <= 4``) at every element (doubling is exact: a sum's or a product's float64 answer scales exactly)."""
    inputs = {name for name, role in case.roles.items() if role != "out"}

    def run(transform) -> dict | None:
        arguments = {name: transform(v) if name in inputs and _floating(v) else v
                     for name, v in ((n, as_float64(v)) for n, v in case.arguments.items())}
        return reference.truth_of(replace(case, arguments=arguments))

    once, doubled, magnitudes = run(lambda v: v), run(lambda v: 2 * v), run(torch.abs)
    if once is None or doubled is None or magnitudes is None:
        return None
    scale = {}
    for name, value in once.items():
        degree = _degree(value, doubled[name])
        if degree is None:
            return None
        scale[name] = UNIT_ROUNDOFF * magnitudes[name].abs()
    return scale


def _floating(value) -> bool:
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


def _degree(once: torch.Tensor, doubled: torch.Tensor) -> int | None:
    """k where ``doubled == 2**k * once`` at every element (1 <= k <= 4), else None."""
    if not once.dtype.is_floating_point or once.shape != doubled.shape or not bool(torch.isfinite(doubled).all()):
        return None
    for k in range(1, 5):
        if bool(torch.equal(doubled, once * 2**k)):
            return k
    return None


def rounding_units(got: torch.Tensor, truth: torch.Tensor, scale: torch.Tensor) -> float:
    """The largest ``|got - truth| / scale`` (0 where they are equal, infinite where the scale is 0 and they differ)."""
    got64 = got.to(truth.device, torch.float64)
    err = torch.where(got64 == truth, torch.zeros_like(truth), (got64 - truth).abs())
    if not err.numel():
        return 0.0
    if not bool(torch.isfinite(err).all()):
        return float("inf")
    units = torch.where(err == 0, torch.zeros_like(err), err / scale.to(err.device))
    return float(units.max())


def as_float64(value):
    """A reference argument in float64: floating tensors converted, a model copied in float64, the rest as is."""
    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
        return value.to(torch.float64)
    if isinstance(value, torch.nn.Module):
        return copy.deepcopy(value).to(torch.float64)
    return value


class ShippedRunner(Runner):
    """``Runner`` for a LeetGPU challenge folder (``spec`` is a ``LeetGpuSpec``)."""

    def run(self):
        """The run, and a note for every output LeetGPU's tolerance alone rejected (ShippedReference.order_of)."""
        result = super().run()
        found = self.reference.accepted_by_order if self.reference is not None else []
        if found:
            result.notes.append(order_note(self.spec.tolerance.atol, self.spec.tolerance.rtol, found))
        return result

    def prepare(self) -> list[Case]:
        self.events.status("building the tests with the challenge's generators")
        budget = (self.options.cpu_elements or CPU_ELEMENT_BUDGET) if self.interpret else None
        cases, skipped = build_tests(self.spec, self.device, self.seed, budget)
        if self.interpret:
            self.result.notes.append("CPU mode (Triton interpreter): times are interpreter wall times, not GPU times")
        if skipped:
            self.result.notes.append(
                f"{len(skipped)} functional test(s) above the CPU-mode budget of {budget} tensor elements were not "
                "run: " + "; ".join(f"{c.name} ({c.label()}, {c.elements} elements)" for c in skipped[:4])
                + (" ..." if len(skipped) > 4 else "")
                + f"; --cpu-elements {max(c.elements for c in skipped)} runs them all")
        self.note_rules()
        self.reference = ShippedReference(self.spec, self.device)
        return cases

    def call_worker(self, case: ShippedCase, seed: int) -> tuple[dict, dict]:
        """One call on the test's own values (its generator's), placed in the shared memory."""
        header = self.request_call({"op": "call", **self.place_call(case, seed)},
                                   f"solve() on the {case.name} test ({case.label()})")
        return header, self.worker.results()

    def call_arguments(self, case: ShippedCase, seed: int) -> CallArguments:
        return self.reference.call_arguments(case.params, seed, case)

    def spawn_baseline(self) -> None:
        """Not early: the performance test is built only when the benchmarks run."""

    def check_reply(self, case: ShippedCase, seed: int, header: dict, got: dict) -> list:
        self.last_got = got  # for a hint if the check fails (Runner.precision_hint)
        return within_memory(self.reference.check_case, case, got)

    def precision_of(self, case: ShippedCase, seed: int, names: list[str]) -> str | None:
        return self.reference.precision_of_case(case, self.last_got, names)

    def search_smaller(self, case: Case, outcome) -> None:
        """No search: a LeetGPU test's tensors come from its generator, not from sizes the judge can shrink."""

    def sized_case(self, sizes: str) -> Case:
        """None to make: a LeetGPU test's tensors come from its generator, not from sizes."""
        raise CaseSelectionError(f"--sizes {sizes}: a LeetGPU challenge folder's tests come from its generators, "
                                 "not from sizes; --case NAME judges one of them alone (the run lists their names)")

    def benchmark_cases(self) -> list[ShippedCase]:
        """The challenge's performance test, built now (only a GPU run with benchmarks needs it)."""
        self.events.status("building the performance test")
        self.reference.benchmark = build_performance_test(
            self.spec, self.device, case_seed(self.seed, "performance"))
        return [self.reference.benchmark]
