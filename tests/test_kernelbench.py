"""KernelBench problems (docs/kernelbench.md): the pure format (size constants, CPU mode's halving, tolerances),
fast_p's arithmetic, loading and sizing problems, seeded draws and weights, the judge-side checks, and the
commands that read problems (list, show, init, a folder or a non-problem given to run).  No worker here:
tests/test_kernelbench_e2e.py judges through it."""

from __future__ import annotations

import ast
import json
import math
import textwrap
from dataclasses import replace

import pytest
import torch
from click.testing import CliRunner

from judge.challenge import kernelbench_format as fmt
from judge.challenge.catalog import SearchPath, find_spec_path, load_challenge
from judge.challenge.kernelbench import KernelBenchError, load_problem, sized
from judge.challenge.kernelbench_problem import Problem
from judge.challenge.spec_model import Scalar, Tolerance
from judge.cli import main
from judge.grading.fast_p import Scored, fast_p, geometric_mean_speedup, kernelbench_scores, scored_of
from judge.judging.checks import compare_output
from judge.challenge.kernelbench_inputs import DISTRIBUTIONS, KINKS, trial_inputs
from judge.judging.kernelbench_checks import DegenerateOutput, PrecisionDowngrade, precision_fingerprint
from judge.judging.kernelbench_runner import ConstantOutput, KernelBenchReference, compare_chunked, cpu_note
from judge.authoring.kernelbench_starter import kernelbench_starter

from conftest import ROOT

PROBLEMS = ROOT / "tests" / "kernelbench" / "KernelBench"
LEVEL1 = PROBLEMS / "level1"


@pytest.fixture(autouse=True)
def fresh_descriptions(tmp_path, monkeypatch):
    """Every test describes its problems afresh: a description kept by an earlier run (kernelbench_cache.py) would
    hide what the sizing and describing code does now."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))


# -- the format (pure) ---------------------------------------------------------------------------
SOURCE = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def forward(self, x):
            return x

    batch_size = 4096
    dim = 2048 * 2
    kernel_size = 3
    eps = 1e-5
    input_shape = (32768, 8)
    height, width = 128, 256
    negative = -1

    def get_inputs():
        return [torch.rand(batch_size, dim)]

    def get_init_inputs():
        return []
""")


def test_a_problem_is_told_from_a_solution_and_from_other_python_without_running_it():
    assert fmt.is_problem_source(SOURCE) and not fmt.is_solution_source(SOURCE)
    assert fmt.is_solution_source("class ModelNew:\n    pass\n") and not fmt.is_problem_source("class ModelNew: pass")
    assert not fmt.is_problem_source("def solve(a, b):\n    pass\n")
    assert not fmt.is_problem_source("this is not python(")


def test_size_constants_are_the_module_level_integer_literals_tuples_included():
    assert fmt.size_constants(SOURCE) == {"batch_size": 4096, "dim": 4096, "kernel_size": 3, "input_shape[0]": 32768,
                                          "input_shape[1]": 8, "height": 128, "width": 256, "negative": -1}


def test_with_sizes_puts_new_values_in_place_and_keeps_the_files_line_numbers():
    tree = fmt.with_sizes(SOURCE, {"dim": 64, "input_shape[0]": 16, "width": 32})
    namespace: dict = {}
    exec(compile(tree, "problem.py", "exec"), namespace)  # noqa: S102 - our own fixture
    assert (namespace["batch_size"], namespace["dim"], namespace["input_shape"], namespace["width"]) == \
        (4096, 64, (16, 8), 32)
    lines = {node.targets[0].id: node.lineno for node in tree.body if isinstance(node, ast.Assign)
             and isinstance(node.targets[0], ast.Name)}
    assert lines["dim"] == SOURCE.splitlines().index("dim = 2048 * 2") + 1
    with pytest.raises(fmt.ProblemFormatError, match="no size constant named nope"):
        fmt.with_sizes(SOURCE, {"nope": 1})


