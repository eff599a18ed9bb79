"""LeetGPU challenge folders (docs/leetgpu.md): the signature mapping, the loader,
the seeded tests, shipped inputs, the checks and the CLI, on our own stand-in
challenges (tests/leetgpu; CI needs no checkout of LeetGPU's repository).
End-to-end runs through the worker are in test_leetgpu_e2e.py."""

from __future__ import annotations

import ctypes
import math
import re

import pytest
import torch
from click.testing import CliRunner

from judge.challenge.catalog import load_challenge
from judge.challenge.leetgpu import (LeetGpuError, build_performance_test, build_tests, list_folder, load_folder,
                                     performance_size)
from judge.challenge.leetgpu_format import SignatureError, html_to_text, map_signature, over_budget
from judge.challenge.spec_model import Tensor
from judge.cli import main
from judge.judging.shipped_runner import ShippedReference

from conftest import ROOT

CHALLENGES = ROOT / "tests" / "leetgpu" / "challenges"
BROKEN = ROOT / "tests" / "leetgpu" / "broken"
VEC_ADD = CHALLENGES / "easy" / "1_vec_add"

F32 = ctypes.POINTER(ctypes.c_float)


# -- the signature -----------------------------------------------------------------------
def test_pointers_become_tensors_of_the_tests_dtype_and_scalars_keep_their_kind():
    signature = {"x": (ctypes.POINTER(ctypes.c_uint16), "in"), "y": (F32, "inout"),
                 "alpha": (ctypes.c_float, "in"), "n": (ctypes.c_size_t, "in")}
    params = map_signature(signature, {"x": "float16", "y": "float32"})
    assert [(p.name, p.kind, p.dtype) for p in params] == [
        ("x", "tensor", "float16"), ("y", "tensor", "float32"), ("alpha", "scalar", "float"), ("n", "scalar", "int")]
    assert params[1].role == "inout"


def test_torch_tensor_as_the_type_takes_the_tests_dtype():
    (param,) = map_signature({"x": (torch.Tensor, "out")}, {"x": "int8"})
    assert isinstance(param, Tensor) and param.dtype == "int8" and param.role == "out"


def test_a_torch_module_as_the_type_is_a_model_argument():
    """easy/41_simple_inference's signature: ``"model": (nn.Module, "in")`` (issue 27: it could not load)."""
    params = map_signature({"input": (torch.Tensor, "in"), "model": (torch.nn.Module, "in"),
                            "output": (torch.Tensor, "out")}, {"input": "float32", "output": "float32"})
    assert [p.kind for p in params] == ["tensor", "module", "tensor"] and params[1].role == "in"


@pytest.mark.parametrize("signature, dtypes, named", [
    ({"text": (ctypes.c_char_p, "in")}, {}, "c_char_p"),
    ({"p": (ctypes.POINTER(ctypes.c_char_p), "in")}, {"p": "int8"}, "POINTER(c_char_p)"),
    ({"x": (F32, "in")}, {"x": "float16"}, "float16 (2 bytes)"),
    ({"x": (F32, "in")}, {}, "holds no tensor"),
    ({"n": (ctypes.c_int, "out")}, {}, "only tensors can be outputs"),
    ({"x": (F32, "both")}, {"x": "float32"}, "'in' | 'out' | 'inout'"),
    ({"model": (torch.nn.Module, "out")}, {}, "a model can only be an input"),
])
def test_a_signature_the_judge_cannot_map_is_named(signature, dtypes, named):
    with pytest.raises(SignatureError) as info:
        map_signature(signature, dtypes)
    assert named in str(info.value) and f"'{next(iter(signature))}'" in str(info.value)


def test_statement_html_becomes_text():
    text = html_to_text("<p>Add <code>A</code> &amp; <code>B</code>,\n   row   by row.</p><h2>Rules</h2>"
                        "<ul><li>one</li><li>two</li></ul><pre>  x = 1\n  y = 2</pre>")
    assert text == "Add `A` & `B`, row by row.\n\nRules\n\n- one\n- two\n\n  x = 1\n  y = 2"


