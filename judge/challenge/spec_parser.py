"""Reading a whole challenge spec from its YAML mapping into a ``Spec``.

``SpecParser`` extends the signature's reader (judge/challenge/spec_signature.py)
with every other field: statement, reference and baseline code, tolerance,
test and benchmark sizes, cost formulas, CPU-mode caps, the example; and then
evaluates every formula at the corners of the size ranges.  No I/O.
"""

from __future__ import annotations

import math

from judge.challenge import expr
from judge.challenge.spec_model import (unknown_key, BOUNDS, DEFAULT_INTERPRET_MAX, DIFFICULTIES, FLOAT_DTYPES, TOLERANCE_KINDS,
                                        SizeCase, Spec, Tensor, Tolerance)
from judge.challenge.spec_signature import SignatureReader, is_int, is_number


class SpecParser(SignatureReader):
    """The whole spec: the signature (SignatureReader), then the statement, reference,
    tolerance, test and benchmark sizes, cost formulas and CPU-mode caps."""

    KNOWN = {
        "name", "title", "difficulty", "statement", "parameters", "sizes", "constraints",
        "reference", "reference_dtype", "baseline", "tolerance", "tests", "benchmarks", "cost",
        "interpret", "example", "dtypes", "variants", "require_kernel",
    }

    def spec(self) -> Spec:
        unknown = sorted(set(map(str, self.data)) - self.KNOWN)
        if unknown:
            self.fail(unknown[0], unknown_key(unknown[0], self.KNOWN).replace("unknown key", "unknown field"))
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
            require_kernel=self.flag("require_kernel"),
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

    def flag(self, key: str) -> bool:
        """A true/false field, false when absent."""
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {value!r}")
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
            self.fail(f"tolerance.{sorted(extra)[0]}", unknown_key(sorted(extra)[0], ("kind", "atol", "rtol")))
        for key in ("atol", "rtol"):
            value = raw.get(key, 0.0)
            if not is_number(value) or value < 0 or not math.isfinite(value):
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
            self.fail(f"tests.{sorted(extra)[0]}", unknown_key(sorted(extra)[0], ("sizes", "random")))
        random_tests = raw.get("random", 4)
        if not is_int(random_tests) or not 0 <= random_tests <= 100:
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
                if not is_int(v) or not low <= v <= high:
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
            self.fail(f"cost.{sorted(extra)[0]}", unknown_key(sorted(extra)[0], ("bytes", "flops", "bound")))
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
            if not is_int(cap) or cap < low:
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


