"""Reading a spec's solve() signature: type parameters, size ranges, the
parameters (tensors with dtype, shape formulas, role and how inputs are
drawn; scalars) and the constraints between sizes.

``SignatureReader`` checks those fields of the YAML mapping one by one; every
problem is a ``SpecError`` naming the field.  No I/O.
"""

from __future__ import annotations

from typing import Any

from judge.challenge import expr
from judge.challenge.spec_model import (DISTRIBUTIONS, DTYPES, FLOAT_DTYPES, ROLES, Init, Scalar, SpecError, Tensor,
                                       unknown_key)


class SignatureReader:
    """Field-by-field validation of the signature; each method names the field it checks."""

    def __init__(self, source: str, data: dict):
        self.source, self.data = source, data
        self.type_parameters: dict = {}

    def fail(self, field_name: str, problem: str):
        raise SpecError(self.source, field_name, problem)

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

    def sizes(self) -> dict:
        raw = self.data.get("sizes")
        if not isinstance(raw, dict) or not raw:
            self.fail("sizes", "required: a mapping of size parameter -> [low, high], e.g. {N: [1, 4096]}")
        sizes = {}
        for name, rng in raw.items():
            where = f"sizes.{name}"
            if not isinstance(name, str) or not name.isidentifier():
                self.fail(where, "size parameter names must be identifiers")
            if not (isinstance(rng, list) and len(rng) == 2 and all(is_int(v) for v in rng)):
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
            self.fail(f"{where}.{sorted(extra)[0]}", unknown_key(sorted(extra)[0], allowed))
        for key in allowed - {"dist"}:
            if key in raw and not is_number(raw[key]):
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


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