def test_the_cpu_budget_counts_every_tensor_element():
    assert not over_budget([100, 156], budget=256)
    assert over_budget([100, 157], budget=256)


# -- loading -----------------------------------------------------------------------------
def test_a_stand_in_folder_loads_as_a_spec():
    spec = load_folder(VEC_ADD)
    assert (spec.name, spec.title, spec.difficulty) == ("1_vec_add", "Vector Add (test)", "easy")
    assert (spec.tolerance.kind, spec.tolerance.atol, spec.tolerance.rtol) == ("close", 1e-5, 1e-5)
    assert spec.signature_text() == "solve(A, B, C, N)"
    assert [getattr(p, "role", None) for p in spec.parameters] == ["in", "in", "out", None]
    assert "`C[i] = A[i] + B[i]`" in spec.statement and "& nothing else" in spec.statement
    assert dict(spec.c_types)["C"] == "POINTER(c_float)"


def test_the_catalog_resolves_a_folder_and_explains_one_without_challenge_py():
    assert load_challenge(str(VEC_ADD)).shipped
    assert load_challenge(str(VEC_ADD / "challenge.py")).name == "1_vec_add"
    with pytest.raises(LeetGpuError) as info:
        load_challenge(str(CHALLENGES / "easy"))
    assert "no challenge.py" in str(info.value) and "1_vec_add" in str(info.value)


def test_a_challenge_that_does_not_load_shows_its_own_traceback():
    with pytest.raises(LeetGpuError) as info:
        load_folder(BROKEN / "easy" / "1_import_error")
    message = str(info.value)
    assert "1_import_error/challenge.py\", line 6, in table_of_primes" in message
    assert message.rstrip().endswith("RuntimeError: the table is missing")
    assert "judge/" not in message.replace(str(ROOT), "")  # none of the judge's frames


def test_each_checkout_gets_its_own_core_package():
    load_folder(VEC_ADD)  # imports tests/leetgpu/challenges/core
    with pytest.raises(LeetGpuError, match="c_char_p"):  # its assert WHICH == "broken" passed first
        load_folder(BROKEN / "easy" / "2_bad_type")
    assert load_folder(VEC_ADD).title == "Vector Add (test)"


def test_more_than_one_gpu_is_refused_when_resolving_but_listed():
    with pytest.raises(LeetGpuError, match="needs 2 GPUs"):
        load_challenge(str(BROKEN / "medium" / "3_two_gpus"))
    problems = {item.folder.name: item.problem for item in list_folder(BROKEN)}
    assert problems["3_two_gpus"].startswith("needs 2 GPUs")
    assert "RuntimeError: the table is missing" in problems["1_import_error"]
    assert "c_char_p" in problems["2_bad_type"]
    assert "Doubler (a class of its challenge.py), not one of torch.nn's own" in problems["4_custom_model"]


def test_list_orders_by_difficulty_and_sizes_the_performance_test_without_memory():
    listed = list_folder(CHALLENGES)
    assert [item.folder.name for item in listed] == [
        "1_vec_add", "2_count_positive", "7_histogram", "9_simple_inference", "3_half_scale", "4_inplace_affine",
        "8_matmul", "5_sum_diff", "6_xor_mask"]
    assert all(not item.problem for item in listed)
    assert performance_size(load_folder(VEC_ADD)) == ("N=4194304", 3 * 4 * (1 << 22))


# -- the tests the judge builds ---------------------------------------------------------------
def test_tests_are_seeded_and_the_example_comes_first():
    spec = load_folder(VEC_ADD)
    first, _ = build_tests(spec, "cpu", seed=1)
    again, _ = build_tests(spec, "cpu", seed=1)
    other, _ = build_tests(spec, "cpu", seed=2)
    assert [c.name for c in first] == ["example", "functional-1", "functional-2", "functional-3", "functional-4"]
    assert first[0].arguments["A"].tolist() == [1.0, 2.0, 3.0] and first[0].params == {"N": 3}
    assert torch.equal(first[2].arguments["A"], again[2].arguments["A"])
    assert not torch.equal(first[2].arguments["A"], other[2].arguments["A"])


