"""Test cases from a spec's size ranges: edge sizes, seeded random draws, the
spec's explicit sizes, and the search for the smallest failing size.

Pure computation: no tensors, no GPU, no I/O, so everything here is tested
directly.  A ``Case`` only names size-parameter values; the input *values* are
drawn later (tensors.py) from ``call_seed``.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Callable, Iterable

from judge.base.suggest import did_you_mean
from judge.challenge.spec_model import Spec

__all__ = ["Case", "generate_cases", "benchmark_cases", "edge_values", "call_seed",
           "shrink", "limits_for", "describe", "cpu_caps", "case_elements", "skipped_explicit",
           "CaseSelectionError", "sized_case", "shrink_case", "parse_sizes", "select_case", "sizes_argument"]

# Sizes that break kernels: the smallest, small primes, one past a power of
# two, and non-multiples of the usual block sizes 16/32/64/128.
EDGE_CANDIDATES = (1, 2, 3, 5, 7, 13, 17, 31, 33, 63, 65, 100, 127, 129, 255, 257, 1000, 1025, 4097)
# GPU mode skips cases whose tensors would exceed this many bytes in total.
GPU_CASE_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Case:
    """One functional test or benchmark: a name, a kind and the size parameters."""

    name: str
    kind: str  # "edge", "random", "explicit", "repeat" or "benchmark"
    params: dict

    def label(self) -> str:
        return describe(self.params)


def describe(params: dict) -> str:
    """``rows=17, cols=1``: how a size is written in messages."""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def call_seed(run_seed: int, case_name: str, call_index: int) -> int:
    """A 63-bit seed for one solve() call, stable across processes and runs."""
    digest = hashlib.blake2b(f"{run_seed}/{case_name}/{call_index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def limits_for(spec: Spec, interpret: bool, cpu_elements: int | None = None) -> dict:
    """Inclusive (low, high) per size parameter: the spec's ranges, capped in CPU mode (``cpu_caps``)."""
    if not interpret:
        return dict(spec.sizes)
    caps = cpu_caps(spec, cpu_elements)
    return {name: (low, caps[name]) for name, (low, high) in spec.sizes.items()}


def case_elements(spec: Spec, params: dict) -> int:
    """How many elements a case's tensors hold, all together (what CPU mode's budget counts)."""
    return sum(math.prod(spec.shape_of(tensor, params)) for tensor in spec.tensors)


def cpu_caps(spec: Spec, cpu_elements: int | None = None) -> dict:
    """The largest value of each size in CPU mode: the spec's ``interpret.max`` (48 each by default), or with
    ``cpu_elements`` (``--cpu-elements N``) those caps scaled by one factor, the largest whose case of every
    size at its cap holds at most N tensor elements (never below a range's low end, never above its high end)."""
    base = {name: min(high, spec.interpret_max[name]) for name, (_, high) in spec.sizes.items()}
    if cpu_elements is None:
        return base

    def scaled(factor: float) -> dict:
        return {name: max(low, min(high, int(base[name] * factor))) for name, (low, high) in spec.sizes.items()}

    low, high = 0.0, max(spec.sizes[name][1] / max(1, base[name]) for name in base) + 1
    for _ in range(60):  # bisection on the factor: elements grow with it
        middle = (low + high) / 2
        low, high = (middle, high) if case_elements(spec, scaled(middle)) <= cpu_elements else (low, middle)
    return scaled(low)


def edge_values(low: int, high: int) -> list[int]:
    """The edge candidates that lie in [low, high], plus both ends."""
    values = {low, high, *(v for v in EDGE_CANDIDATES if low <= v <= high)}
    return sorted(values)


def _affordable(spec: Spec, params: dict, interpret: bool) -> bool:
    if interpret:
        return True  # the caps already keep interpret-mode sizes small
    total = 0
    for tensor in spec.tensors:
        total += math.prod(spec.shape_of(tensor, params)) * _itemsize(tensor.dtype)
    return total <= GPU_CASE_BYTES


def _itemsize(dtype: str) -> int:
    return {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2,
            "bfloat16": 2, "int16": 2}.get(dtype, 1)


