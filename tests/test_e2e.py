"""Each verdict end to end: the real worker process, Triton's interpreter, CPU.

The tiny spec (tests/specs/tiny_transpose.yaml) keeps each run to a few
seconds; most of that is the worker importing torch and triton.
"""

from __future__ import annotations

import json
import time

import pytest

from judge.challenge.catalog import load_challenge
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.challenge.spec import load_spec
from judge.judging.verdict import Verdict

from conftest import EXAMPLES, SOLUTIONS, SPECS

pytestmark = pytest.mark.slow
TINY = load_spec(SPECS / "tiny_transpose.yaml")


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", 5)
    options.setdefault("interpret", True)
    return judge_solution(spec, str(SOLUTIONS / name), Options(**options))


def test_correct_solution_is_accepted_with_params_and_times():
    result = judge("transpose_ok.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.mode == "interpret" and result.seed == 5
    assert all(t.verdict == Verdict.ACCEPTED and t.time_ms is not None for t in result.tests)
    assert {"rows": 1, "cols": 1} in [t.params for t in result.tests]
    assert any("not GPU times" in note for note in result.notes)
    assert not any("'cuda' by name" in note for note in result.notes)  # it names no device
    assert result.benchmarks == []


def test_same_seed_same_cases():
    a, b = judge("transpose_ok.py", seed=9), judge("transpose_ok.py", seed=9)
    assert [t.params for t in a.tests] == [t.params for t in b.tests]


def test_wrong_edge_reports_the_smallest_failing_size():
    result = judge("transpose_wrong_edge.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    failing = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert failing.details["smallest_failing"] == {"rows": 17, "cols": 1}
    assert "fails at rows=17, cols=1" in result.message
    assert "never written" in failing.message


def test_the_smallest_failing_size_is_one_that_fails_in_the_same_way():
    """Issue 29 item 5: the search took any failure for a smaller example, so a crash from 20 rows on was
    reported as failing at rows=2 (where the answer was wrong instead) and, with the output cap, at
    rows=1, cols=1, a case that had passed."""
    result = judge("transpose_fails_by_size.py", seed=1)
    failing = next(t for t in result.tests if t.verdict != Verdict.ACCEPTED)
    assert failing.verdict == Verdict.RUNTIME_ERROR and failing.params == {"rows": 24, "cols": 1}
    assert failing.details["smallest_failing"] == {"rows": 20, "cols": 1}, failing.message
    assert "fails at rows=20, cols=1" in result.message


def test_what_a_call_prints_is_capped_per_call_and_a_failure_shows_a_short_tail_of_its_own_call():
    """Issue 29 item 5: the output cap counted all calls together, so a solution printing 300 KB a call failed
    every call after the fourth with 'File too large' (and the search named a case that had passed); each
    failure carried 4 KB of output, from earlier calls too."""
    from judge.judging.failures import OUTPUT_MARK
    from judge.defence.limits import Limits

    result = judge("transpose_prints_a_lot.py", seed=1, limits=Limits(output_bytes=1024**2))
    assert not any("File too large" in t.message for t in result.tests), result.message
    assert all(t.verdict == Verdict.ACCEPTED for t in result.tests if t.params["rows"] < 20)
    failing = next(t for t in result.tests if t.verdict != Verdict.ACCEPTED)
    assert failing.details["smallest_failing"] == {"rows": 20, "cols": 1}
    tail = failing.message.split(OUTPUT_MARK, 1)[1]
    assert tail.startswith(": its last 2 line(s), of 299.0 KB printed ---\n"), tail[:80]
    assert len(tail) < 1000 and "rows=24" in tail and "rows=20" not in tail  # its own call's, short
    from judge.worker import client

    assert client.OUTPUT_MARK == OUTPUT_MARK  # what a failure's cause leaves out


def test_require_kernel_rejects_an_answer_that_torch_computed_alone():
    """Issue 29 item 10: output.copy_(input.T) is accepted, as LeetGPU accepts it; --require-kernel (opt-in)
    rejects a call that launched no Triton kernel of the solution's own, in CPU mode through the interpreter."""
    assert judge("transpose_torch_copy.py", seed=1).verdict == Verdict.ACCEPTED
    torch_only = judge("transpose_torch_copy.py", seed=1, require_kernel=True)
    assert torch_only.verdict == Verdict.INVALID_SUBMISSION
    assert "launched no Triton kernel of its own" in torch_only.message
    assert all(t.verdict == Verdict.INVALID_SUBMISSION for t in torch_only.tests)
    assert any(note.startswith("rule: every solve() call must launch") for note in torch_only.notes)
    for name in ("transpose_ok.py", "transpose_autotuned.py"):  # a plain kernel; one through the autotuner
        result = judge(name, seed=1, require_kernel=True)
        assert result.verdict == Verdict.ACCEPTED, (name, result.message)


def test_wrong_value_names_index_expected_and_got():
    result = judge("transpose_wrong_value.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "expected" in result.message and "got" in result.message and "max abs err 1" in result.message


def test_unwritten_output_is_caught_by_the_poison():
    result = judge("transpose_unwritten.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "never written" in result.message


def test_input_mutation_is_caught():
    result = judge("transpose_mutates_input.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "input 'input' was modified" in result.message


def test_exception_is_a_runtime_error_with_the_solutions_own_frames():
    result = judge("transpose_crash.py")
    assert result.verdict == Verdict.RUNTIME_ERROR
    first = next(t for t in result.tests if t.verdict == Verdict.RUNTIME_ERROR)
    assert "transpose_crash.py\", line 3, in helper" in first.message
    assert "IndexError" in result.message
    assert "judge/worker" not in first.message  # judge frames are cut


@pytest.mark.parametrize("name, words", [
    ("transpose_exit.py", "exited with status 7"),
    ("transpose_segfault.py", "SIGSEGV"),
])
def test_process_death_is_a_runtime_error_and_the_judge_survives(name, words):
    result = judge(name)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert words in result.message
    if name == "transpose_exit.py":
        assert "about to exit" in result.tests[0].message  # the solution's output tail


def test_repeated_process_deaths_skip_the_rest():
    result = judge("transpose_segfault.py")
    verdicts = [t.verdict for t in result.tests]
    assert verdicts[0] == Verdict.RUNTIME_ERROR and Verdict.SKIPPED in verdicts
    assert "deaths of the solution's process" in result.tests[-1].message


def test_hang_is_a_time_limit_and_the_judge_returns_promptly():
    started = time.monotonic()
    result = judge("transpose_hang.py", timeout=1.0, compile_timeout=10)
    elapsed = time.monotonic() - started
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert elapsed < 45
    assert [t.verdict for t in result.tests][1:] == [Verdict.SKIPPED] * (len(result.tests) - 1)


@pytest.mark.parametrize("name, words", [
    ("transpose_syntax_error.py", "syntax error in transpose_syntax_error.py, line 1"),
    ("transpose_import_error.py", "module_that_does_not_exist"),
    ("transpose_no_solve.py", "defines no function named 'solve'"),
    ("transpose_wrong_arity.py", "cannot take the challenge's 4 arguments"),
])
def test_invalid_submissions(name, words):
    result = judge(name)
    assert result.verdict == Verdict.INVALID_SUBMISSION
    assert words in result.message
    assert result.tests == []
    assert not any("CPU mode" in note for note in result.notes), result.notes  # the file never ran (issue 49)


def test_kernel_that_cannot_compile_is_a_compile_error():
    result = judge("transpose_compile_error.py")
    assert result.verdict == Verdict.COMPILE_ERROR
    assert "power of 2" in result.message


def test_autotuned_solution_is_judged_in_cpu_mode():
    assert judge("transpose_autotuned.py").verdict == Verdict.ACCEPTED


def test_matmul_zeros_are_rejected():
    result = judge("matmul_zeros.py", spec=load_challenge("matmul"))
    assert result.verdict == Verdict.WRONG_ANSWER


def test_result_json_round_trips():
    from judge.report.json_export import run_to_json

    data = json.loads(run_to_json(judge("transpose_wrong_value.py").as_dict()))
    assert data["verdict"] == "wrong_answer" and data["mode"] == "interpret"
    assert {"name", "params", "verdict", "message"} <= set(data["tests"][0])


@pytest.mark.parametrize("challenge, example", [
    ("transpose", "transpose/naive_2d.py"),
    ("transpose", "transpose/tuned.py"),
    ("copy", "copy/tuned.py"),
    ("matmul", "matmul/grouped_autotuned.py"),
])
def test_examples_are_accepted_on_the_builtin_specs(challenge, example):
    result = judge_solution(load_challenge(challenge), str(EXAMPLES / example), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_protocol_refuses_malformed_headers():
    import json
    import os
    import struct

    from judge.worker import protocol

    for header in (b"[1, 2]", b'{"blobs": "x"}', b'{"blobs": [99999999999]}'):
        r, w = os.pipe()
        os.write(w, struct.pack("<Q", len(header)) + header)
        with pytest.raises(protocol.ProtocolError):
            protocol.receive(r, max_blob=1024)
        os.close(r)
        os.close(w)
    r, w = os.pipe()
    protocol.send(w, {"op": "x"}, [b"abc"])
    header, blobs = protocol.receive(r, max_blob=3)
    assert header == {"op": "x"} and bytes(blobs[0]) == b"abc" and json.dumps(header)


def test_worker_judges_with_the_spec_the_judge_loaded_even_if_the_file_changes(tmp_path):
    """The worker gets the spec's text, not its path: an edit after loading cannot make the two disagree."""
    path = tmp_path / "tiny.yaml"
    path.write_text((SPECS / "tiny_transpose.yaml").read_text())
    spec = load_spec(path)
    path.write_text("name: [this is no longer a spec\n")
    result = judge("transpose_ok.py", spec=spec)
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_worker_receives_a_variant_by_its_text():
    spec = load_challenge("transpose_fp16")
    result = judge_solution(spec, str(EXAMPLES / "transpose" / "tiled.py"), Options(seed=3, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_a_solution_that_names_the_gpu_runs_unchanged_in_cpu_mode():
    """torch.zeros(..., device="cuda"), x.to("cuda"), x.cuda() and an import-time allocation: in CPU mode
    the GPU the solution names is the judge's device (worker/cpu_device.py), and the run says so."""
    result = judge("transpose_cuda_scratch.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert any("put tensors on 'cuda' by name" in note for note in result.notes), result.notes


def test_a_reduction_that_never_zeroes_its_output_is_told_so():
    """tl.atomic_add into an output that starts as poison: wrong_answer (rightly), and the message says
    the case passes with zeroed outputs and how to fix it, instead of only "never written"."""
    result = judge("reduce_sum_atomic_unzeroed.py", spec=load_challenge("reduce_sum"))
    assert result.verdict == Verdict.WRONG_ANSWER, result.message
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "passes when its outputs start at zero" in failed.message and "output.zero_()" in failed.message
    assert failed.details.get("passes_with_zeroed_outputs") is True


def test_a_plain_wrong_answer_gets_no_uninitialised_output_hint():
    result = judge("transpose_wrong_value.py")
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "outputs start at zero" not in failed.message and "passes_with_zeroed_outputs" not in failed.details


def test_a_tf32_matmul_is_told_how_to_get_fp32():
    """matmul_tf32_sim.py rounds its inputs to TF32 as tl.dot's default precision does on a GPU (the
    interpreter ignores input_precision, so CPU mode needs the simulation): wrong_answer, with the fix."""
    result = judge("matmul_tf32_sim.py", spec=load_challenge("matmul"))
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "rounded to TF32" in failed.message and 'input_precision="ieee"' in failed.message
    plain = judge("transpose_wrong_value.py")
    assert not any("TF32" in t.message for t in plain.tests)


@pytest.mark.parametrize("cheat", ["cheat_deferred_torch_mode.py", "cheat_deferred_dispatch_mode.py",
                                   "cheat_patched_cpu_mode.py"])
def test_a_torch_mode_left_to_finish_the_outputs_inside_the_judge_is_caught(cheat):
    """Red team 27: a torch function or dispatch mode (pushed at import, inside solve(), or the judge's own CPU
    mode patched) intercepts even torch's C tensor methods, so it finished the outputs in the judge's code after
    solve() returned; accepted before.  The judge's reads are in the judge's process now: the outputs were never
    written."""
    result = judge(cheat)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert "never written" in result.message, result.message


def test_a_failure_that_the_same_inputs_do_not_repeat_is_named_a_race():
    """Issue 39: a case failed, the judge called solve() again on the same inputs and got another answer
    (here the right one): the message says so and names the usual causes, the verdict stays."""
    result = judge("transpose_racy.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert failed.message.startswith("the same inputs gave different results: a race or undefined behaviour")
    assert "__syncthreads" in failed.message and failed.details["nondeterministic"] is True
    plain = next(t for t in judge("transpose_wrong_value.py").tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "same inputs gave different results" not in plain.message and "nondeterministic" not in plain.details


def test_a_grid_that_rounds_down_gets_the_cdiv_hint_on_its_headline_failure():
    """Issue 49 items 2 and 4: the headline failure (1 x 1, never written) had no triton.cdiv hint, and said
    "max abs err inf ... got nan" of elements no store reached; the L left by a 2-D grid got no hint at all."""
    result = judge("transpose_floor_grid.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "triton.cdiv(rows, BLOCK)" in result.message, result.message  # the summary line: the headline's hint
    headline = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "elements never written (they still hold NaN" in headline.message and "inf" not in headline.message
    partly = next(t for t in result.tests if "every index 16 and above of dimension" in t.message)
    assert "triton.cdiv" in partly.message