def test_the_challenges_generators_do_not_disturb_the_judges_own_random_state():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    build_tests(load_folder(VEC_ADD), "cpu", seed=9)
    assert torch.equal(torch.rand(3), expected)


def test_the_cpu_budget_skips_large_functional_tests_but_never_the_example():
    spec = load_folder(VEC_ADD)
    kept, skipped = build_tests(spec, "cpu", seed=1, cpu_budget=3 * 1025)
    assert [c.name for c in kept] == ["example", "functional-1", "functional-2", "functional-3"]
    assert [(c.name, c.elements) for c in skipped] == [("functional-4", 300_000)]
    kept, skipped = build_tests(spec, "cpu", seed=1, cpu_budget=1)
    assert [c.name for c in kept] == ["example"] and len(skipped) == 4


def test_lazy_descriptors_of_the_performance_test_are_drawn():
    case = build_performance_test(load_folder(VEC_ADD), "cpu", seed=4)
    a, c = case.arguments["A"], case.arguments["C"]
    assert a.shape == (1 << 22,) and a.dtype == torch.float32 and -1.0 <= a.min() and a.max() < 1.0
    assert case.kind == "benchmark" and case.params == {"N": 1 << 22}
    assert c.abs().sum() == 0 and case.nbytes == 3 * 4 * (1 << 22)
    inout = build_performance_test(load_folder(CHALLENGES / "medium" / "4_inplace_affine"), "cpu", seed=4)
    assert inout.nbytes == 2 * 4 * (1 << 20)  # read and written


# -- shipped inputs and the checks -------------------------------------------------------------
def test_a_tests_arguments_are_its_values_with_the_outputs_it_does_not_start_poisoned():
    spec = load_folder(CHALLENGES / "hard" / "5_sum_diff")
    case = build_tests(spec, "cpu", seed=3)[0][2]
    assert case.arguments["total"].abs().sum() == 0  # made with torch.empty: the reference sees zeros
    assert case.kept == {"diff"} and (case.arguments["diff"] == 7).all()  # filled with 7: it starts from 7
    call = ShippedReference(spec, "cpu").call_arguments(case.params, 0, case)
    args = call.values
    assert torch.equal(args[0], case.arguments["a"]) and torch.equal(args[1], case.arguments["b"])
    assert args[2].shape == (17, 33) and args[2].isnan().all() and (args[3] == 7).all()
    assert args[4:] == [17, 33] and call.kept == {"diff"}
    assert case.arguments["total"].abs().sum() == 0  # the test's own tensors untouched


def test_an_output_is_told_initialised_by_what_the_generator_left_in_it():
    """Run under PoisonedEmpty, torch.empty and its kin come back poisoned, so what a generator made with
    torch.zeros, torch.full or by filling an empty tensor is told from what it left uninitialised."""
    from judge.challenge.leetgpu import PoisonedEmpty, initialised

    with PoisonedEmpty():
        made = {"empty": torch.empty(4), "empty_like": torch.empty_like(torch.ones(3)),
                "new_empty": torch.ones(2).new_empty(5), "int_empty": torch.empty(3, dtype=torch.int32),
                "bool_empty": torch.empty(2, dtype=torch.bool), "zeros": torch.zeros(4),
                "int_zeros": torch.zeros(1, dtype=torch.int32), "full": torch.full((2,), 7.0),
                "filled": torch.empty(3).fill_(0.0), "bool_zeros": torch.zeros(2, dtype=torch.bool)}
    assert {name for name, t in made.items() if initialised(t)} == {
        "zeros", "int_zeros", "full", "filled", "bool_zeros"}
    assert not initialised(torch.empty(0)) and not initialised(torch.empty(3, device="meta"))
    with PoisonedEmpty() as mode:  # red team 27: what made the tensor decides where values cannot
        ones, empty_bool = torch.ones(2, dtype=torch.bool), torch.empty(2, dtype=torch.bool)
        scratch = torch.empty(2, dtype=torch.complex64)  # not a spec dtype: left alone, no crash
        view = torch.empty(6)[2:]
    assert mode.initialised(ones) and not mode.initialised(empty_bool) and not mode.initialised(view)
    assert not mode.initialised(scratch) and mode.initialised(torch.zeros(1))


