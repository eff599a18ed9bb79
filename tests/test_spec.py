import pytest
import yaml

from judge.challenge.catalog import find_spec_path, list_challenges, UnknownChallenge
from judge.challenge.spec import SpecError, load_spec, parse_spec

from conftest import CHALLENGES

BASE = (CHALLENGES / "transpose.yaml").read_text()


def variant(**changes) -> str:
    data = yaml.safe_load(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return yaml.safe_dump(data)


def error_of(text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse_spec(text, "my.yaml")
    return info.value


def test_builtin_challenges_load_with_leetgpu_signatures():
    signatures = {spec.name: spec.signature_text() for _, spec in list_challenges()}
    assert signatures["transpose"] == "solve(input, output, rows, cols)"
    assert signatures["copy"] == "solve(a, b, N)"
    assert signatures["matmul"] == "solve(A, B, C, M, N, K)"


def test_builtin_ranges_and_benchmarks_match_the_brief():
    transpose = load_spec(CHALLENGES / "transpose.yaml")
    assert transpose.sizes == {"rows": (1, 8192), "cols": (1, 8192)}
    assert [b.params for b in transpose.benchmarks] == [{"rows": 7000, "cols": 6000}, {"rows": 8192, "cols": 8192}]
    matmul = load_spec(CHALLENGES / "matmul.yaml")
    assert [b.params for b in matmul.benchmarks] == [{"M": 8192, "N": 6144, "K": 4096}]
    assert matmul.shape_of(matmul.parameters[0], {"M": 2, "N": 3, "K": 4}) == (2, 3)
    assert matmul.flops({"M": 2, "N": 3, "K": 4}) == 48
    copy = load_spec(CHALLENGES / "copy.yaml")
    assert copy.sizes == {"N": (1, 4096)}


def test_invalid_yaml_names_line():
    err = error_of("name: x\nsizes: [1, 2\n")
    assert "invalid YAML at line" in str(err) and str(err).startswith("my.yaml")


def test_top_level_must_be_mapping():
    assert "mapping" in str(error_of("- 1\n- 2\n"))


@pytest.mark.parametrize("changes, field, words", [
    ({"sizes": {"rows": [0, 5], "cols": [1, 2]}}, "sizes.rows", "1 <= low <= high"),
    ({"sizes": {"rows": [5, 1], "cols": [1, 2]}}, "sizes.rows", "1 <= low <= high"),
    ({"sizes": {"rows": "big", "cols": [1, 2]}}, "sizes.rows", "[low, high]"),
    ({"sizes": None}, "sizes", "required"),
    ({"tolerance": {"kind": "fuzzy"}}, "tolerance.kind", "exact, close, summation"),
    ({"tolerance": {"kind": "close", "rtol": -1}}, "tolerance.rtol", ">= 0"),
    ({"tolerance": {"kind": "close"}}, "tolerance", "needs atol or rtol"),
    ({"reference": "x = 1"}, "reference", "def reference"),
    ({"reference": "def reference(:\n"}, "reference", "syntax error"),
    ({"colour": "blue"}, "colour", "unknown field"),
    ({"tolerence": {"kind": "exact"}}, "tolerence", "did you mean 'tolerance'?"),  # issue 29: a typo
    ({"tolerance": {"kind": "close", "rtoll": 1e-3}}, "tolerance.rtoll", "did you mean 'rtol'?"),
    ({"cost": {"byts": "rows"}}, "cost.byts", "did you mean 'bytes'?"),
    ({"cost": {"bytes": "rows * colz"}}, "cost.bytes", "unknown name 'colz'"),
    ({"cost": {"bytes": "rows // (rows - 1)"}}, "cost.bytes", "failed"),
    ({"cost": {"bound": "latency"}}, "cost.bound", "memory, compute"),
    ({"tests": {"sizes": [{"rows": 1}]}}, "tests.sizes[0]", "missing ['cols']"),
    ({"tests": {"sizes": [{"rows": 1, "cols": 9000}]}}, "tests.sizes[0].cols", "[1, 8192]"),
    ({"tests": {"random": -1}}, "tests.random", "0 to 100"),
    ({"benchmarks": [{"rows": 1, "cols": 1, "depth": 2}]}, "benchmarks[0]", "unknown size parameter 'depth'"),
    ({"interpret": {"max": {"rows": 0}}}, "interpret.max.rows", ">= 1"),
    ({"name": "bad name!"}, "name", "letters, digits"),
    ({"difficulty": "insane"}, "difficulty", "easy, medium, hard"),
])
def test_validation_errors_name_file_field_and_what_is_allowed(changes, field, words):
    err = error_of(variant(**changes))
    assert err.field == field
    assert words in str(err)
    assert str(err).startswith("my.yaml: field")


@pytest.mark.parametrize("parameters, field, words", [
    ([{"name": "x", "tensor": "float33", "shape": ["rows"]}], "parameters[0].tensor", "dtype"),
    ([{"name": "x", "tensor": "float32", "shape": ["rows"], "role": "in"}], "parameters", "role 'out'"),
    ([{"name": "x", "tensor": "float32", "shape": "rows", "role": "out"}], "parameters[0].shape", "list"),
    ([{"name": "x", "tensor": "float32", "shape": ["depth"], "role": "out"}], "parameters[0].shape[0]", "unknown name"),
    ([{"name": "x", "scalar": "complex"}], "parameters[0].scalar", "int or float"),
    ([{"name": "x", "tensor": "float32", "scalar": "int"}], "parameters[0]", "exactly one"),
    ([{"name": "1x", "tensor": "float32", "shape": [1], "role": "out"}], "parameters[0].name", "identifier"),
    ([{"name": "x", "tensor": "float32", "shape": [1], "role": "out", "init": {"dist": "cauchy"}}],
     "parameters[0].init.dist", "uniform"),
    ([{"name": "x", "tensor": "float32", "shape": [1], "role": "inout", "init": {"low": 2, "high": 1}}],
     "parameters[0].init", "low < high"),
])
def test_parameter_errors(parameters, field, words):
    err = error_of(variant(parameters=parameters))
    assert err.field == field and words in str(err)


def test_missing_and_directory_and_binary_files(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        load_spec(tmp_path / "nope.yaml")
    with pytest.raises(SpecError, match="not a file"):
        load_spec(tmp_path)
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(SpecError, match="UTF-8"):
        load_spec(binary)


def test_find_spec_path_names_builtins_when_unknown():
    with pytest.raises(UnknownChallenge, match="transpose"):
        find_spec_path("transpos")
    assert find_spec_path("copy").name == "copy.yaml"


def test_integer_tensors_default_to_randint_and_refuse_float_draws():
    data = yaml.safe_load(BASE)
    for p in data["parameters"][:2]:
        p["tensor"] = "int32"
        p.pop("init", None)
    spec = parse_spec(yaml.safe_dump(data), "ints.yaml")
    assert spec.parameters[0].init.dist == "randint" and spec.parameters[0].init.high > 1
    data["parameters"][0]["init"] = {"dist": "uniform", "low": -1, "high": 1}
    err = error_of(yaml.safe_dump(data))
    assert err.field == "parameters[0].init.dist" and "truncate" in str(err)
