import pytest

from judge.challenge.expr import ExprError, evaluate, names_in


@pytest.mark.parametrize("text, env, expected", [
    ("2 * rows * cols * 4", {"rows": 3, "cols": 5}, 120),
    ("M * K <= 2**26", {"M": 8192, "K": 8193}, False),
    ("M * K <= 2**26", {"M": 8192, "K": 8192}, True),
    ("cdiv(N, 128) * 128", {"N": 129}, 256),
    ("min(M, N) if M > 1 else 0", {"M": 4, "N": 2}, 2),
    ("1 <= N and N < 10", {"N": 3}, True),
    (7, {}, 7),
])
def test_evaluates_allowed_formulas(text, env, expected):
    assert evaluate(text, env) == expected


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "rows.__class__",
    "[rows]",
    "open('x')",
    "lambda: 1",
    "'text'",
    "rows(",
])
def test_refuses_code(text):
    with pytest.raises(ExprError):
        evaluate(text, {"rows": 1})


def test_unknown_name_is_named():
    with pytest.raises(ExprError, match="unknown name 'colz'"):
        evaluate("rows * colz", {"rows": 2, "cols": 3})


def test_huge_exponent_is_refused_rather_than_hanging():
    with pytest.raises(ExprError, match="exponent"):
        evaluate("2 ** 2 ** 99", {})


def test_division_by_zero_is_an_expr_error():
    with pytest.raises(ExprError, match="failed"):
        evaluate("N // (N - 1)", {"N": 1})


def test_names_exclude_functions():
    assert names_in("cdiv(M, BLOCK) * N") == {"M", "BLOCK", "N"}
