"""The harness (issue 46, docs/security.md "The harness"): the judge's process draws every call's inputs, places
them in memory it shares with the solution's process, freezes that process whenever it writes or reads there, and
checks what it holds after the call; the solution's process only calls solve().  The fourteen classes of issue
46's attack round (tests/solutions/harness/), each accepted with a wrong or untimed answer when the draw, the
checks and the clock ran in the solution's interpreter, now come to nothing: solve() in each writes only what the
attack got it.  Then the harness's own rules: no seed reaches the worker, the worker is frozen between calls, its
compile events move no deadline but a first call's, its launch count is not claimed as the judge's."""

from __future__ import annotations

import pytest

from judge.challenge.kernelbench import load_problem
from judge.challenge.leetgpu import load_folder
from judge.challenge.spec import load_spec
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT, SPECS

pytestmark = pytest.mark.slow
HOSTILE = ROOT / "tests" / "solutions" / "harness"
TINY = load_spec(SPECS / "tiny_transpose.yaml")


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", 5)
    options.setdefault("interpret", True)
    return judge_solution(spec, str(HOSTILE / name), Options(**options))


ATTACKS = [
    "json_loads.py",  # 1: the worker's parse of each request ran the solution's code: it read the seed
    "stdout_tee.py",  # 2: sys.stdout's flush() peeked at the next request with tee(2)
    "judge_class_init.py",  # 3: a judge class's __init__ saw the tensors the worker's draw made
    "expr_evaluate.py",  # 4: expr.evaluate, below Spec.shape_of, ran inside the draw
    "cpu_is_cuda.py",  # 5: CPU mode's cpu_device._is_cuda saw every tensor the draw made
    "swapped_module.py",  # 6: a sys.modules entry swapped for one whose make_arguments kept the draw
    "modes_kept.py",  # 7: a torch mode added to timed_loop._MODES_KEPT finished the outputs in the judge's reads
    "canary_key.py",  # 8: a key with its own __eq__ in the canary cache ran beside the drawn values
    "aten_closure.py",  # 9: the aten refusal's original taken out of its closure; an aten::detach kernel
    "audit_hook_code.py",  # 10: the refusing audit hook's __code__ swapped; a hook at the draw's mmap
]


@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_on_the_judges_code_in_the_solutions_process_gets_it_nothing(name):
    result = judge(name)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert not any(t.verdict == Verdict.ACCEPTED for t in result.tests), [(t.name, t.verdict) for t in result.tests]
    assert "never written" in result.message, result.message  # solve() wrote nothing: the attack got it nothing


def test_an_attribute_on_what_forward_returns_never_runs_after_the_call():
    """Class 11 (KernelBench): attributes on the returned tensor shadowing the methods the worker calls on it ran
    the answer's work after the call's end event.  The worker calls torch's own methods through the class."""
    problem = load_problem(ROOT / "tests" / "kernelbench" / "KernelBench" / "level1" / "1_Scaled_ReLU.py")
    result = judge_solution(problem, str(HOSTILE / "kernelbench_return_attribute.py"),
                            Options(seed=5, interpret=True, cpu_elements=40_000))
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert not any(t.verdict == Verdict.ACCEPTED for t in result.tests)


def test_a_model_argument_rebuilt_in_the_solutions_process_shows_it_nothing_early():
    """Class 12 (LeetGPU, a model argument): nn.Module.register_parameter wrapped while the worker rebuilt the model.
    The model is rebuilt over the judge's slots, for the call, after the judge placed them: what the wrapper sees
    is what solve() is handed anyway, and the solution's own zeros are a wrong answer."""
    spec = load_folder(ROOT / "tests" / "leetgpu" / "challenges" / "easy" / "9_simple_inference")
    result = judge_solution(spec, str(HOSTILE / "register_parameter.py"), Options(seed=5, interpret=True))
    assert result.verdict in (Verdict.ACCEPTED, Verdict.WRONG_ANSWER), result.message
    assert all(t.verdict != Verdict.RUNTIME_ERROR for t in result.tests), result.message


def test_compile_events_move_only_a_first_calls_deadline():
    """Class 13: forged "compile start/end" messages moved every call's deadline (a 65 s call accepted against 60 s).
    Now a call on sizes the worker has had before has the per-call limit, whatever the worker says."""
    from judge.judging.reference import Reference
    from judge.worker.client import Worker, WorkerTimeout

    worker = Worker(str(HOSTILE / "forged_compile.py"), TINY, "cpu", True, extra_env={"JUDGE_TEST_SLEEP_S": "3"})
    reference = Reference(TINY, "cpu")
    try:
        worker.start(120)
        for seed in (1, 2):
            fields = worker.place(TINY.parameters, reference.call_arguments({"rows": 3, "cols": 2}, seed))
            if seed == 1:
                header, _ = worker.request({"op": "call", **fields}, 1.5, cap=60)
                assert header.get("ok"), header
            else:
                with pytest.raises(WorkerTimeout) as info:
                    worker.request({"op": "call", **fields}, 1.5, cap=60)  # claims to compile for 3 s
                assert "did not finish within 1.5 s" in str(info.value)
    finally:
        worker.stop()


def test_the_kernel_rule_is_not_claimed_as_the_judges_own():
    """Class 14: --require-kernel was satisfied by a torch-only solve() that counted a launch itself.  The count is the
    solution's process's word, which the harness cannot see from outside: the run says so."""
    result = judge("noted_launch.py", require_kernel=True)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert any("counted inside the solution's process" in note for note in result.notes), result.notes


def test_no_seed_and_no_size_to_draw_from_reaches_the_solutions_process():
    """What the worker is sent: the memory and the slots the judge placed, the scalars; never a seed, never the
    sizes' names, never the spec's generators' state."""
    from judge.judging.reference import Reference
    from judge.worker.client import Worker

    worker = Worker(str(ROOT / "solutions" / "transpose" / "naive_2d.py"), TINY, "cpu", True)
    reference = Reference(TINY, "cpu")
    try:
        worker.start(120)
        fields = worker.place(TINY.parameters, reference.call_arguments({"rows": 5, "cols": 3}, 77))
        assert "seed" not in fields and "params" not in fields
        assert set(fields) == {"memory", "slots", "scalars", "modules", "kept"}
        header, _ = worker.request({"op": "call", **fields}, 60)
        assert header.get("ok")
        assert worker.results()["output"].tolist() == reference.call_arguments({"rows": 5, "cols": 3}, 77).values[0].T.tolist()
    finally:
        worker.stop()


def test_the_solutions_process_is_frozen_while_the_judge_writes_and_reads():
    """Between the reply and the next request every thread of the solution's process is stopped (tree.freeze)."""
    from judge.judging.reference import Reference
    from judge.worker import tree
    from judge.worker.client import Worker

    worker = Worker(str(ROOT / "solutions" / "transpose" / "naive_2d.py"), TINY, "cpu", True)
    try:
        worker.start(120)
        root = worker._worker_root()
        assert tree._all_stopped(root)  # after "ready"
        fields = worker.place(TINY.parameters, Reference(TINY, "cpu").call_arguments({"rows": 2, "cols": 2}, 1))
        assert tree._all_stopped(root)  # while the judge wrote the call's arguments
        worker.request({"op": "call", **fields}, 60)
        assert tree._all_stopped(root)  # as the judge reads the results
    finally:
        worker.stop()
