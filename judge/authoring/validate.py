"""``judge validate``: checks that a challenge spec can judge fairly.

Loading a spec already checks every field (spec.py).  This module goes further
and runs the spec's reference on the CPU at small sizes, then asks whether
the tolerance accepts what a correct solution could return and rejects what a
wrong one would.  What is generic, and what is not:

- "another computation" is the reference run on inputs widened to float64 and
  rounded back, the reference run in the tensors' own precision (when the spec
  sets ``reference_dtype``), and the expected output moved by one ulp.  Those
  change rounding and, through torch's kernels, often the order of sums; but
  validate cannot know which dimensions a reference reduces over, so it does
  not shuffle a reduction itself.  Prove order independence for your own
  reductions with tests (tests/test_challenges.py does it for the built-ins).
- "a wrong answer" is all zeros, the output shifted by one element, and the
  reference computed from inputs rounded to bfloat16 (a precision downgrade).

Pure computation on CPU tensors: no worker, no Triton, no GPU.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import torch

from judge.challenge import expr
from judge.challenge.cases import call_seed, describe, generate_cases, limits_for
from judge.challenge.exact_math import exact_math
from judge.judging.checks import compare_output
from judge.judging.reference import Reference
from judge.challenge.spec import Spec, Tensor, load_specs
from judge.challenge.tensors import TORCH_DTYPES, make_arguments, poison_value

__all__ = ["Check", "SpecReport", "validate_spec", "validate_file", "sample_sizes"]

MAX_CORNERS = 1024  # 2**10: specs with more size parameters get their first 1024 corners checked
SEED = 20260101
WIDE_FLOATS = (torch.float32, torch.float64)


@dataclass
class Check:
    """One check of one spec: ``ok`` is True, False, or None when skipped."""

    name: str
    ok: bool | None
    detail: str = ""

    @property
    def status(self) -> str:
        return {True: "passed", False: "failed", None: "skipped"}[self.ok]


@dataclass
class SpecReport:
    name: str
    source: str
    checks: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok is not False for c in self.checks)

    def as_dict(self) -> dict:
        return {"name": self.name, "source": self.source, "ok": self.ok,
                "checks": [{"name": c.name, "status": c.status, "detail": c.detail} for c in self.checks]}


def validate_file(path) -> list[SpecReport]:
    """Every spec of one file (base and variants); raises SpecError if it does not load."""
    return [validate_spec(spec) for spec in load_specs(path)]


def validate_spec(spec: Spec) -> SpecReport:
    """Run every check on one loaded spec."""
    report = SpecReport(spec.name, spec.source)
    report.checks += [check_corners(spec), check_sizes(spec)]
    sizes = sample_sizes(spec)
    try:
        reference = Reference(spec, "cpu")
        runs = [_Run(spec, reference, params) for params in sizes]
    except Exception as exc:  # noqa: BLE001 - the author's code: report, do not crash
        report.checks.append(Check("reference runs", False, f"{type(exc).__name__}: {exc}"))
        return report
    report.checks.append(_guarded("reference runs", lambda: check_reference(spec, reference, runs)))
    if report.checks[-1].ok is False:
        return report  # nothing below means anything without a working reference
    checks = [
        ("summation scale", lambda: check_scale(spec, runs)),
        ("accepts float64", lambda: check_accepts_float64(spec, reference, runs)),
        ("accepts working precision", lambda: check_accepts_working_precision(spec, reference, runs)),
        ("accepts baseline", lambda: check_accepts_baseline(spec, runs)),
        ("accepts one ulp", lambda: check_accepts_one_ulp(spec, runs)),
        ("rejects zeros", lambda: check_rejects_zeros(spec, runs)),
        ("rejects shifted", lambda: check_rejects_shift(spec, runs)),
        ("rejects bf16 inputs", lambda: check_rejects_bf16_inputs(spec, reference, runs)),
    ]
    report.checks += [_guarded(name, check) for name, check in checks]
    return report


def _guarded(name: str, check) -> Check:
    """The check's result, or a failed check when the spec's own code raises (e.g. in float64)."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - the author's reference or baseline: report, do not crash
        return Check(name, False, f"the spec's code raised {type(exc).__name__}: {exc}")


