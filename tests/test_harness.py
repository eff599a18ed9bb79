"""The harness (issue 46, docs/security.md "The harness"): the judge's process draws every call's inputs, places
them in memory it shares with the solution's process, freezes that process whenever it writes or reads there, and
checks what it holds after the call; the solution's process only calls solve().  The fourteen classes of issue
46's attack round (tests/solutions/harness/), each accepted with a wrong or untimed answer when the draw, the
checks and the clock ran in the solution's interpreter, now come to nothing: solve() in each writes only what the
attack got it.  Then the harness's own rules: no seed reaches the worker, the worker is frozen between calls, its
compile events move no deadline but a first call's, its launch count is not claimed as the judge's."""

from __future__ import annotations

import json

import pytest

from judge.challenge.kernelbench import load_problem
from judge.challenge.leetgpu import load_folder
from judge.challenge.spec import load_spec
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT, SPECS, served_vs_alone

pytestmark = pytest.mark.slow
sva = served_vs_alone()
HOSTILE = ROOT / "tests" / "solutions" / "harness"
TINY = load_spec(SPECS / "tiny_transpose.yaml")
SEED = 5
JUDGED_ALONE: dict = {}  # name -> its result alone, as the tests below judged it: the served runs equal it


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", SEED)
    options.setdefault("interpret", True)
    JUDGED_ALONE[name] = judge_solution(spec, str(HOSTILE / name), Options(**options))
    return JUDGED_ALONE[name]


def challenge_of(name: str):
    """The challenge a hostile solution is judged on, here, through the server and in the grade (the one
    scripts/served_vs_alone.py pairs it with)."""
    return ROOT / sva._harness_challenge(HOSTILE / name)


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
    result = judge("kernelbench_return_attribute.py", load_problem(challenge_of("kernelbench_return_attribute.py")))
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert not any(t.verdict == Verdict.ACCEPTED for t in result.tests)


def test_a_model_argument_rebuilt_in_the_solutions_process_shows_it_nothing_early():
    """Class 12 (LeetGPU, a model argument): nn.Module.register_parameter wrapped while the worker rebuilt the model.
    The model is rebuilt over the judge's slots, for the call, after the judge placed them: what the wrapper sees
    is what solve() is handed anyway, and the solution's own zeros are a wrong answer."""
    result = judge("register_parameter.py", load_folder(challenge_of("register_parameter.py")))
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
    from judge.defence import tree
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


# -- the same hostile solutions through the warm server (issue 46; a sealed judge grade of them: not yet) ------------
FORGED_TIMEOUT = 2.0  # below forged_compile.py's 3 s, far above any honest call on the tiny transpose's sizes
RUN_OPTIONS = {"noted_launch.py": ["--require-kernel"], "forged_compile.py": ["--timeout", f"{FORGED_TIMEOUT:g}"]}


def comparable(doc: dict) -> dict:
    """What must not differ wherever a solution is judged: the verdict, the message, every test's name, sizes,
    verdict and message (served_vs_alone.comparable: the times are measurements)."""
    return sva.comparable({key: doc.get(key) for key in ("verdict", "message", "tests")})


def assert_judged_as_alone(name: str, doc: dict) -> None:
    """What the tests above assert of ``name`` alone, of its document (`judge run --json`'s);
    and, where they judged it in this process, the same verdict, message and tests."""
    verdict, message, tests = doc["verdict"], doc["message"], [t["verdict"] for t in doc["tests"]]
    if name in ATTACKS:
        assert verdict == Verdict.WRONG_ANSWER.value and "never written" in message, (name, verdict, message)
        assert Verdict.ACCEPTED.value not in tests, (name, tests)
    elif name == "kernelbench_return_attribute.py":
        assert verdict == Verdict.WRONG_ANSWER.value and Verdict.ACCEPTED.value not in tests, (name, verdict, message)
    elif name == "register_parameter.py":
        assert verdict in (Verdict.ACCEPTED.value, Verdict.WRONG_ANSWER.value), (name, verdict, message)
        assert Verdict.RUNTIME_ERROR.value not in tests, (name, tests)
    elif name == "noted_launch.py":
        assert verdict == Verdict.ACCEPTED.value, (name, verdict, message)
        assert any("counted inside the solution's process" in note for note in doc["notes"]), (name, doc["notes"])
    elif name == "forged_compile.py":  # a call on sizes it had before: the per-call limit, whatever it says
        assert verdict == Verdict.TIME_LIMIT_EXCEEDED.value, (name, verdict, message)
        assert f"did not finish within {FORGED_TIMEOUT:g} s" in message, (name, message)
    else:
        pytest.fail(f"{name}: a hostile solution in {HOSTILE} that no test here says what to expect of")
    if name in JUDGED_ALONE:  # judged alone by this process's tests above (all of them, but under pytest -n)
        alone = JUDGED_ALONE[name].as_dict()
        if unsteady(doc) or unsteady(alone):  # its outputs differ from run to run: their verdicts must not
            alone, doc = ({"verdict": d["verdict"], "tests": [{k: t[k] for k in ("name", "params", "verdict")}
                                                              for t in d["tests"]]} for d in (alone, doc))
        assert comparable(doc) == comparable(alone), (name, sva.differences(comparable(alone), comparable(doc)))


def unsteady(doc: dict) -> bool:
    """The judge found that the solution's outputs differ for the same inputs (kernelbench_return_attribute.py's
    forward() returns torch.empty_like's memory): its messages differ between two runs alone, as served_vs_alone's
    ``Outcome.same`` allows."""
    return any(t.get("nondeterministic") for t in doc["tests"])


def test_every_hostile_solution_judged_through_the_warm_server_is_judged_as_alone(judge_server):
    """One judge server, every hostile solution of tests/solutions/harness through it: a forked command and a
    forked worker, whose judge modules the server imported before any solution ran."""
    _, server = judge_server
    names = sorted(path.name for path in HOSTILE.glob("*.py"))
    before = (server.served_count(), server.refused_workers())
    for name in names:
        done = sva.judge(server.env, "run", str(challenge_of(name)), str(HOSTILE / name), "--interpret", "--seed",
                         str(SEED), "--json", *RUN_OPTIONS.get(name, []))
        assert done.stdout.strip(), (name, done.returncode, done.stderr[-2000:])
        assert_judged_as_alone(name, json.loads(done.stdout))
    assert (server.served_count(), server.refused_workers()) == (before[0] + len(names), before[1])  # all served
