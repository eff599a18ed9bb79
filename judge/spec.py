"""Challenge specs: load a YAML file, validate every field, return a ``Spec``.

A spec is data plus one trusted snippet of Python (the torch reference, written
by the challenge's author and run only in the judge's own process).  Every
validation error is a ``SpecError`` that names the file, the field and what is
allowed, so the CLI can print it without a traceback.  The format is
documented in docs/spec-format.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from . import expr

__all__ = [
    "SpecError", "Spec", "Tensor", "Scalar", "Init", "Tolerance", "SizeCase",
    "load_spec", "parse_spec", "load_specs", "parse_specs", "DTYPES",
]

DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")
FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")
ROLES = ("in", "out", "inout")
DISTRIBUTIONS = ("uniform", "normal", "randint", "fill")
TOLERANCE_KINDS = ("exact", "close", "summation")
BOUNDS = ("memory", "compute")
DIFFICULTIES = ("easy", "medium", "hard")
MAX_FILE_BYTES = 1_000_000
# Default largest value of each size parameter in interpret (CPU) mode; the
# interpreter costs ~0.3 ms per program instance, so keep grids small.
DEFAULT_INTERPRET_MAX = 48


class SpecError(ValueError):
    """A challenge spec that cannot be used; the message is for the user."""

    def __init__(self, source: str, field_name: str, problem: str):
        self.source, self.field, self.problem = source, field_name, problem
        where = f"field '{field_name}'" if field_name else "the file"
        super().__init__(f"{source}: {where}: {problem}")


@dataclass(frozen=True)
class Init:
    """How an input tensor's values are drawn."""

    dist: str = "uniform"
    low: float = -1.0
    high: float = 1.0
    mean: float = 0.0
    std: float = 1.0
    value: float = 0.0


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str
    shape: tuple  # of formulas (str) or ints
    role: str
    init: Init

    kind = "tensor"


@dataclass(frozen=True)
class Scalar:
    name: str
    dtype: str  # "int" or "float"
    value: str  # a formula of the size parameters

    kind = "scalar"


@dataclass(frozen=True)
class Tolerance:
    """How outputs are compared with the reference (docs/spec-format.md)."""

    kind: str = "exact"
    atol: float = 0.0
    rtol: float = 0.0


@dataclass(frozen=True)
class SizeCase:
    """Named values of the size parameters (an explicit test or a benchmark)."""

    name: str
    params: dict


@dataclass(frozen=True)
class Spec:
    name: str
    title: str
    difficulty: str
    statement: str
    parameters: tuple
    sizes: dict  # name -> (low, high)
    constraints: tuple
    reference_code: str
    reference_dtype: str | None
    baseline_code: str
    tolerance: Tolerance
    tests: tuple  # of SizeCase
    random_tests: int
    benchmarks: tuple  # of SizeCase
    bytes_formula: str | float
    flops_formula: str | float
    bound: str
    interpret_max: dict
    source: str = ""
    example: dict = field(default_factory=dict)
    variant_of: str | None = None  # the base spec's name, for a spec from a 'variants:' entry
    # The YAML it was parsed from: the worker parses this text, never the file
    # again, so an edit after loading cannot make judge and worker disagree.
    text: str = field(default="", repr=False, compare=False)

    @property
    def path(self) -> str:
        """The YAML file; ``source`` is ``<file>#<name>`` for a variant (load_spec reads both)."""
        return self.source[: -len(self.name) - 1] if self.variant_of else self.source

    @property
    def tensors(self) -> list[Tensor]:
        return [p for p in self.parameters if isinstance(p, Tensor)]

    @property
    def size_names(self) -> list[str]:
        return list(self.sizes)

    def satisfies(self, params: dict) -> bool:
        """True when ``params`` lie in the ranges and meet every constraint."""
        for name, (low, high) in self.sizes.items():
            if not low <= params[name] <= high:
                return False
        return all(expr.evaluate(c, params) for c in self.constraints)

    def shape_of(self, tensor: Tensor, params: dict) -> tuple[int, ...]:
        return tuple(int(expr.evaluate(d, params)) for d in tensor.shape)

    def scalar_value(self, scalar: Scalar, params: dict):
        value = expr.evaluate(scalar.value, params)
        return int(value) if scalar.dtype == "int" else float(value)

    def bytes_moved(self, params: dict) -> float:
        return float(expr.evaluate(self.bytes_formula, params))

    def flops(self, params: dict) -> float:
        return float(expr.evaluate(self.flops_formula, params))

    def signature_text(self) -> str:
        return f"solve({', '.join(p.name for p in self.parameters)})"