def test_the_reference_checks_outputs_inputs_and_unwritten_elements():
    spec = load_folder(VEC_ADD)
    case = build_tests(spec, "cpu", seed=3)[0][2]
    reference = ShippedReference(spec, "cpu")
    a, b = case.arguments["A"], case.arguments["B"]
    assert all(m.ok for m in reference.check_case(case, {"A": a.clone(), "B": b.clone(), "C": a + b}))
    half = a + b
    half[3:] = math.nan
    problems = [m for m in reference.check_case(case, {"A": a.clone(), "B": b.clone(), "C": half}) if not m.ok]
    assert len(problems) == 1 and "4 of 7 elements never written" in problems[0].message()
    changed = a.clone()
    changed[0] += 1
    problems = [m for m in reference.check_case(case, {"A": changed, "B": b.clone(), "C": a + b}) if not m.ok]
    assert problems[0].message().startswith("input 'A' was modified")


def test_the_reference_answers_the_benchmark_stage_for_the_performance_test():
    spec = load_folder(CHALLENGES / "easy" / "2_count_positive")
    reference = ShippedReference(spec, "cpu")
    reference.benchmark = build_performance_test(spec, "cpu", seed=1)
    call = reference.call_arguments({"N": 1 << 20}, 0)
    assert [tuple(v.shape) for v in call.values if isinstance(v, torch.Tensor)] == [(1 << 20,), (1,)]
    count = (reference.benchmark.arguments["data"] > 0).sum().to(torch.int32).reshape(1)
    assert all(m.ok for m in reference.check({}, 0, {"count": count}))
    assert not reference.check({}, 0, {"count": count + 1})[0].ok


def test_the_performance_test_is_drawn_again_with_fresh_values_for_each_timed_call():
    """Every timed call gets the performance test drawn again by the challenge's generator from its own seed
    (benchmark_stage.TimedCalls.place): same shapes, other values, the same values for the same seed;
    and the reference checks a call against the values that call got, never the warm-up's."""
    spec = load_folder(CHALLENGES / "easy" / "2_count_positive")
    first = build_performance_test(spec, "cpu", seed=1)
    drawn, again = first.redraw(11), first.redraw(11)
    data = drawn.arguments["data"]
    assert data.shape == first.arguments["data"].shape and not torch.equal(data, first.arguments["data"])
    assert torch.equal(data, again.arguments["data"]) and drawn.params == first.params and drawn.redraw is not None
    reference = ShippedReference(spec, "cpu")
    reference.benchmark = first
    count = (data > 0).sum().to(torch.int32).reshape(1)
    assert all(m.ok for m in reference.check({}, 0, {"count": count}, case=drawn))
    assert not reference.check({}, 0, {"count": count}, case=first)[0].ok  # the warm-up's values: another count
    assert torch.equal(reference.call_arguments({}, 0, drawn).values[0], data) and "performance" not in reference._expected


@pytest.mark.parametrize("make, call", [
    (lambda: torch.nn.Linear(3, 2), lambda m, x: m(x)),
    (lambda: torch.nn.Linear(3, 2, bias=False), lambda m, x: m(x)),
    (lambda: torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.LayerNorm(4)), lambda m, x: m(x)),
    (lambda: torch.nn.Conv1d(3, 2, 2, padding=1), lambda m, x: m(x.reshape(1, 3, 2))),
    (lambda: torch.nn.MultiheadAttention(3, 1), lambda m, x: m(x, x, x)[0]),
    (lambda: torch.nn.BatchNorm1d(3).eval(), lambda m, x: m(x)),
])
def test_a_model_travels_as_data_and_is_rebuilt_the_same(make, call):
    """shipped_module: torch.nn's own classes, plain attributes and the tensors' bytes through JSON and back
    (the worker's side), the same outputs; no pickle, and each copy has tensors of its own."""
    import json

    from judge.challenge import shipped_module

    torch.manual_seed(0)
    model, x = make(), torch.randn(2, 3)
    description, values = shipped_module.describe(model)
    rebuilt = shipped_module.rebuild(json.loads(json.dumps(description)), [v.detach().clone() for v in values])
    assert shipped_module.tensor_specs(description) == [(str(v.dtype).removeprefix("torch."), list(v.shape))
                                                        for v in values]
    with torch.no_grad():
        assert torch.equal(call(model, x), call(rebuilt, x)) and rebuilt.training == model.training
    copy = shipped_module.copy(rebuilt)
    assert all(a.data_ptr() != b.data_ptr() for (_, a), (_, b) in zip(shipped_module.tensors(copy),
                                                                      shipped_module.tensors(rebuilt)))