# -- formulas and sizes --------------------------------------------------------
def _corners(ranges: dict) -> list[dict]:
    names = list(ranges)
    ends = [sorted({lo, hi}) for lo, hi in ranges.values()]
    return [dict(zip(names, values)) for values in itertools.islice(itertools.product(*ends), MAX_CORNERS)]


def check_corners(spec: Spec) -> Check:
    """Every formula at every corner of the ranges and of the CPU-mode caps."""
    corners = _corners(spec.sizes) + _corners(limits_for(spec, interpret=True))
    for params in corners:
        for name, value, integral in _formulas(spec):
            try:
                result = expr.evaluate(value, params)
            except expr.ExprError as exc:
                return Check("formulas", False, f"{name} at {describe(params)}: {exc}")
            if isinstance(result, bool) or not isinstance(result, (int, float)) or result < 0:
                return Check("formulas", False, f"{name} = {result!r} at {describe(params)}: expected a number >= 0")
            if integral and float(result) != int(result):
                return Check("formulas", False, f"{name} = {result!r} at {describe(params)}: "
                                                "a dimension must be a whole number (use // or cdiv)")
        for c in spec.constraints:
            try:
                expr.evaluate(c, params)
            except expr.ExprError as exc:
                return Check("formulas", False, f"constraint {c!r} at {describe(params)}: {exc}")
    return Check("formulas", True, f"shapes, scalars, cost and constraints evaluate at {len(corners)} corners "
                                   "of the size ranges and CPU-mode caps")


def _formulas(spec: Spec):
    for p in spec.parameters:
        if isinstance(p, Tensor):
            for j, dim in enumerate(p.shape):
                yield f"{p.name}.shape[{j}]", dim, True
        elif p.dtype == "int":
            yield f"{p.name} (scalar)", p.value, True
    yield "cost.bytes", spec.bytes_formula, False
    yield "cost.flops", spec.flops_formula, False


def check_sizes(spec: Spec) -> Check:
    """Explicit sizes satisfy the constraints, and both modes have cases to run."""
    named = [(f"tests.sizes '{t.name}'", t.params) for t in spec.tests]
    named += [(f"benchmark '{b.name}'", b.params) for b in spec.benchmarks]
    named.append(("example", spec.example))
    for label, params in named:
        if not spec.satisfies(params):
            return Check("sizes", False, f"{label} ({describe(params)}) breaks a constraint: "
                                         f"{'; '.join(spec.constraints)}")
    cpu, gpu = generate_cases(spec, SEED, interpret=True), generate_cases(spec, SEED, interpret=False)
    if not cpu or not gpu:
        return Check("sizes", False, f"no size satisfies the constraints in {'CPU' if not cpu else 'GPU'} mode")
    return Check("sizes", True, f"{_count(spec.tests, 'test')}, {_count(spec.benchmarks, 'benchmark')} and the "
                                f"example satisfy the constraints; {_count(cpu, 'CPU-mode case')}, "
                                f"{_count(gpu, 'GPU case')}")