def load_spec(path: str | Path) -> Spec:
    """Read and validate one YAML spec file.

    ``<file>#<variant>`` (a variant's ``source``) loads that variant of the file.
    """
    path, variant = _split_variant(str(path))
    text, source = _read_spec_file(path)
    return parse_spec(text, source, variant=variant)


def load_specs(path: str | Path) -> list[Spec]:
    """Every spec of one YAML file: the base spec, then its variants in file order."""
    text, source = _read_spec_file(Path(path))
    return parse_specs(text, source)


def _split_variant(text: str) -> tuple[Path, str | None]:
    """``x.yaml#v`` -> (x.yaml, "v"), unless a file is really named ``x.yaml#v``."""
    if "#" in text and not Path(text).exists():
        file, variant = text.rsplit("#", 1)
        return Path(file), variant
    return Path(text), None


def _read_spec_file(path: Path) -> tuple[str, str]:
    source = str(path)
    if not path.exists():
        raise SpecError(source, "", "no such file")
    if not path.is_file():
        raise SpecError(source, "", "not a file (a directory?)")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SpecError(source, "", f"larger than {MAX_FILE_BYTES // 1000} kB; is this a spec?")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SpecError(source, "", "not UTF-8 text (a binary file?)") from None
    return text, source


def parse_spec(text: str, source: str = "<spec>", variant: str | None = None) -> Spec:
    """Validate the YAML ``text``; ``source`` names it in error messages.

    Returns the base spec, or the variant named ``variant``; every variant is
    validated either way, so a broken variant is reported when its file loads.
    """
    specs = parse_specs(text, source)
    if variant is None:
        return specs[0]
    for spec in specs[1:]:
        if spec.name == variant:
            return spec
    names = ", ".join(s.name for s in specs[1:]) or "none"
    raise SpecError(source, "variants", f"no variant named {variant!r}; this file's variants: {names}")


def parse_specs(text: str, source: str = "<spec>") -> list[Spec]:
    """The base spec of the YAML ``text`` and each of its ``variants``.

    A variant is the base document with the variant's fields replacing whole
    top-level fields of the same name (no deep merge), named by its key; its
    ``source`` is ``<source>#<name>``.
    """
    data = _yaml_mapping(text, source)
    variants = data.pop("variants", None)
    base = replace(_Parser(source, data).spec(), text=text)
    specs = [base]
    for name, overrides in _variant_entries(variants, source, base.name):
        merged = {**data, **overrides, "name": name}
        specs.append(replace(_Parser(f"{source}#{name}", merged).spec(), variant_of=base.name, text=text))
    return specs


def _variant_entries(raw, source: str, base_name: str) -> list[tuple[str, dict]]:
    if raw is None:
        return []
    if not isinstance(raw, dict) or not raw:
        raise SpecError(source, "variants", "expected a mapping of variant name -> fields that differ, "
                        "e.g. {transpose_fp16: {dtypes: {T: float16}}}")
    entries = []
    for name, overrides in raw.items():
        where = f"variants.{name}"
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
            raise SpecError(source, where, f"variant names use letters, digits, '_' and '-' only, got {name!r}")
        if name == base_name:
            raise SpecError(source, where, "a variant needs a name different from the base spec's")
        if not isinstance(overrides, dict):
            raise SpecError(source, where, "expected a mapping of the fields that differ from the base spec")
        fixed = sorted({"name", "variants"} & set(overrides))
        if fixed:
            raise SpecError(source, f"{where}.{fixed[0]}",
                            "a variant cannot set this field (its name is its key; variants do not nest)")
        entries.append((name, overrides))
    return entries