def test_a_model_that_cannot_travel_as_data_is_refused_and_only_torch_nn_classes_are_rebuilt():
    from judge.challenge import shipped_module
    from judge.challenge.shipped_module import ModuleError

    class Own(torch.nn.Linear):
        pass

    hooked, odd = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    hooked.register_forward_hook(lambda *args: None)
    odd.table = {"a": 1}
    for model, words in [(Own(2, 2), "not one of torch.nn's own"), (hooked, "has hooks (_forward_hooks)"),
                         (odd, "model.table is a dict")]:
        with pytest.raises(ModuleError, match=re.escape(words)):
            shipped_module.describe(model)
    description, values = shipped_module.describe(torch.nn.Linear(2, 2))
    for path in ("os.system", "builtins.eval", "torch.nn.modules.linear.F", "torch.nn.modules.nothing.Linear",
                 "torch.nn.modules.linear.Linear.forward"):
        with pytest.raises(ModuleError, match="not one of torch.nn's own"):
            shipped_module.rebuild(dict(description, **{"class": path}), values)
    with pytest.raises(ModuleError, match="cannot be set"):
        shipped_module.rebuild(dict(description, attributes={"_forward_hooks": 1}), values)


def test_a_model_test_is_built_copied_for_the_reference_and_its_weights_checked():
    spec = load_folder(CHALLENGES / "easy" / "9_simple_inference")
    assert [p.kind for p in spec.parameters] == ["tensor", "module", "tensor"]
    case = build_tests(spec, "cpu", seed=3)[0][3]  # functional-3: Linear(4, 3), a batch of 8
    model = case.arguments["model"]
    assert case.label() == "input[8, 4], output[8, 3]" and case.elements == 8 * 4 + 12 + 3 + 8 * 3
    reference = ShippedReference(spec, "cpu")
    assert [name for name, _ in reference.weights(case)] == ["model.weight", "model.bias"]
    weight = model.weight.detach().clone()
    expected = reference.expected(case)["output"]
    assert torch.allclose(expected, case.arguments["input"] @ weight.T + model.bias.detach())
    got = {"input": case.arguments["input"].clone(), "output": expected.clone(), "model.weight": weight.clone(),
           "model.bias": model.bias.detach().clone()}
    assert all(m.ok for m in reference.check_case(case, got))
    got["model.weight"][0, 0] += 1
    assert [m.message() for m in reference.check_case(case, got) if not m.ok][0].startswith(
        "input 'model.weight' was modified")
    assert torch.equal(model.weight, weight)  # the reference ran on a copy


# -- the CLI -----------------------------------------------------------------------------------
@pytest.fixture
def cli():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_cli_list_of_a_folder_says_what_can_run_and_why_not(cli):
    result = cli("list", CHALLENGES)
    assert result.exit_code == 0 and "9 of 9 challenges can run" in result.output
    assert "N=4194304 (50.3 MB)" in result.output and "medium" in result.output
    result = cli("list", BROKEN)
    assert result.exit_code == 0 and "0 of 4 challenges can run" in result.output
    assert "needs 2 GPUs" in result.output and "c_char_p" in result.output


def test_cli_list_of_a_folder_fits_a_pipes_width(cli):
    """Issue 49 item 9: LeetGPU's list was ~250 columns wide in a pipe (its signatures and sizes on one line)."""
    from judge.report.console import LIST_WIDTH

    for folder in (CHALLENGES, BROKEN):
        table = cli("list", folder).output.splitlines()[:-1]  # the last line is the sentence after the table
        assert max(len(line) for line in table) <= LIST_WIDTH, "\n".join(table)


