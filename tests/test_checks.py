import math

import pytest
import torch

from judge.judging.checks import compare_input, compare_output
from judge.judging.reference import Reference
from judge.challenge.spec import Tolerance, load_spec
from judge.challenge.tensors import make_arguments

from conftest import CHALLENGES, SOLUTIONS

EXACT = Tolerance("exact")


def test_exact_accepts_equal_and_signed_zero():
    ref = torch.tensor([1.0, -0.0, 3.5])
    assert compare_output("out", torch.tensor([1.0, 0.0, 3.5]), ref, EXACT).ok


def test_nan_never_matches_even_a_nan():
    ref = torch.tensor([1.0, float("nan")])
    result = compare_output("out", torch.tensor([1.0, float("nan")]), ref, Tolerance("close", 1.0, 1.0))
    assert not result.ok and result.bad == 1


def test_equal_infinities_match_and_opposite_ones_do_not():
    ref = torch.tensor([math.inf, -math.inf])
    assert compare_output("o", torch.tensor([math.inf, -math.inf]), ref, EXACT).ok
    assert not compare_output("o", torch.tensor([math.inf, math.inf]), ref, Tolerance("close", 1, 1)).ok


def test_wrong_answer_report_has_counts_errors_index_and_unwritten():
    ref = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    got = ref.clone()
    got[1, 2] = float("nan")  # still the poison value
    got[2, 3] += 0.5
    result = compare_output("output", got, ref, EXACT, poison=float("nan"))
    assert not result.ok and result.bad == 2 and result.unwritten == 1
    assert result.first_bad_index == (1, 2) and result.expected == 6.0
    assert result.max_abs_err == pytest.approx(0.5)
    message = result.message()
    assert "2 of 12 elements differ" in message and "1 of them never written" in message and "[1, 2]" in message
    assert "got nan (never written)" in message and "max abs err 0.5, max rel err 0.0455 where written" in message


def test_the_first_failed_element_is_found_without_torchs_unravel_index(monkeypatch):
    """torch.unravel_index imports torch.fx and sympy on its first call: 1.4 s that every served run (the server
    imports neither) paid for its first wrong answer.  The index is plain arithmetic."""
    from judge.judging.kernelbench_checks import compare_chunked

    monkeypatch.setattr(torch, "unravel_index", lambda *a, **k: pytest.fail("torch.unravel_index was called"))
    ref = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    got = ref.clone()
    got[2, 1, 3] = -1.0
    assert compare_output("output", got, ref, EXACT).first_bad_index == (2, 1, 3)
    assert compare_input("input", got, ref).first_bad_index == (2, 1, 3)
    assert compare_chunked("y", got, ref, Tolerance("close", 1e-4, 1e-4), chunk=7).first_bad_index == (2, 1, 3)
    assert compare_output("s", torch.tensor(1.0), torch.tensor(2.0), EXACT).first_bad_index == ()


def test_an_output_never_written_is_told_in_words_not_inf_and_nan():
    """Issue 49 item 4: "1 still hold the poison value outputs start as (never written, or added to); max abs
    err inf, max rel err inf; ... got nan" for an output no store reached."""
    ref = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    message = compare_output("output", torch.full_like(ref, float("nan")), ref, EXACT, poison=float("nan")).message()
    assert message.startswith("'output': 6 of 6 elements never written (they still hold NaN, the value every "
                              "output starts as: no store reached them, or the kernel added to them"), message
    assert "inf" not in message and "nan" not in message.lower().replace("they still hold nan", "")
    assert message.endswith("first at [0, 0]: expected 0.0")
    ints = torch.arange(4, dtype=torch.int32)
    poison = torch.iinfo(torch.int32).min
    assert "still hold -2147483648" in compare_output("n", torch.full_like(ints, poison), ints, EXACT,
                                                      poison=poison).message()