def _yaml_mapping(text: str, source: str) -> dict:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(source, "", f"invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise SpecError(source, "", "expected a mapping of fields at the top level")
    return data


class _Parser:
    """Field-by-field validation; each method names the field it checks."""

    KNOWN = {
        "name", "title", "difficulty", "statement", "parameters", "sizes", "constraints",
        "reference", "reference_dtype", "baseline", "tolerance", "tests", "benchmarks", "cost",
        "interpret", "example", "dtypes", "variants",
    }

    def __init__(self, source: str, data: dict):
        self.source, self.data = source, data
        self.type_parameters: dict = {}

    def fail(self, field_name: str, problem: str):
        raise SpecError(self.source, field_name, problem)

    def spec(self) -> Spec:
        unknown = sorted(set(map(str, self.data)) - self.KNOWN)
        if unknown:
            self.fail(unknown[0], f"unknown field; allowed: {', '.join(sorted(self.KNOWN))}")
        name = self.text("name", pattern_check=True)
        self.type_parameters = self.dtypes()
        sizes = self.sizes()
        parameters = self.parameters(sizes)
        constraints = self.constraints(sizes)
        tests, random_tests = self.tests(sizes, constraints)
        cost = self.cost(sizes)
        spec = Spec(
            name=name,
            title=self.text("title", default=name),
            difficulty=self.choice("difficulty", DIFFICULTIES, default="easy"),
            statement=self.text("statement", default=""),
            parameters=parameters,
            sizes=sizes,
            constraints=constraints,
            reference_code=self.reference(parameters),
            reference_dtype=self.optional_choice("reference_dtype", FLOAT_DTYPES),
            baseline_code=self.baseline(parameters),
            tolerance=self.tolerance(),
            tests=tests,
            random_tests=random_tests,
            benchmarks=self.size_cases("benchmarks", sizes, named=True),
            bytes_formula=cost["bytes"],
            flops_formula=cost["flops"],
            bound=cost["bound"],
            interpret_max=self.interpret_max(sizes),
            source=self.source,
            example=self.example(sizes),
        )
        self.check_formulas(spec)
        return spec

    # -- simple fields -------------------------------------------------------
    def text(self, key: str, default: str | None = None, pattern_check: bool = False) -> str:
        value = self.data.get(key, default)
        if value is None:
            self.fail(key, "required; give a text value")
        if not isinstance(value, str) or (pattern_check and not value):
            self.fail(key, f"expected text, got {value!r}")
        if pattern_check and not all(c.isalnum() or c in "_-" for c in value):
            self.fail(key, f"use letters, digits, '_' and '-' only, got {value!r}")
        return value

    def choice(self, key: str, allowed: tuple, default: str) -> str:
        value = self.data.get(key, default)
        if value not in allowed:
            self.fail(key, f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    def optional_choice(self, key: str, allowed: tuple) -> str | None:
        if self.data.get(key) is None:
            return None
        return self.choice(key, allowed, default=allowed[0])

    def dtypes(self) -> dict:
        """Type parameters: names a tensor's dtype may refer to (``tensor: T``)."""
        raw = self.data.get("dtypes", {}) or {}
        if not isinstance(raw, dict):
            self.fail("dtypes", "expected a mapping of type parameter -> dtype, e.g. {T: float32}")
        for name, dtype in raw.items():
            if not isinstance(name, str) or not name.isidentifier() or name in DTYPES:
                self.fail(f"dtypes.{name}", "type parameter names must be identifiers other than dtype names")
            if dtype not in DTYPES:
                self.fail(f"dtypes.{name}", f"expected a dtype ({', '.join(DTYPES)}), got {dtype!r}")
        return dict(raw)

    # -- sizes and parameters --------------------------------------------------
    def sizes(self) -> dict:
        raw = self.data.get("sizes")
        if not isinstance(raw, dict) or not raw:
            self.fail("sizes", "required: a mapping of size parameter -> [low, high], e.g. {N: [1, 4096]}")
        sizes = {}
        for name, rng in raw.items():
            where = f"sizes.{name}"
            if not isinstance(name, str) or not name.isidentifier():
                self.fail(where, "size parameter names must be identifiers")
            if not (isinstance(rng, list) and len(rng) == 2 and all(_is_int(v) for v in rng)):
                self.fail(where, f"expected [low, high] as two integers, got {rng!r}")
            low, high = rng
            if not 1 <= low <= high:
                self.fail(where, f"expected 1 <= low <= high, got [{low}, {high}]")
            if high > 2**31:
                self.fail(where, f"high must be at most 2**31, got {high}")
            sizes[name] = (int(low), int(high))
        return sizes

    def parameters(self, sizes: dict) -> tuple:
        raw = self.data.get("parameters")
        if not isinstance(raw, list) or not raw:
            self.fail("parameters", "required: the list of solve() parameters, in order")
        params, seen = [], set()
        for i, entry in enumerate(raw):
            where = f"parameters[{i}]"
            if not isinstance(entry, dict):
                self.fail(where, "expected a mapping with 'name' and 'tensor' or 'scalar'")
            name = entry.get("name")
            if not isinstance(name, str) or not name.isidentifier():
                self.fail(f"{where}.name", f"expected a Python identifier, got {name!r}")
            if name in seen:
                self.fail(f"{where}.name", f"duplicate parameter {name!r}")
            seen.add(name)
            params.append(self.parameter(entry, f"{where}", sizes))
        if not any(isinstance(p, Tensor) and p.role != "in" for p in params):
            self.fail("parameters", "at least one tensor must have role 'out' or 'inout'")
        return tuple(params)

    def parameter(self, entry: dict, where: str, sizes: dict):
        name = entry["name"]
        if ("tensor" in entry) == ("scalar" in entry):
            self.fail(where, "give exactly one of 'tensor: <dtype>' or 'scalar: int|float'")
        if "scalar" in entry:
            extra = set(entry) - {"name", "scalar", "value"}
            if extra:
                self.fail(f"{where}.{sorted(extra)[0]}", "unknown key for a scalar parameter")
            if not isinstance(entry["scalar"], str) or entry["scalar"] not in ("int", "float"):
                self.fail(f"{where}.scalar", f"expected int or float, got {entry['scalar']!r}")
            value = entry.get("value", name)
            self.formula(f"{where}.value", value, sizes)
            return Scalar(name, entry["scalar"], value)
        extra = set(entry) - {"name", "tensor", "shape", "role", "init"}
        if extra:
            self.fail(f"{where}.{sorted(extra)[0]}", "unknown key for a tensor parameter")
        raw_dtype = entry["tensor"]
        dtype = self.type_parameters.get(raw_dtype, raw_dtype) if isinstance(raw_dtype, str) else raw_dtype
        if not isinstance(dtype, str) or dtype not in DTYPES:
            params = f" or a type parameter from 'dtypes' ({', '.join(self.type_parameters)})" \
                if self.type_parameters else ""
            self.fail(f"{where}.tensor", f"expected a dtype ({', '.join(DTYPES)}){params}, got {entry['tensor']!r}")
        shape = entry.get("shape")
        if not isinstance(shape, list) or not shape:
            self.fail(f"{where}.shape", "expected a list of dimensions, e.g. [rows, cols]")
        for j, dim in enumerate(shape):
            self.formula(f"{where}.shape[{j}]", dim, sizes)
        role = entry.get("role", "in")
        if role not in ROLES:
            self.fail(f"{where}.role", f"expected one of {', '.join(ROLES)}, got {role!r}")
        return Tensor(name, dtype, tuple(shape), role, self.init(entry.get("init"), f"{where}.init", dtype))

    def init(self, raw, where: str, dtype: str = "float32") -> Init:
        integral = dtype not in FLOAT_DTYPES
        if raw is None:  # uniform(-1, 1) would truncate to all zeros for integers
            return Init(dist="randint", low=0, high=2) if dtype == "bool" else \
                Init(dist="randint", low=-100, high=101) if integral else Init()
        if not isinstance(raw, dict):
            self.fail(where, "expected a mapping like {dist: uniform, low: -1, high: 1}")
        dist = raw.get("dist", "uniform")
        if dist not in DISTRIBUTIONS:
            self.fail(f"{where}.dist", f"expected one of {', '.join(DISTRIBUTIONS)}, got {dist!r}")
        allowed = {"dist", "low", "high", "mean", "std", "value"}
        extra = set(raw) - allowed
        if extra:
            self.fail(f"{where}.{sorted(extra)[0]}", f"unknown key; allowed: {', '.join(sorted(allowed))}")
        for key in allowed - {"dist"}:
            if key in raw and not _is_number(raw[key]):
                self.fail(f"{where}.{key}", f"expected a number, got {raw[key]!r}")
        init = Init(dist=dist, **{k: float(v) for k, v in raw.items() if k != "dist"})
        if dist in ("uniform", "randint") and not init.low < init.high:
            self.fail(where, f"expected low < high, got low={init.low}, high={init.high}")
        if dist == "normal" and not init.std > 0:
            self.fail(f"{where}.std", "expected a positive standard deviation")
        if integral and dist in ("uniform", "normal"):
            self.fail(f"{where}.dist", f"{dist} draws floats, which truncate for {dtype}; use randint or fill")
        if dist == "randint" and int(init.low) >= int(init.high):
            self.fail(where, f"randint needs integer bounds low < high, got {init.low} and {init.high}")
        return init

    def formula(self, where: str, value, sizes: dict) -> None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.fail(where, f"expected a number or a formula of {', '.join(sizes)}, got {value!r}")
        if isinstance(value, str):
            try:
                unknown = expr.names_in(value) - set(sizes)
            except expr.ExprError as exc:
                self.fail(where, str(exc))
            if unknown:
                self.fail(where, f"unknown name {sorted(unknown)[0]!r}; size parameters are {', '.join(sizes)}")

    def constraints(self, sizes: dict) -> tuple:
        raw = self.data.get("constraints", []) or []
        if not isinstance(raw, list):
            self.fail("constraints", "expected a list of formulas such as 'M * K <= 2**26'")
        for i, c in enumerate(raw):
            if not isinstance(c, str):
                self.fail(f"constraints[{i}]", f"expected a formula as text, got {c!r}")
            self.formula(f"constraints[{i}]", c, sizes)
        return tuple(raw)

    # -- reference, tolerance, cases, cost -------------------------------------
    def reference(self, parameters: tuple) -> str:
        code = self.data.get("reference")
        if code is None:
            self.fail("reference", "required: Python code defining "
                      f"def reference({', '.join(p.name for p in parameters)}) that writes the outputs")
        return self.code("reference", code, parameters)

    def baseline(self, parameters: tuple) -> str:
        """The torch code timed beside solutions; by default the reference itself."""
        code = self.data.get("baseline")
        if code is None:
            return self.data.get("reference", "") + "\nbaseline = reference\n"
        return self.code("baseline", code, parameters)

    def code(self, key: str, code, parameters: tuple) -> str:
        """Python text defining ``def <key>(...)`` that compiles."""
        if not isinstance(code, str) or f"def {key}" not in code:
            self.fail(key, "Python code defining "
                      f"def {key}({', '.join(p.name for p in parameters)}) that writes the outputs")
        try:
            compile(code, f"{self.source}:{key}", "exec")
        except SyntaxError as exc:
            self.fail(key, f"Python syntax error at line {exc.lineno}: {exc.msg}")
        return code

    def tolerance(self) -> Tolerance:
        raw = self.data.get("tolerance", {"kind": "exact"})
        if not isinstance(raw, dict):
            self.fail("tolerance", "expected a mapping like {kind: close, atol: 1e-5, rtol: 1e-5}")
        kind = raw.get("kind", "exact")
        if kind not in TOLERANCE_KINDS:
            self.fail("tolerance.kind", f"expected one of {', '.join(TOLERANCE_KINDS)}, got {kind!r}")
        extra = set(raw) - {"kind", "atol", "rtol"}
        if extra:
            self.fail(f"tolerance.{sorted(extra)[0]}", "unknown key; allowed: kind, atol, rtol")
        for key in ("atol", "rtol"):
            value = raw.get(key, 0.0)
            if not _is_number(value) or value < 0 or not math.isfinite(value):
                self.fail(f"tolerance.{key}", f"expected a finite number >= 0, got {value!r}")
        if kind != "exact" and raw.get("atol", 0) == 0 and raw.get("rtol", 0) == 0:
            self.fail("tolerance", f"kind {kind!r} needs atol or rtol > 0 (or use kind: exact)")
        return Tolerance(kind, float(raw.get("atol", 0.0)), float(raw.get("rtol", 0.0)))

    def tests(self, sizes: dict, constraints: tuple) -> tuple[tuple, int]:
        raw = self.data.get("tests", {}) or {}
        if not isinstance(raw, dict):
            self.fail("tests", "expected a mapping with 'sizes' (a list) and 'random' (a count)")
        extra = set(raw) - {"sizes", "random"}
        if extra:
            self.fail(f"tests.{sorted(extra)[0]}", "unknown key; allowed: sizes, random")
        random_tests = raw.get("random", 4)
        if not _is_int(random_tests) or not 0 <= random_tests <= 100:
            self.fail("tests.random", f"expected a count from 0 to 100, got {random_tests!r}")
        cases = self.size_cases("tests.sizes", sizes, named=False, raw=raw.get("sizes", []) or [])
        return cases, int(random_tests)

    def size_cases(self, key: str, sizes: dict, named: bool, raw=None) -> tuple:
        raw = self.data.get(key, []) if raw is None else raw
        if not isinstance(raw, list):
            self.fail(key, "expected a list of mappings of size parameter -> value")
        cases = []
        for i, entry in enumerate(raw or []):
            where = f"{key}[{i}]"
            if not isinstance(entry, dict):
                self.fail(where, f"expected a mapping such as {{{', '.join(f'{s}: 16' for s in sizes)}}}")
            params = {k: v for k, v in entry.items() if k != "name"}
            missing = [s for s in sizes if s not in params]
            unknown = [k for k in params if k not in sizes]
            if missing or unknown:
                self.fail(where, f"missing {missing}" if missing else f"unknown size parameter {unknown[0]!r}")
            for s, v in params.items():
                low, high = sizes[s]
                if not _is_int(v) or not low <= v <= high:
                    self.fail(f"{where}.{s}", f"expected an integer in [{low}, {high}], got {v!r}")
            label = entry.get("name") or "x".join(str(params[s]) for s in sizes)
            cases.append(SizeCase(str(label), {s: int(params[s]) for s in sizes}))
        return tuple(cases)

    def cost(self, sizes: dict) -> dict:
        raw = self.data.get("cost", {}) or {}
        if not isinstance(raw, dict):
            self.fail("cost", "expected a mapping with 'bytes', 'flops' and 'bound'")
        extra = set(raw) - {"bytes", "flops", "bound"}
        if extra:
            self.fail(f"cost.{sorted(extra)[0]}", "unknown key; allowed: bytes, flops, bound")
        for key in ("bytes", "flops"):
            self.formula(f"cost.{key}", raw.get(key, 0), sizes)
        bound = raw.get("bound", "memory")
        if bound not in BOUNDS:
            self.fail("cost.bound", f"expected one of {', '.join(BOUNDS)}, got {bound!r}")
        return {"bytes": raw.get("bytes", 0), "flops": raw.get("flops", 0), "bound": bound}

    def interpret_max(self, sizes: dict) -> dict:
        raw = self.data.get("interpret", {}) or {}
        if not isinstance(raw, dict) or set(raw) - {"max"}:
            self.fail("interpret", "expected a mapping {max: {<size>: <largest value in CPU mode>}}")
        caps = raw.get("max", {}) or {}
        if not isinstance(caps, dict):
            self.fail("interpret.max", "expected a mapping of size parameter -> largest value")
        result = {}
        for name, (low, high) in sizes.items():
            cap = caps.get(name, DEFAULT_INTERPRET_MAX)
            if not _is_int(cap) or cap < low:
                self.fail(f"interpret.max.{name}", f"expected an integer >= {low}, got {cap!r}")
            result[name] = min(int(cap), high)
        unknown = set(caps) - set(sizes)
        if unknown:
            self.fail(f"interpret.max.{sorted(unknown)[0]}", "not a size parameter")
        return result

    def example(self, sizes: dict) -> dict:
        raw = self.data.get("example")
        if raw is None:
            return {s: min(max(low, 3), high) for s, (low, high) in sizes.items()}
        return self.size_cases("example", sizes, named=False, raw=[raw])[0].params

    def check_formulas(self, spec: Spec) -> None:
        """Evaluate every formula at the corners of the ranges, so errors show now."""
        for corner in ({s: lo for s, (lo, _) in spec.sizes.items()},
                       {s: hi for s, (_, hi) in spec.sizes.items()}):
            for field_name, value in self._formulas(spec):
                try:
                    result = expr.evaluate(value, corner)
                except expr.ExprError as exc:
                    self.fail(field_name, str(exc))
                if isinstance(result, bool) or not isinstance(result, (int, float)):
                    self.fail(field_name, f"evaluates to {result!r}, not a number")
                if field_name.endswith("]") and "shape" in field_name and result < 0:
                    self.fail(field_name, f"negative dimension {result} at {corner}")

    def _formulas(self, spec: Spec):
        for i, p in enumerate(spec.parameters):
            if isinstance(p, Tensor):
                for j, dim in enumerate(p.shape):
                    yield f"parameters[{i}].shape[{j}]", dim
            else:
                yield f"parameters[{i}].value", p.value
        yield "cost.bytes", spec.bytes_formula
        yield "cost.flops", spec.flops_formula


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