def _edge_profiles(limits: dict) -> Iterable[dict]:
    """Combinations of edge values: all smallest, each one large, mixed, all largest."""
    names = list(limits)
    edges = {n: edge_values(*limits[n]) for n in names}
    yield {n: limits[n][0] for n in names}
    for n in names:  # one dimension at its largest, the others at their smallest
        if len(names) > 1:
            yield {m: (limits[m][1] if m == n else limits[m][0]) for m in names}
    small = {n: [v for v in edges[n] if v <= 33] or edges[n][:1] for n in names}
    for shift in range(3):  # mixed small primes and off-by-ones, different per dimension
        yield {n: small[n][(i + 2 * shift + 1) % len(small[n])] for i, n in enumerate(names)}
    for n_index, n in enumerate(names):  # one past a power of two / non-multiples of 64
        odd = [v for v in edges[n] if v in (65, 100, 129, 257, 1000, 1025)]
        if odd:
            yield {m: (odd[n_index % len(odd)] if m == n else _mid_edge(edges[m])) for m in names}
    yield {n: limits[n][1] for n in names}


def _mid_edge(values: list[int]) -> int:
    return values[len(values) // 2]


def _random_params(spec: Spec, limits: dict, rng: random.Random, usable: Callable[[dict], bool]) -> dict | None:
    """A log-uniform draw per dimension, so small and large sizes are both common; drawn again (up
    to 200 times, from the same seeded stream) until ``usable`` takes it."""
    for _ in range(200):
        params = {}
        for name, (low, high) in limits.items():
            value = math.exp(rng.uniform(math.log(low), math.log(high + 1)))
            params[name] = max(low, min(high, int(value)))
        if usable(params):
            return params
    return None


def generate_cases(spec: Spec, seed: int, interpret: bool, cpu_elements: int | None = None) -> list[Case]:
    """The functional tests for one run, in the order they are run.

    Edge profiles first (they find most bugs fastest), then ``spec.random_tests``
    seeded random draws, then the spec's explicit sizes, then two of those
    sizes repeated with new input values.  Sizes outside the CPU-mode caps (``cpu_caps``) are
    dropped in interpret mode, but for explicit sizes within ``cpu_elements``; an edge or
    explicit size that repeats an earlier one is dropped (the same for every seed).  A random
    draw that repeats an edge or explicit size, or one drawn before, is drawn again, so every
    seed gives the same number of tests.
    """
    limits = limits_for(spec, interpret, cpu_elements)

    def key(params: dict) -> tuple:
        return tuple(params[n] for n in spec.sizes)

    def usable(params: dict) -> bool:
        return spec.satisfies(params) and _affordable(spec, params, interpret)

    edges = _distinct([Case(f"edge-{i + 1}", "edge", p) for i, p in enumerate(_edge_profiles(limits))],
                      usable, key, set())
    explicit = _distinct([Case(t.name, "explicit", dict(t.params)) for t in spec.tests
                          if not _skipped_in_cpu_mode(spec, t.params, limits, interpret, cpu_elements)],
                         usable, key, {key(c.params) for c in edges})
    taken = {key(c.params) for c in edges + explicit}
    rng = random.Random(seed)
    randoms = []
    for i in range(spec.random_tests):
        params = _random_params(spec, limits, rng, lambda p: usable(p) and key(p) not in taken)
        if params is not None:
            taken.add(key(params))
            randoms.append(Case(f"random-{i + 1}", "random", params))
    cases = edges + randoms + explicit
    return cases + _repeats(cases)


def _distinct(candidates: list[Case], usable: Callable[[dict], bool], key: Callable[[dict], tuple],
              seen: set) -> list[Case]:
    """The candidates that are usable and whose size is not in ``seen`` nor an earlier candidate's."""
    kept = []
    for case in candidates:
        k = key(case.params)
        if k in seen or not usable(case.params):
            continue
        seen = seen | {k}
        kept.append(case)
    return kept


def _repeats(cases: list[Case]) -> list[Case]:
    """Two earlier sizes again, with new input values (their seeds differ by name).

    A solution that caches outputs by shape or by pointer, or that stops
    working on repeated calls, returns stale results here.
    """
    picks = [c for c in cases if all(v > 1 for v in c.params.values())][:1] + cases[-1:]
    return [Case(f"repeat-{i + 1}", "repeat", dict(c.params)) for i, c in enumerate(picks)]


def skipped_explicit(spec: Spec, interpret: bool, cpu_elements: int | None = None) -> list[Case]:
    """The spec's explicit sizes that the CPU-mode caps leave out (to report them)."""
    limits = limits_for(spec, interpret, cpu_elements)
    return [Case(t.name, "explicit", dict(t.params)) for t in spec.tests
            if _skipped_in_cpu_mode(spec, t.params, limits, interpret, cpu_elements)]


def _skipped_in_cpu_mode(spec: Spec, params: dict, limits: dict, interpret: bool, cpu_elements: int | None) -> bool:
    """An explicit size outside the limits, unless ``--cpu-elements`` allows its elements in CPU mode."""
    if _within(params, limits):
        return False
    return not (interpret and cpu_elements is not None and case_elements(spec, params) <= cpu_elements)


def benchmark_cases(spec: Spec) -> list[Case]:
    return [Case(b.name, "benchmark", dict(b.params)) for b in spec.benchmarks]


def _within(params: dict, limits: dict) -> bool:
    return all(low <= params[n] <= high for n, (low, high) in limits.items())


def _smaller_candidates(params: dict, limits: dict) -> Iterable[dict]:
    """Smaller sizes to try: every dimension at its smallest first, then, per
    dimension, the next two smallest and steps back from the current value that
    halve each time (half the distance, a quarter, ... one), like delta debugging.
    """
    for name, value in params.items():
        low = limits[name][0]
        if low < value:
            yield {**params, name: low}
    for name, value in params.items():
        low = limits[name][0]
        steps, distance = [low + 1, low + 2], (value - low) // 2
        while distance >= 1:
            steps.append(value - distance)
            distance //= 2
        steps.append(value - 1)
        for smaller in dict.fromkeys(steps):
            if low < smaller < value:
                yield {**params, name: smaller}


def shrink(spec: Spec, params: dict, fails: Callable[[dict], bool], budget: int,
           limits: dict | None = None) -> tuple[dict, int]:
    """Greedy search for a smaller failing size.

    Tries the candidates of ``_smaller_candidates`` in order and moves to the
    first one that still fails, then starts over from there.  Stops when no candidate fails or after
    ``budget`` calls of ``fails``.  Returns the smallest failing size found and
    the number of calls made.
    """
    limits = limits or dict(spec.sizes)
    current, calls, tried = dict(params), 0, set()
    improved = True
    while improved and calls < budget:
        improved = False
        for candidate in _smaller_candidates(current, limits):
            key = tuple(candidate.values())
            if key in tried or not spec.satisfies(candidate):
                continue
            tried.add(key)
            calls += 1
            if fails(candidate):
                current, improved = candidate, True
                break
            if calls >= budget:
                break
    return current, calls


# -- one case alone: judge run --case NAME / --sizes rows=32,cols=1 -------------------------------
class CaseSelectionError(ValueError):
    """``--case`` names no case of the run, or ``--sizes`` is no size of the challenge (a usage error)."""


def sized_case(params: dict) -> Case:
    """The case ``--sizes`` judges: named by its sizes, as the search for a smaller failing size names the
    sizes it tries (``shrink_case``), so the same seed gives the same input values in both."""
    return Case(describe(params), "sizes", dict(params))


def shrink_case(params: dict) -> Case:
    """A size the search for a smaller failing one tries (its name, hence its seed, that of ``sized_case``)."""
    return Case(describe(params), "shrink", dict(params))


def sizes_argument(params: dict) -> str:
    """``rows=32,cols=1``: sizes as ``--sizes`` takes them."""
    return ",".join(f"{k}={v}" for k, v in params.items())


def parse_sizes(text: str, spec: Spec) -> dict:
    """``rows=32,cols=1`` as the challenge's sizes, in its order; every size named once, each an integer in
    its range, the constraints met (CaseSelectionError says what is wrong and what the sizes are)."""
    names, given = list(spec.sizes), {}
    ranges = ", ".join(f"{n} in [{low}, {high}]" for n, (low, high) in spec.sizes.items())
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = (x.strip() for x in part.partition("="))
        if not sep or name not in names or name in given:
            why = f"'{part}' is not NAME=VALUE" if not sep else f"'{name}' is named twice" if name in given else \
                f"'{name}' is not a size of {spec.name}" + did_you_mean(name, names)
            raise CaseSelectionError(f"--sizes {text}: {why}; its sizes are {ranges}")
        try:
            given[name] = int(value)
        except ValueError:
            raise CaseSelectionError(f"--sizes {text}: {name}={value} is not an integer") from None
    missing = [n for n in names if n not in given]
    if missing:
        raise CaseSelectionError(f"--sizes {text}: give every size of {spec.name} ({', '.join(missing)} missing); "
                                 f"its sizes are {ranges}")
    params = {n: given[n] for n in names}
    if not spec.satisfies(params):
        raise CaseSelectionError(f"--sizes {text}: outside {spec.name}'s sizes ({ranges}) or its constraints"
                                 + (f" ({'; '.join(spec.constraints)})" if spec.constraints else ""))
    return params


def select_case(cases: list, name: str):
    """The case of ``cases`` named ``name`` (CaseSelectionError lists the names, the closest first)."""
    for case in cases:
        if case.name == name:
            return case
    names = [case.name for case in cases]
    raise CaseSelectionError(f"--case {name}: this run has no such case{did_you_mean(name, names)}; its cases "
                             f"are {', '.join(names)}")