def test_a_mismatch_cause_leaves_out_the_numbers():
    """Failures alike share a cause (judging/failures.py): the empty starter's 18 cases are one failure."""
    poison = float("nan")
    small, large = torch.arange(6.0).reshape(2, 3), torch.arange(99.0).reshape(9, 11)
    never = [compare_output("output", torch.full_like(r, poison), r, EXACT, poison=poison) for r in (small, large)]
    assert never[0].cause() == never[1].cause() == "'output': never written"
    wrong = compare_output("output", small + 1, small, EXACT, poison=poison)
    partly = small.clone()
    partly[1] = poison
    assert wrong.cause() == "'output': wrong values"
    partly_written = compare_output("output", partly, small, EXACT, poison=poison)
    assert partly_written.cause() == "'output': some elements never written"
    assert compare_input("input", small + 1, small).cause() == "input 'input' modified"


def test_close_tolerance_is_atol_plus_rtol_times_reference():
    ref = torch.tensor([100.0, 0.0])
    tol = Tolerance("close", atol=1e-3, rtol=1e-2)
    assert compare_output("o", torch.tensor([100.9, 0.0009]), ref, tol).ok
    assert not compare_output("o", torch.tensor([101.2, 0.0]), ref, tol).ok


def test_shape_mismatch_is_reported():
    result = compare_output("o", torch.zeros(2, 3), torch.zeros(3, 2), EXACT)
    assert not result.ok and "shape" in result.message()


def test_input_comparison_is_bitwise():
    before = torch.tensor([1.0, float("nan"), 2.0])
    assert compare_input("a", before.clone(), before).ok
    after = before.clone()
    after[2] = 2.5
    result = compare_input("a", after, before)
    assert not result.ok and result.modified_input and result.first_bad_index == (2,)
    assert "was modified" in result.message()


def _matmul_errors_pass(solve_module: str, M: int, N: int, K: int) -> bool:
    """Run a tests/solutions matmul on the CPU and check it with the matmul spec."""
    spec = load_spec(CHALLENGES / "matmul.yaml")
    namespace: dict = {}
    exec((SOLUTIONS / solve_module).read_text(), namespace)
    params = {"M": M, "N": N, "K": K}
    args = make_arguments(spec, params, seed=11, device="cpu")
    namespace["solve"](*args)
    got = {"A": args[0], "B": args[1], "C": args[2]}
    return all(m.ok for m in Reference(spec, "cpu").check(params, 11, got))


@pytest.mark.parametrize("M, N, K", [(1, 1, 1), (7, 3000, 5), (64, 1024, 64)])
def test_matmul_tolerance_accepts_fp32_in_any_summation_order(M, N, K):
    assert _matmul_errors_pass("matmul_torch.py", M, N, K)
    assert _matmul_errors_pass("matmul_sequential.py", M, N, K)


@pytest.mark.parametrize("M, N, K", [(16, 16, 16), (64, 4096, 64)])
def test_matmul_tolerance_rejects_tf32_products_and_zeros(M, N, K):
    assert not _matmul_errors_pass("matmul_tf32_sim.py", M, N, K)
    assert not _matmul_errors_pass("matmul_zeros.py", M, N, K)


def test_a_calls_arguments_are_drawn_with_the_specs_dtypes_and_shapes_outputs_poisoned():
    spec = load_spec(CHALLENGES / "transpose.yaml")
    ref = Reference(spec, "cpu")
    values = ref.call_arguments({"rows": 2, "cols": 3}, 7).values
    assert values[0].shape == (2, 3) and values[0].dtype == torch.float32 and not values[0].isnan().any()
    assert values[1].shape == (3, 2) and values[1].isnan().all() and values[2:] == [2, 3]
    assert torch.equal(ref.call_arguments({"rows": 2, "cols": 3}, 7).values[0], values[0])  # the check's draw too