def test_cpu_mode_halves_the_largest_constant_above_the_floor_first():
    values = {"batch_size": 4096, "dim": 4096, "kernel_size": 3, "big": 32768}
    assert fmt.next_to_halve(values) == "big"
    assert fmt.next_to_halve(values, {"big"}) == "batch_size"  # equal values: the first in the file
    assert fmt.next_to_halve({"kernel_size": 3, "dim": 16}) is None  # at the floor: kernel sizes, dims stay
    assert fmt.halved(17) == 16 and fmt.halved(40) == 20 and fmt.halved(6, 4) == 4


def test_kernelbench_tolerances_by_dtype_and_exact_integers():
    assert fmt.tolerance_for("float32") == ("close", 1e-4)
    assert fmt.tolerance_for("float16") == fmt.tolerance_for("bfloat16") == ("close", 1e-2)
    assert fmt.tolerance_for("int64") == ("exact", 0.0) and fmt.tolerance_for("bool") == ("exact", 0.0)


def test_load_inline_with_cuda_sources_is_recognised():
    assert fmt.uses_load_inline("from torch.utils.cpp_extension import load_inline\n"
                                "m = load_inline(name='x', cpp_sources='', cuda_sources=src, functions=['f'])\n")
    assert fmt.uses_load_inline("import torch.utils.cpp_extension as c\nm = c.load_inline('x', cpp, cuda)\n")
    assert not fmt.uses_load_inline("import torch\nx = torch.relu(y)\n")


def test_the_level_comes_from_the_folders():
    assert fmt.problem_level(("home", "KernelBench", "level2")) == "level2"
    assert fmt.problem_level(("tmp", "mine")) == "-"


# -- fast_p (pure) --------------------------------------------------------------------------------
def test_fast_p_divides_by_every_problem_and_counts_speedups_strictly_above_p():
    scored = [Scored(True, 2.5), Scored(True, 1.0), Scored(True, 0.5), Scored(False), Scored(True, 1.5)]
    assert fast_p(scored, 0) == 4 / 5  # fast_0: the share correct
    assert fast_p(scored, 1) == 2 / 5  # 1.0 is not faster than 1x
    assert fast_p(scored, 2) == 1 / 5
    assert geometric_mean_speedup(scored) == pytest.approx((2.5 * 1.0 * 0.5 * 1.5) ** 0.25)
    assert fast_p([], 1) is None and geometric_mean_speedup([Scored(False)]) is None


def test_without_timings_only_fast_0_has_a_value():
    scored = [Scored(True), Scored(False)]
    assert fast_p(scored, 0) == 0.5 and fast_p(scored, 1) is None and geometric_mean_speedup(scored) is None


def test_scores_per_submission_from_grade_records():
    def record(who, verdict, *speedups):
        return {"submission": who, "verdict": verdict,
                "benchmarks": [{"speedup_vs_torch": s} for s in speedups]}

    records = [record("a", "accepted", 2.0), record("a", "wrong_answer", 9.0), record("a", "accepted", 4.0, 1.0),
               record("b", "accepted", 0.5), {"submission": "b", "verdict": "pending"}]
    assert scored_of(records[1]) == Scored(False, None)  # a wrong answer's speed counts for nothing
    assert scored_of(records[2]).speedup == pytest.approx(2.0)  # the geometric mean of its cases
    doc = kernelbench_scores(records)
    assert doc["p"] == [0, 1, 2]
    a, b = doc["submissions"]["a"], doc["submissions"]["b"]
    assert (a["problems"], a["correct"], a["timed"]) == (3, 2, 2)
    assert (a["fast_0"], a["fast_1"], a["fast_2"]) == (2 / 3, 2 / 3, 0.0)
    assert a["geomean_speedup"] == pytest.approx(2.0)
    assert b["problems"] == 1 and b["fast_1"] == 0.0 and b["geomean_speedup"] == pytest.approx(0.5)