def _count(items, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def sample_sizes(spec: Spec) -> list[dict]:
    """Small sizes to run the reference at: smallest, the example, 17s and the CPU-mode caps."""
    limits = limits_for(spec, interpret=True)
    candidates = [
        {n: lo for n, (lo, _) in limits.items()},
        dict(spec.example),
        {n: min(max(lo, 17), hi) for n, (lo, hi) in limits.items()},
        {n: hi for n, (_, hi) in limits.items()},
    ]
    sizes = []
    for params in candidates:
        if params not in sizes and spec.satisfies(params):
            sizes.append(params)
    return sizes or [c.params for c in generate_cases(spec, SEED, interpret=True)[:2]]


# -- the reference and what the tolerance accepts -------------------------------
class _Run:
    """The judge's view of one size: arguments, expected outputs and scales."""

    def __init__(self, spec: Spec, reference: Reference, params: dict):
        self.params = params
        self.args = make_arguments(spec, params, call_seed(SEED, "validate", 0), "cpu")
        self.expected = reference.expected(self.args)
        summation = spec.tolerance.kind == "summation"
        self.scale = reference.scale(self.args) if summation else {}
        self.outputs = [p for p in spec.parameters if isinstance(p, Tensor) and p.role != "in"]

    def judged(self, spec: Spec, got: dict) -> str:
        """'' when ``got`` passes the spec's tolerance, else the first mismatch."""
        for p in self.outputs:
            value = got[p.name].to(TORCH_DTYPES[p.dtype])  # what a solution could store
            result = compare_output(p.name, value, self.expected[p.name], spec.tolerance, self.scale.get(p.name))
            if not result.ok:
                return f"at {describe(self.params)}: {result.message()}"
        return ""


def _unwritten(p: Tensor, value: torch.Tensor) -> int:
    poison = poison_value(TORCH_DTYPES[p.dtype])
    if p.role != "out" or value.dtype == torch.bool:
        return 0
    return int((torch.isnan(value) if isinstance(poison, float) else value == poison).sum())


def check_reference(spec: Spec, reference: Reference, runs: list) -> Check:
    """Writes every output element, finite, and the same twice."""
    for run in runs:
        for p in run.outputs:
            value = run.expected[p.name]
            if _unwritten(p, value):
                return Check("reference runs", False, f"at {describe(run.params)}: leaves {_unwritten(p, value)} "
                                                      f"element(s) of '{p.name}' unwritten (or NaN)")
            if value.dtype.is_floating_point and not torch.isfinite(value).all():
                return Check("reference runs", False, f"at {describe(run.params)}: '{p.name}' holds inf or NaN; "
                                                      "no solution could match it")
        again = reference.expected(run.args)
        for name, value in run.expected.items():
            if not torch.equal(value, again[name]):
                return Check("reference runs", False, f"at {describe(run.params)}: '{name}' differs between two "
                                                      "runs on the same inputs (a random or racy reference?)")
    where = "; ".join(describe(r.params) for r in runs)
    return Check("reference runs", True, f"at {where}: writes every output element, finite, deterministic")


def check_scale(spec: Spec, runs: list) -> Check:
    """A summation scale, reference(|inputs|), bounds |reference(inputs)|: the output is a sum."""
    if spec.tolerance.kind != "summation":
        return Check("summation scale", None, f"{spec.tolerance.kind} tolerance")
    for run in runs:
        for name, scale in run.scale.items():
            ref = run.expected[name].to(torch.float64).abs()
            if not torch.isfinite(scale).all() or (scale.to(torch.float64) < ref * (1 - 1e-9)).any():
                return Check("summation scale", False, f"at {describe(run.params)}: reference(|inputs|) is not >= "
                                                       f"|reference(inputs)| for '{name}', so the output is no sum "
                                                       "of products of inputs; use kind: close")
    return Check("summation scale", True, "reference(|inputs|) bounds |reference(inputs)| at every sample size")


def _call(spec: Spec, reference: Reference, args: list, dtype=None) -> dict:
    """The reference function itself on copies of ``args``, floats converted to ``dtype``."""
    work = []
    for value, p in zip(args, spec.parameters):
        if isinstance(p, Tensor):
            value = value.clone()
            if dtype is not None and value.dtype.is_floating_point:
                value = value.to(dtype)
        work.append(value)
    with torch.no_grad(), exact_math():
        reference.function(*work)
    return {p.name: work[i] for i, p in enumerate(spec.parameters) if isinstance(p, Tensor) and p.role != "in"}


def _accepts(spec: Spec, runs: list, name: str, make_got, what: str) -> Check:
    for run in runs:
        problem = run.judged(spec, make_got(run))
        if problem:
            return Check(name, False, f"{what}: rejected {problem}")
    return Check(name, True, f"{what}: accepted at all {len(runs)} sample sizes")


def _rejects(spec: Spec, runs: list, name: str, make_got, what: str) -> Check:
    tried = 0
    for run in runs:
        got = make_got(run)
        if got is None:
            continue
        tried += 1
        if not run.judged(spec, got):
            return Check(name, False, f"{what}: accepted at {describe(run.params)}, so a wrong answer would pass")
    if not tried:
        return Check(name, None, f"{what}: equal to the expected output at every sample size")
    return Check(name, True, f"{what}: rejected at all {tried} sample sizes where it differs")


def check_accepts_float64(spec: Spec, reference: Reference, runs: list) -> Check:
    return _accepts(spec, runs, "accepts float64", lambda r: _call(spec, reference, r.args, torch.float64),
                    "the reference in float64, rounded to the output dtype")


def check_accepts_working_precision(spec: Spec, reference: Reference, runs: list) -> Check:
    if spec.reference_dtype is None:
        return Check("accepts working precision", None, "no reference_dtype: the expected output is already "
                                                        "computed in the tensors' own precision")
    return _accepts(spec, runs, "accepts working precision", lambda r: _call(spec, reference, r.args),
                    "the reference in the tensors' own precision")


def check_accepts_baseline(spec: Spec, runs: list) -> Check:
    """A spec's own ``baseline`` (the torch code timed beside solutions) must be a correct solution."""
    if "baseline = reference" in spec.baseline_code:
        return Check("accepts baseline", None, "no baseline: the reference itself is timed")
    namespace = {"torch": torch, "math": math}
    try:
        exec(compile(spec.baseline_code, f"{spec.source}:baseline", "exec"), namespace)  # noqa: S102 - trusted spec
        baseline = namespace["baseline"]

        def got(run: _Run) -> dict:
            args = [a.clone() if isinstance(a, torch.Tensor) else a for a in run.args]
            with torch.no_grad(), exact_math():  # as the baseline's worker runs it (benchmark_stage.baseline_file)
                baseline(*args)
            return {p.name: args[i] for i, p in enumerate(spec.parameters) if p in run.outputs}

        return _accepts(spec, runs, "accepts baseline", got, "the spec's baseline")
    except Exception as exc:  # noqa: BLE001 - the author's code
        return Check("accepts baseline", False, f"the baseline failed: {type(exc).__name__}: {exc}")


def _one_ulp(run: _Run) -> dict:
    got = {}
    for p in run.outputs:
        value = run.expected[p.name].to(TORCH_DTYPES[p.dtype])
        if value.dtype.is_floating_point:
            away = torch.where(value < 0, torch.full_like(value, -float("inf")), torch.full_like(value, float("inf")))
            value = torch.nextafter(value, away)
        got[p.name] = value
    return got


def check_accepts_one_ulp(spec: Spec, runs: list) -> Check:
    if spec.tolerance.kind == "exact":
        return Check("accepts one ulp", None, "exact tolerance: bit-exact by design")
    return _accepts(spec, runs, "accepts one ulp", _one_ulp, "every output one ulp off")


def _changed(run: _Run, transform) -> dict | None:
    got = {p.name: transform(run.expected[p.name]) for p in run.outputs}
    same = all(torch.equal(got[n], run.expected[n]) for n in got)
    return None if same else got


def check_rejects_zeros(spec: Spec, runs: list) -> Check:
    return _rejects(spec, runs, "rejects zeros", lambda r: _changed(r, torch.zeros_like), "all-zero outputs")


def _shift(value: torch.Tensor) -> torch.Tensor:
    return value.reshape(-1).roll(1).reshape(value.shape) if value.numel() > 1 else value


def check_rejects_shift(spec: Spec, runs: list) -> Check:
    return _rejects(spec, runs, "rejects shifted", lambda r: _changed(r, _shift),
                    "outputs shifted by one element")


def check_rejects_bf16_inputs(spec: Spec, reference: Reference, runs: list) -> Check:
    """A precision downgrade: the exact computation from bf16-rounded float inputs."""
    wide = [p for p in spec.parameters if isinstance(p, Tensor) and p.role != "out"
            and TORCH_DTYPES[p.dtype] in WIDE_FLOATS]
    if not wide:
        return Check("rejects bf16 inputs", None, "no float32/float64 inputs to round")

    def downgraded(run: _Run):
        args = [a.to(torch.bfloat16).to(a.dtype) if isinstance(p, Tensor) and p in wide else a
                for a, p in zip(run.args, spec.parameters)]
        got = reference.expected(args)
        return None if all(torch.equal(got[n], run.expected[n]) for n in got) else got

    return _rejects(spec, runs, "rejects bf16 inputs", downgraded, "the reference on bf16-rounded inputs")