def test_summation_scale_uses_absolute_scalars():
    from judge.challenge.spec import parse_spec
    import yaml

    data = yaml.safe_load((CHALLENGES / "matmul.yaml").read_text())
    data["parameters"].append({"name": "beta", "scalar": "float", "value": -1})
    data["reference"] = "def reference(A, B, C, M, N, K, beta):\n    C.copy_(beta * (A @ B))\n"
    spec = parse_spec(yaml.safe_dump(data), "scaled.yaml")
    args = make_arguments(spec, {"M": 2, "N": 3, "K": 2}, seed=1, device="cpu")
    scale = Reference(spec, "cpu").scale(args)["C"]
    assert (scale >= 0).all() and (scale > 0).any()


# -- hints for the commonest mistakes -------------------------------------------------------------
def _unwritten(got: torch.Tensor) -> str:
    ref = torch.arange(got.numel(), dtype=torch.float32).reshape(got.shape)
    return compare_output("out", got, ref, EXACT, poison=float("nan")).message()


def test_unwritten_elements_at_the_end_point_at_the_grid():
    flat = torch.arange(10, dtype=torch.float32)
    flat[7:] = float("nan")  # a grid of N // BLOCK programs: the last partial block never runs
    assert "the last 3 in memory order" in _unwritten(flat) and "triton.cdiv" in _unwritten(flat)
    grid = torch.arange(20, dtype=torch.float32).reshape(4, 5)
    grid[:, 4] = float("nan")  # the last column block of a 2-D grid
    assert "every index 4 and above of dimension 1" in _unwritten(grid)
    scattered = torch.arange(10, dtype=torch.float32)
    scattered[[2, 9]] = float("nan")
    assert "triton.cdiv" not in _unwritten(scattered) and "2 of 10 elements never written" in _unwritten(scattered)


def test_the_l_of_a_two_dimensional_grid_one_block_short_points_at_the_grid():
    """Issue 49 item 2: ``grid = (rows // BLOCK, cols // BLOCK)`` on a 31 x 33 transpose leaves the last rows
    and the last columns of the output unwritten (an L): it got "511 of 1023 ... never written" and no hint."""
    got = torch.arange(33 * 31, dtype=torch.float32).reshape(33, 31)
    got[32:, :] = float("nan")
    got[:, 16:] = float("nan")
    message = _unwritten(got)
    assert "every index 32 and above of dimension 0 and every index 16 and above of dimension 1" in message
    assert "triton.cdiv" in message
    hole = torch.arange(20, dtype=torch.float32).reshape(4, 5)
    hole[1:, 2:] = float("nan")  # not a leading block written: no grid claim
    assert "triton.cdiv" not in _unwritten(hole)


def test_a_matmul_on_tf32_rounded_inputs_is_told_from_other_errors():
    from judge.judging.checks import model_explains, to_tf32

    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(64, 96, generator=gen), torch.randn(96, 48, generator=gen)
    exact = a.double() @ b.double()
    tf32 = to_tf32(a) @ to_tf32(b)
    other_order = to_tf32(a)[:, :40] @ to_tf32(b)[:40] + to_tf32(a)[:, 40:] @ to_tf32(b)[40:]  # a kernel's own order
    assert model_explains(other_order, exact, tf32)
    noise = exact + (tf32.double() - exact).abs().max() * (torch.rand(exact.shape, generator=gen, dtype=torch.float64) - 0.5)
    assert not model_explains(noise, exact, tf32)  # as large an error, not TF32's
    assert not model_explains((a @ b), exact, tf32)  # fp32: closer to exact
    assert not model_explains(other_order, exact, exact.float())  # rounding changed nothing: no claim
    cut = to_tf32(a, truncate=True)[:, :40] @ to_tf32(b, truncate=True)[:40] + \
        to_tf32(a, truncate=True)[:, 40:] @ to_tf32(b, truncate=True)[40:]  # as an H200's tensor cores read them
    assert model_explains(cut, exact, to_tf32(a, truncate=True) @ to_tf32(b, truncate=True))
    assert not model_explains(cut, exact, tf32)  # the other emulation does not explain it: both are tried