# -- loading and sizing problems -------------------------------------------------------------------
def test_a_problem_file_loads_with_forwards_names_dtypes_shapes_and_scalars():
    spec = load_problem(LEVEL1 / "5_Min_Max_Argmax.py")
    assert spec.kernelbench and spec.name == "5_Min_Max_Argmax" and spec.level == "level1"
    assert [(p.name, p.kind, getattr(p, "role", "in")) for p in spec.parameters] == [
        ("x", "tensor", "in"), ("offset", "scalar", "in"), ("output0", "tensor", "out"),
        ("output1", "tensor", "out"), ("output2", "tensor", "out")]
    assert isinstance(spec.parameters[1], Scalar) and spec.parameters[1].dtype == "float"
    assert [p.dtype for p in spec.outputs] == ["float32", "float32", "int64"]
    assert spec.parameters[0].shape == (256, 4096) and spec.outputs[0].shape == (256,)
    assert [t.name for t in spec.tests] == [f"trial-{i}" for i in range(1, 6)] + ["signed", "wide", "kinks"]
    assert spec.signature_text() == "ModelNew(*get_init_inputs()).forward(x, offset) -> output0, output1, output2"


def test_cpu_mode_shrinks_a_problem_to_the_budget_and_says_how(tmp_path):
    spec = load_problem(LEVEL1 / "1_Scaled_ReLU.py")
    small = sized(spec, 20_000)
    assert small.shrunk_from == {"dim": 8192} and small.sizes_used["dim"] <= 256
    assert math.prod(small.parameters[0].shape) * 2 <= 20_000 and small.parameters[0].shape[0] == 64
    assert sized(spec, None) is spec  # a GPU's run: as written
    note = cpu_note(small, 20_000, asked=True)
    assert "dim 8192 -> " in note and "--cpu-elements 20000" in note


def test_constants_that_must_stay_equal_are_halved_together(tmp_path):
    """KernelBench's 100_HingeLoss broadcasts (batch, n) by (batch,): batch_size and input_shape[0] must stay equal,
    so halving one alone breaks it; they are halved together."""
    problem = tmp_path / "hinge.py"
    problem.write_text(textwrap.dedent("""\
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, predictions, targets):
                return torch.mean(torch.clamp(1 - predictions * targets, min=0))

        batch_size = 4096
        input_shape = (4096,)

        def get_inputs():
            return [torch.rand(batch_size, *input_shape), torch.randint(0, 2, (batch_size,)).float() * 2 - 1]

        def get_init_inputs():
            return []
    """))
    small = sized(load_problem(problem), 1 << 18)
    assert small.sizes_used["batch_size"] == small.sizes_used["input_shape[0]"] <= 512


def test_a_file_that_is_no_problem_and_a_broken_problem_are_errors_that_say_so(tmp_path):
    other = tmp_path / "mine.py"
    other.write_text("def solve(a):\n    pass\n")
    with pytest.raises(KernelBenchError, match="is not a KernelBench problem: it must define class Model"):
        load_problem(other)
    broken = tmp_path / "broken.py"
    broken.write_text(SOURCE.replace("return [torch.rand(batch_size, dim)]", "return [undefined_name]"))
    with pytest.raises(KernelBenchError, match="get_inputs\\(\\) failed: NameError"):
        load_problem(broken)


def test_the_same_seed_draws_the_same_inputs_and_builds_the_same_weights():
    problem = Problem((LEVEL1 / "2_Linear.py").read_text(), str(LEVEL1 / "2_Linear.py"))
    a, b = problem.inputs(11, "cpu"), problem.inputs(11, "cpu")
    assert torch.equal(a[0], b[0]) and not torch.equal(a[0], problem.inputs(12, "cpu")[0])
    one, two = problem.reference_model(5, "cpu"), problem.reference_model(5, "cpu")
    assert torch.equal(one.linear.weight, two.linear.weight)
    assert not torch.equal(one.linear.weight, problem.reference_model(6, "cpu").linear.weight)
    state = torch.random.get_rng_state()
    problem.inputs(3, "cpu")
    assert torch.equal(state, torch.random.get_rng_state())  # the caller's random state is left as it was