def test_cli_show_prints_statement_signature_tolerance_and_tests(cli):
    result = cli("show", CHALLENGES / "medium" / "3_half_scale")
    assert result.exit_code == 0
    for text in ("Half Scale (test)", "solve(x, y, alpha, N)", "POINTER(c_ushort)", "float16", "atol=0.001",
                 "test functional-2: alpha=-1.5, N=300", "performance test: alpha=3.0, N=1048576 (4.2 MB moved)"):
        assert text in result.output


def test_cli_show_of_a_challenge_with_a_model_argument(cli):
    """A torch.nn.Module argument (LeetGPU's easy/41_simple_inference) has no C type: judge show says a C solve()
    cannot take it, instead of failing on the model (AttributeError: 'Module' object has no attribute 'c_type')."""
    result = cli("show", CHALLENGES / "easy" / "9_simple_inference")
    assert result.exit_code == 0, result.output
    assert "in CUDA C++: not possible (parameter 'model' (a torch.nn.Module) cannot be passed to a C solve())" \
        in result.output
    assert "Linear(in_features=2, out_features=2, bias=True)" in result.output  # the example's model


def test_cli_init_writes_the_folders_triton_starter(cli, tmp_path):
    target = tmp_path / "mine.py"
    result = cli("init", VEC_ADD, target)
    assert result.exit_code == 0
    assert target.read_text() == (VEC_ADD / "starter" / "starter.triton.py").read_text()
    result = cli("init", CHALLENGES / "easy" / "2_count_positive", tmp_path / "other.py")
    assert result.exit_code == 2 and "no starter/starter.triton.py or starter/starter.pytorch.py" in result.output
    model = CHALLENGES / "easy" / "9_simple_inference"  # as LeetGPU's 41: a PyTorch starter only
    assert cli("init", model, tmp_path / "model.py").exit_code == 0
    assert (tmp_path / "model.py").read_text() == (model / "starter" / "starter.pytorch.py").read_text()


def test_cli_run_errors_of_a_folder_exit_2(cli, tmp_path):
    solution = tmp_path / "sol.py"
    solution.write_text("def solve(*args):\n    pass\n")
    result = cli("run", CHALLENGES / "easy", solution)
    assert result.exit_code == 2 and "no challenge.py in this folder" in result.output
    result = cli("run", BROKEN / "easy" / "1_import_error", solution)
    assert result.exit_code == 2 and "RuntimeError: the table is missing" in result.output
    assert "Traceback" in result.output


def test_cli_validate_of_a_folder_says_what_checks_one(cli):
    result = cli("validate", VEC_ADD)
    assert result.exit_code == 2 and "judge list FOLDER" in result.output


def test_uint32_tensors_are_shipped_and_poisoned_with_their_maximum():
    """Their minimum is 0, the commonest value there is: a poor poison."""
    spec = load_folder(CHALLENGES / "hard" / "6_xor_mask")
    case = build_tests(spec, "cpu", seed=3)[0][2]
    x, y, mask, n = ShippedReference(spec, "cpu").call_arguments(case.params, 0, case).values
    assert x.dtype == torch.uint32 and torch.equal(x, case.arguments["x"]) and (mask, n) == (0x5A5A5A5A, 1000)
    assert y.dtype == torch.uint32 and (y.to(torch.int64) == 2**32 - 1).all()
    reference = ShippedReference(spec, "cpu")
    expected = reference.expected(case)["y"]
    assert all(m.ok for m in reference.check_case(case, {"x": x, "y": expected}))
    (problem,) = reference.check_case(case, {"x": x, "y": y})[1:]
    assert problem.unwritten == 1000


def test_cli_sweep_of_a_folder_is_refused_clearly(cli):
    result = cli("sweep", VEC_ADD, ROOT / "tests" / "solutions" / "leetgpu_vec_add.py")
    assert result.exit_code == 2 and "nothing to sweep" in result.output


def test_grade_resume_keys_hash_a_folders_challenge_py():
    import hashlib

    from judge.grading.records import _file_digest

    assert _file_digest(str(VEC_ADD)) == hashlib.sha256((VEC_ADD / "challenge.py").read_bytes()).hexdigest()