def test_the_hints_stay_quiet_where_they_cannot_know():
    """Red team 27: bool outputs (True is poison and a value), non-float outputs for TF32, NaN inputs."""
    from judge.judging.checks import model_explains, to_tf32

    flags = torch.tensor([False, False, True, True])
    result = compare_output("f", flags, torch.tensor([False, False, False, False]), EXACT, poison=True)
    assert "triton.cdiv" not in result.message()
    assert not model_explains(torch.tensor([True]), torch.tensor([False]), torch.tensor([True]))
    nan = torch.tensor([-1], dtype=torch.int32).view(torch.float32)  # a NaN whose payload is all ones
    assert torch.isnan(to_tf32(nan)).all() and torch.isnan(to_tf32(nan, truncate=True)).all()


# -- which narrower precision a wrong answer matches (issue 49 item 1) -----------------------------
def _precision(challenge: str, params: dict, got_of) -> str | None:
    """``Reference.precision_of`` for outputs ``got_of(args, reference)`` makes from the case's inputs."""
    from judge.challenge.catalog import load_challenge

    spec = load_challenge(challenge)
    reference = Reference(spec, "cpu")
    args = make_arguments(spec, params, seed=3, device="cpu")
    got = got_of(args, reference)
    return reference.precision_of(params, 3, got, list(got))


def test_a_transpose_rounded_to_float16_is_told_float16_not_tf32():
    """A transpose that rounds to fp16 before its store was told "matches a matmul whose inputs were rounded to
    TF32 ... use tl.dot(a, b, input_precision="ieee")": a transpose has no matmul."""
    from judge.judging.hints import precision_hint

    def through(dtype):
        return lambda args, _: {"output": args[0].T.contiguous().to(dtype).to(torch.float32)}

    found = _precision("transpose", {"rows": 5, "cols": 7}, through(torch.float16))
    assert found == "float16 output" and "rounded to float16" in precision_hint(found)
    assert "TF32" not in precision_hint(found) and "tl.dot" not in precision_hint(found)
    assert _precision("transpose", {"rows": 5, "cols": 7}, through(torch.bfloat16)) == "bfloat16 output"
    assert _precision("transpose", {"rows": 5, "cols": 7}, lambda args, _: {"output": args[0].T + 1}) is None


def test_tf32_is_named_only_where_the_challenge_has_a_matmul():
    from judge.judging.checks import to_tf32

    def tf32_matmul(args, _):
        return {"C": (to_tf32(args[0]).double() @ to_tf32(args[1]).double()).float()}

    assert _precision("matmul", {"M": 9, "N": 40, "K": 7}, tf32_matmul) == "TF32"

    def half_inputs_added(args, _):  # vector_add on inputs rounded to a 10-bit mantissa: no matmul to blame
        return {"C": args[0].to(torch.float16).float() + args[1].to(torch.float16).float()}

    assert _precision("vector_add", {"N": 300}, half_inputs_added) == "float16 inputs"


def test_matmul_like_reads_the_operation_not_the_decorator_nor_comments():
    from judge.judging.hints import matmul_like

    assert matmul_like("def reference(A, B, C, M, N, K):\n    torch.matmul(A, B, out=C)")
    assert matmul_like("C.copy_(A @ B)") and matmul_like("return self.conv(x)\nself.conv = nn.Conv2d(3, 8, 3)")
    assert matmul_like("y = F.linear(x, w)") and matmul_like("out = torch.einsum('ij,jk->ik', a, b)")
    assert not matmul_like("def reference(input, output, rows, cols):\n    output.copy_(input.T)")
    assert not matmul_like("@torch.no_grad()\ndef reference(x, y):\n    y.copy_(x * 2)  # not a matmul @ all")
    assert not matmul_like("torch.add(A, B, out=C)  # like a matmul(A, B)")
