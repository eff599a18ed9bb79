"""Fuzzing the spec loader: whatever the YAML holds, the result is a Spec or a
SpecError (a clear message and exit code 2), never another exception."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.challenge.spec import Spec, SpecError, parse_spec

from conftest import CHALLENGES

BASE = yaml.safe_load((CHALLENGES / "matmul.yaml").read_text())
FIELDS = sorted(BASE)

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["M", "N * K", "2 ** 99 ** 9", "M // 0", "[", "x.y",
                                                           "float32", "uniform", "exact", "summation"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def outcome(text: str):
    try:
        return parse_spec(text, "fuzz.yaml")
    except SpecError as exc:
        assert str(exc).startswith("fuzz.yaml: ")
        return exc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text(text):
    assert isinstance(outcome(text), (Spec, SpecError))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIELDS), values)
def test_one_field_replaced(field, value):
    data = dict(BASE, **{field: value})
    assert isinstance(outcome(yaml.safe_dump(data)), (Spec, SpecError))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 5), st.sampled_from(["name", "tensor", "shape", "role", "init", "scalar", "value"]), values)
def test_one_parameter_key_replaced(index, key, value):
    parameters = [dict(p) for p in BASE["parameters"]]
    parameters[index][key] = value
    data = dict(BASE, parameters=parameters)
    assert isinstance(outcome(yaml.safe_dump(data)), (Spec, SpecError))