def test_a_solution_that_makes_its_parameters_as_model_does_gets_model_s_weights():
    problem = Problem((LEVEL1 / "2_Linear.py").read_text(), str(LEVEL1 / "2_Linear.py"))

    class ModelNew(torch.nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.linear = torch.nn.Linear(in_features, out_features)

    assert torch.equal(problem.build(ModelNew, 5, "cpu").linear.weight, problem.reference_model(5, "cpu").linear.weight)


# -- the judge's checks ------------------------------------------------------------------------------
def test_chunked_comparison_agrees_with_the_whole_one():
    torch.manual_seed(0)
    ref = torch.randn(37, 41)
    got = ref.clone()
    got[20, 7] += 1.0
    got[36, 40] = float("nan")
    tol = Tolerance("close", 1e-4, 1e-4)
    whole, chunked = compare_output("y", got, ref, tol), compare_chunked("y", got, ref, tol, chunk=100)
    assert (chunked.ok, chunked.bad, chunked.first_bad_index) == (whole.ok, whole.bad, whole.first_bad_index) == \
        (False, 2, (20, 7))
    assert chunked.max_abs_err == pytest.approx(whole.max_abs_err)
    assert compare_chunked("y", ref.clone(), ref, tol, chunk=100).ok


def test_zeros_within_the_tolerance_are_caught_first_by_the_outputs_own_scale():
    spec = sized(load_problem(LEVEL1 / "4_Small_MSE.py"), 1 << 14)
    reference = KernelBenchReference(spec, "cpu")
    found = reference.check({}, 1, {"output": torch.zeros(())})
    assert found[0].ok and reference.last_kernelbench is True  # within KernelBench's atol of 1e-4: its check passes
    assert [type(m) for m in found if not m.ok] == [DegenerateOutput]
    honest = KernelBenchReference(spec, "cpu")
    for seed in (1, 2, 3):
        problem = spec.problem()
        predictions, targets = problem.inputs(seed, "cpu")
        assert all(m.ok for m in honest.check({}, seed, {"output": torch.mean((predictions - targets) ** 2) * 1e-4}))


SEED_INDEPENDENT = """\
import torch
import torch.nn as nn

class Model(nn.Module):
    \"\"\"The mean of 4096 uniform values, plus 100: 100.5 +- 0.005 whatever the seed, within atol + rtol * 100.5
    (0.01) of a constant; its changes are a thousand times float32's rounding at 100.\"\"\"
    def forward(self, x):
        return x.mean() + 100

n = 4096

def get_inputs():
    return [torch.rand(n)]

def get_init_inputs():
    return []
"""


def test_an_output_that_ignores_its_inputs_is_a_wrong_answer_even_within_the_tolerance(tmp_path):
    """METR's seed-independent tasks: the reference barely moves with its inputs, so a constant passes KernelBench's
    tolerance on every trial; bit-identical outputs while the reference's changed are a wrong answer."""
    problem = tmp_path / "mean_plus_100.py"
    problem.write_text(SEED_INDEPENDENT)
    reference = KernelBenchReference(load_problem(problem), "cpu")
    constant = {"output": torch.tensor(100.5)}
    assert all(m.ok for m in reference.check({}, 1, constant))
    reference.label("trial-1")
    second = reference.check({}, 2, constant)
    assert second[0].ok and reference.last_kernelbench is True  # KernelBench's check passes it again
    found = [m for m in second if isinstance(m, ConstantOutput)]
    assert found and "bit-identical to trial-1's" in found[0].message() and found[0].rule == "seed-independent-output"


NOISE = """\\
import torch
import torch.nn as nn

class Model(nn.Module):
    \"\"\"The mean of x less its mean: zero, but for float32's rounding (about 1e-8), as level 2's
    23_Conv3d_GroupNorm_Mean is.\"\"\"
    def forward(self, x):
        return (x - x.mean(dim=1, keepdim=True)).mean(dim=1)

batch_size, dim = 8, 4096

def get_inputs():
    return [torch.rand(batch_size, dim)]

def get_init_inputs():
    return []
"""


def test_a_reference_that_is_rounding_noise_gives_no_scale_to_judge_by(tmp_path):
    """Zero is this problem's answer: zeros, and an answer nearer the float64 one than the reference's, are right on
    every trial; no degenerate, seed-independent or own-scale failure is made of the reference's rounding noise."""
    problem = tmp_path / "noise.py"
    problem.write_text(NOISE)
    spec = replace(load_problem(problem), draws=OWN_DRAWS)
    reference = KernelBenchReference(spec, "cpu")
    for seed in (1, 2, *OWN_DRAWS):
        x, = spec.problem().inputs(seed, "cpu")
        assert all(m.ok for m in reference.check({}, seed, {"output": torch.zeros(8)})), seed
        reference.label(f"call-{seed}")
        exact = (x.double() - x.double().mean(dim=1, keepdim=True)).mean(dim=1).float()
        assert all(m.ok for m in KernelBenchReference(spec, "cpu").check({}, seed, {"output": exact})), seed
    wrong = reference.check({}, 3, {"output": torch.full((8,), 1e-5)})  # zeros pass KernelBench's atol, not this
    assert [type(m) for m in wrong if not m.ok] == [DegenerateOutput]


ZEROS_PASS = ["6_Softmax_Wide", "7_Frobenius_Norm", "8_Min_Reduction", "9_L2Norm_Half"]
OWN_DRAWS = {11: "signed", 12: "wide", 13: "kinks"}


def _reference(name: str, draws: dict | None = None):
    spec = replace(load_problem(LEVEL1 / f"{name}.py"), draws=draws or {})
    return spec, KernelBenchReference(spec, "cpu")


@pytest.mark.parametrize("name", ZEROS_PASS)
def test_zeros_that_kernelbench_s_tolerance_accepts_are_judged_at_the_outputs_own_scale(name):
    """KernelBench#165's four: every reference value lies within atol of zero, so zeros pass KernelBench's check;
    here they are a degenerate output, judged relative to the reference's largest magnitude."""
    spec, reference = _reference(name)
    output = spec.outputs[0]
    found = reference.check({}, 1, {"output": torch.zeros(output.shape, dtype=getattr(torch, output.dtype))})
    assert found[0].ok and reference.last_kernelbench is True
    degenerate = [m for m in found if isinstance(m, DegenerateOutput)]
    assert len(degenerate) == 1 and degenerate[0].rule == "degenerate-output"
    message = degenerate[0].message()
    assert "passes KernelBench's tolerance, but so would zeros" in message and "constant (every element 0.0)" in message
    assert "Judged relative to its own scale" in message and "elements differ" in message


@pytest.mark.parametrize("name", ZEROS_PASS + ["10_ReLU", "5_Min_Max_Argmax"])
def test_honest_answers_pass_on_kernelbench_s_inputs_and_on_the_judge_s(name):
    """An answer computed in float64 and rounded (an honest kernel's rounding differs from torch's) passes every
    check, on KernelBench's inputs and on signed, wide and tied ones."""
    spec, reference = _reference(name, OWN_DRAWS)
    spec = sized(spec, 1 << 16) if name == "5_Min_Max_Argmax" else spec
    reference = KernelBenchReference(spec, "cpu") if name == "5_Min_Max_Argmax" else reference
    for seed in (1, *OWN_DRAWS):
        inputs = spec.problem().inputs(seed, "cpu")
        wide = [v.double() if isinstance(v, torch.Tensor) and v.dtype.is_floating_point else v for v in inputs]
        result = reference.expected(wide, seed)
        got = {p.name: r.to(getattr(torch, p.dtype)) for p, r in zip(spec.outputs, result)}
        found = reference.check({}, seed, got)
        assert all(m.ok for m in found), (seed, [m.message() for m in found if not m.ok])
        assert reference.last_inapplicable is None


def test_a_lower_precision_is_named_where_the_tolerance_hides_it_and_where_it_does_not():
    spec, reference = _reference("6_Softmax_Wide")
    x, = spec.problem().inputs(1, "cpu")
    found = reference.check({}, 1, {"output": torch.softmax(x, dim=1).half().float()})
    assert found[0].ok  # KernelBench's atol hides float16's rounding of outputs about 5e-5
    downgrade = [m for m in found if isinstance(m, PrecisionDowngrade)]
    assert downgrade and "each of its" in downgrade[0].message() and "float16 value" in downgrade[0].message()
    spec, reference = _reference("10_ReLU")
    x, = spec.problem().inputs(1, "cpu")
    found = reference.check({}, 1, {"output": torch.relu(x).bfloat16().float()})
    assert not found[0].ok and [m.precision for m in found if isinstance(m, PrecisionDowngrade)] == ["bfloat16"]
    assert precision_fingerprint(torch.relu(x), torch.relu(x)) is None


def test_a_trial_of_the_judge_s_whose_reference_is_not_finite_does_not_apply(tmp_path):
    problem = tmp_path / "log.py"
    problem.write_text(SOURCE.replace("return x", "return torch.log(x)").replace("batch_size = 4096", "batch_size = 4")
                       .replace("dim = 2048 * 2", "dim = 64"))
    spec = replace(load_problem(problem), draws={5: "signed"})
    reference = KernelBenchReference(spec, "cpu")
    x, = spec.problem().inputs(5, "cpu")
    assert reference.check({}, 5, {"output": torch.zeros_like(x)}) == []
    assert "the reference is not finite on signed inputs" in reference.last_inapplicable


# -- the judge's own inputs -----------------------------------------------------------------------
def test_the_judges_inputs_transform_what_get_inputs_drew_and_nothing_else():
    torch.manual_seed(0)
    drawn = [torch.rand(64, 256), torch.randint(0, 10, (64,)), 0.5, torch.rand(3).half()]
    assert trial_inputs(drawn, 3, None) == drawn
    for name in DISTRIBUTIONS:
        out = trial_inputs(drawn, 3, name)
        assert torch.equal(out[0], trial_inputs(drawn, 3, name)[0])  # deterministic: the same in both processes
        assert not torch.equal(out[0], trial_inputs(drawn, 4, name)[0])  # another seed, other values
        assert out[1] is drawn[1] and out[2] == 0.5  # integer targets and scalars as drawn
        assert out[0].shape == drawn[0].shape and out[3].dtype == torch.float16
        assert (out[0] < 0).any() and (out[0] > 0).any()
    signed = trial_inputs(drawn, 3, "signed")[0]
    assert torch.equal(signed.abs(), drawn[0])  # magnitudes kept
    wide = trial_inputs(drawn, 3, "wide")[0].abs()
    assert wide.min() >= 1e-3 * 0.99 and wide.max() <= 10 and wide.max() > 5 and wide.min() < 0.002
    kinks = trial_inputs(drawn, 3, "kinks")[0]
    share = sum(int((kinks == k).sum()) for k in set(KINKS)) / kinks.numel()
    assert 0.2 < share < 0.3 and (kinks == 6.0).any() and (kinks == -3.0).any()


def test_the_worker_s_copy_of_the_spec_carries_the_seeds_of_the_judge_s_trials():
    from judge.challenge.kernelbench import spec_from_message, spec_message

    spec = replace(load_problem(LEVEL1 / "10_ReLU.py"), draws={2**62 + 5: "signed", 7: "kinks"})
    again = spec_from_message(json.loads(json.dumps(spec_message(spec))))
    assert again.draws == spec.draws
    worker, judge_ = again.problem(), spec.problem()
    assert torch.equal(worker.inputs(7, "cpu")[0], judge_.inputs(7, "cpu")[0])  # the same draw on both sides
    assert (worker.inputs(7, "cpu")[0] < 0).any() and not (worker.inputs(8, "cpu")[0] < 0).any()
    with pytest.raises(ValueError, match="bad KernelBench draw"):
        spec_from_message({**spec_message(spec), "draws": [[1, "uniform"]]})


# -- the starter ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["triton", "pytorch", "cuda"])
def test_the_starter_is_the_problems_model_renamed(lang):
    text = kernelbench_starter((LEVEL1 / "2_Linear.py").read_text(), "2_Linear", lang)
    tree = ast.parse(text)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes == ["ModelNew"] and "super(ModelNew, self)" in text and "get_inputs" not in text
    assert ("load_inline" in text) == (lang == "cuda") and ("triton.jit" in text) == (lang == "triton")


# -- commands ---------------------------------------------------------------------------------------------
def test_judge_list_on_a_kernelbench_folder_lists_its_problems():
    result = CliRunner().invoke(main, ["list", str(PROBLEMS)])
    assert result.exit_code == 0, result.output
    for name in ("1_Scaled_ReLU", "2_Linear", "3_Matmul", "4_Small_MSE", "5_Min_Max_Argmax", "10_ReLU"):
        assert name in result.output
    assert "10 of 10 KernelBench problems load" in result.output


def test_judge_show_prints_the_problem_its_sizes_in_cpu_mode_and_the_tolerance():
    result = CliRunner().invoke(main, ["show", str(LEVEL1 / "1_Scaled_ReLU.py")])
    assert result.exit_code == 0, result.output
    assert "def get_inputs" in result.output and "ModelNew(*get_init_inputs()).forward(x) -> output" in result.output
    assert "CPU mode halves: dim 8192 ->" in result.output and "KernelBench's" in result.output


def test_judge_init_writes_a_starter_that_defines_model_new(tmp_path):
    target = tmp_path / "mine.py"
    result = CliRunner().invoke(main, ["init", str(LEVEL1 / "2_Linear.py"), str(target), "--lang", "cuda"])
    assert result.exit_code == 0, result.output
    assert "class ModelNew" in target.read_text() and "load_inline" in target.read_text()
    result = CliRunner().invoke(main, ["init", str(LEVEL1 / "2_Linear.py"), str(tmp_path / "mine.cu")])
    assert result.exit_code == 2 and "a KernelBench solution is a .py file" in result.output


def test_a_kernelbench_folder_given_for_one_problem_names_one(tmp_path):
    solution = tmp_path / "s.py"
    solution.write_text("class ModelNew:\n    pass\n")
    result = CliRunner().invoke(main, ["run", str(PROBLEMS), str(solution)])
    assert result.exit_code == 2
    assert "folder of 10 KernelBench problem(s), such as" in result.output and "judge list" in result.output


def test_problems_are_found_by_name_under_the_users_folders():
    search = SearchPath((PROBLEMS,))
    assert find_spec_path("2_Linear", search) == LEVEL1 / "2_Linear.py"
    assert load_challenge("2_Linear", search).kernelbench


def test_grade_documents_carry_fast_p_for_kernelbench_entries():
    from judge.grading.records import GradeSettings, grade_document
    from judge.grading.submissions import Entry

    entries = [Entry("alice", "2_Linear", "a.py", str(LEVEL1 / "2_Linear.py")),
               Entry("alice", "transpose", "t.py", "challenges/transpose.yaml")]
    records = {0: {"submission": "alice", "challenge": "2_Linear", "verdict": "accepted",
                   "benchmarks": [{"speedup_vs_torch": 3.0}]},
               1: {"submission": "alice", "challenge": "transpose", "verdict": "accepted", "benchmarks": []}}
    settings = GradeSettings(1, "", False, None, 180.0, True, 2.0, None, False)
    doc = grade_document(entries, records, settings, {})
    assert doc["kernelbench"]["submissions"]["alice"]["problems"] == 1  # the YAML challenge is no problem of it
    assert doc["kernelbench"]["submissions"]["alice"]["fast_2"] == 1.0
    json.dumps(doc)


@pytest.mark.parametrize("text, language", [
    ("import tilelang\nimport tilelang.language as T\n", "TileLang"),
    ("import cutlass.cute as cute\n", "CuTe DSL"),
    ('src = """\n#include "kittens.cuh"\n"""\n', "ThunderKittens"),
])
def test_kernelbench_s_other_languages_are_not_supported_yet(text, language):
    from judge.base.languages import unsupported_language

    assert f"{language}" in unsupported_language("sol.py", text) and "not supported yet" in unsupported_language("sol.py", text)


def test_judge_ui_lists_kernelbench_problems_and_opens_one(tmp_path):
    """judge ui --kernelbench DIR: the problems in the catalogue, a problem's page (its code as the statement) and
    its starter (Model renamed ModelNew)."""
    pytest.importorskip("flask")
    from judge.ui import guard
    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue
    from judge.ui.workspace import Workspace

    settings = Settings(Workspace(tmp_path / "ws"), Catalogue(SearchPath(), (), [PROBLEMS]), port=8765, token="t",
                        interpret=True, db_path=str(tmp_path / "history.db"))
    client = create_app(settings).test_client()
    client.environ_base["HTTP_X_JUDGE_TOKEN"] = "t"
    base = "http://127.0.0.1:8765"
    listed = {c["name"]: c for c in client.get("/api/challenges", base_url=base).get_json()["challenges"]}
    assert listed["2_Linear"]["source"] == "KernelBench"
    ref = listed["2_Linear"]["ref"]
    page = client.get("/api/challenge", base_url=base, query_string={"ref": ref}).get_json()
    assert "get_init_inputs" in page["statement_html"] and page["signature"].startswith("ModelNew(")
    draft = client.get("/api/draft", base_url=base, query_string={"ref": ref, "file": "solution.py"}).get_json()
    assert "class ModelNew" in draft["text"]
    assert guard.TOKEN_HEADER


def test_a_kernelbench_run_without_its_problems_or_generations_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.delenv("JUDGE_CHALLENGES_PATH", raising=False)
    run = tmp_path / "my_run"
    run.mkdir()
    result = CliRunner().invoke(main, ["grade", "--kernelbench-run", str(run), "--interpret"])
    assert result.exit_code == 2 and "--kernelbench-run needs KernelBench's problems" in result.output
    result = CliRunner().invoke(main, ["--challenges-dir", str(PROBLEMS), "grade", "--kernelbench-run", str(run),
                                       "--interpret"])
    assert result.exit_code == 2 and "no KernelBench generations in" in result.output


def test_a_problem_described_before_is_shown_from_the_cache_without_running_it_or_importing_torch(tmp_path, monkeypatch):
    """judge show took 3 s a problem here (torch's import, then torch._dynamo's, which the meta device's first
    decomposition imports; 6-11 s on a GPU machine) and 40 s for level 3's LSTMs (one meta run per halving): a second
    show reads what the first described."""
    import subprocess
    import sys

    from judge.challenge import kernelbench_problem

    first = sized(load_problem(LEVEL1 / "1_Scaled_ReLU.py"), 1 << 14)
    run = kernelbench_problem.Problem._run
    monkeypatch.setattr(kernelbench_problem.Problem, "_run", lambda self: pytest.fail("the problem's code ran"))
    again = sized(load_problem(LEVEL1 / "1_Scaled_ReLU.py"), 1 << 14)
    assert (again.parameters, again.sizes_used, again.shrunk_from, again.tests) == \
        (first.parameters, first.sizes_used, first.shrunk_from, first.tests)
    script = (f"import sys; from judge.challenge.kernelbench import load_problem, sized; "
              f"s = sized(load_problem({str(LEVEL1 / '1_Scaled_ReLU.py')!r}), 1 << 14); "
              "print('torch' in sys.modules, s.sizes_used)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.stdout.split(" ", 1) == ["False", f"{first.sizes_used}\n"], out.stderr
    edited = tmp_path / "1_Scaled_ReLU.py"  # another text is another problem: described afresh
    edited.write_text((LEVEL1 / "1_Scaled_ReLU.py").read_text().replace("dim = 8192", "dim = 4096"))
    monkeypatch.setattr(kernelbench_problem.Problem, "_run", run)
    assert load_problem(edited).parameters[0].shape == (64, 4096)


def test_a_problem_that_needs_a_missing_package_says_which_and_how_to_install_it(tmp_path):
    problem = tmp_path / "hf.py"
    problem.write_text(SOURCE.replace("import torch.nn as nn", "import torch.nn as nn\nimport transformers_not_here"))
    with pytest.raises(KernelBenchError, match="needs the Python package 'transformers_not_here', which is not "
                                               "installed here \\(pip install transformers_not_here\\)"):
        load_problem(problem)
