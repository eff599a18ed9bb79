"""A sealed judge (docs/security.md): nothing a solution does can change its verdict or crash the
judge.  One hostile solution per hole, in CPU mode through real workers; each was accepted, or
crashed the judge, before its defence.  The grade's own holes (links, other students' files) are
in tests/test_cli_grade.py; GPU-only ones in tests/test_gpu.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from judge.challenge.catalog import load_challenge
from judge.challenge.spec import load_spec
from judge.cli import main
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.defence import sandbox

from conftest import ROOT, SOLUTIONS, SPECS

pytestmark = pytest.mark.slow
TINY = load_spec(SPECS / "tiny_transpose.yaml")
LANDLOCK = sandbox.available()["landlock"].startswith("on")
needs_landlock = pytest.mark.skipif(not LANDLOCK, reason="this kernel or installation has no Landlock")


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", 8)
    options.setdefault("interpret", True)
    return judge_solution(spec, str(SOLUTIONS / name), Options(**options))


@pytest.mark.parametrize("name, spec, tensor", [
    ("cheat_repoint_copy.py", load_challenge("copy"), "b"),
    ("cheat_repoint_transpose.py", TINY, "output"),
])
def test_an_output_repointed_instead_of_written_is_never_written(name, spec, tensor):
    """``b.set_(a)``, a transposed view of the input's storage: accepted with no kernel once; then the argument seal
    made it a runtime error.  The judge reads the memory it placed, whatever the Python objects point to: the
    output was never written."""
    result = judge(name, spec)
    assert result.verdict == Verdict.WRONG_ANSWER, result.message
    assert f"'{tensor}'" in first_failure(result) and "never written" in first_failure(result)


def test_a_lone_surrogate_and_terminal_escapes_reach_no_report_raw():
    runner = CliRunner()
    path = str(SOLUTIONS / "hostile_surrogate.py")
    as_json = runner.invoke(main, ["run", str(SPECS / "tiny_transpose.yaml"), path, "--seed", "3", "--json"])
    assert as_json.exit_code == 1, as_json.output
    doc = json.loads(as_json.stdout)  # stderr may hold progress lines (a slow step)
    assert doc["verdict"] == "runtime_error"
    message = doc["tests"][0]["message"]
    assert "\ud800" not in message and "\x1b" not in message and "\r" not in message
    assert "\ufffd" in message and "\\x1b[2J" in message
    plain = runner.invoke(main, ["run", str(SPECS / "tiny_transpose.yaml"), path, "--seed", "3"])
    assert plain.exit_code == 1 and "\x1b[2J" not in plain.output
    history = runner.invoke(main, ["history"])
    assert history.exit_code == 0 and "hostile_surrogate.py" in history.output


def test_a_capture_file_replaced_by_a_folder_is_still_read():
    result = judge("hostile_replace_capture.py")
    assert result.verdict == Verdict.RUNTIME_ERROR, result.message
    assert "printed before the swap" in result.tests[0].message
    assert "after replacing the capture file" in result.tests[0].message


@needs_landlock
def test_a_solution_can_neither_write_on_the_judges_stdout_nor_kill_it():
    proc = subprocess.run([sys.executable, "-m", "judge", "run", str(SPECS / "tiny_transpose.yaml"),
                           str(SOLUTIONS / "hostile_forge_judge_stdout.py"), "--seed", "2", "--json", "--no-history"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)  # one document, the judge's own
    message = doc["tests"][0]["message"]
    # its parent is not there in its PID namespace (getppid() is 0); without one, Landlock denies /proc
    assert doc["verdict"] == "runtime_error" and ("No such file" in message or "Permission denied" in message)


def test_a_reply_listing_too_many_blobs_is_refused_before_any_is_read():
    result = judge("hostile_many_blobs.py")
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "200000 blobs" in result.tests[0].message and "malformed reply" in result.tests[0].message


def first_failure(result) -> str:
    return next(t for t in result.tests if t.verdict != Verdict.ACCEPTED).message


def test_a_reply_nested_past_the_stack_is_malformed_not_a_crash():
    result = judge("hostile_nested_reply.py")
    assert result.verdict == Verdict.RUNTIME_ERROR and "malformed reply" in result.tests[0].message


def test_an_out_of_bounds_store_gets_one_verdict_naming_the_tensor_every_run():
    results = [judge("transpose_oob_store.py", seed=11) for _ in range(3)]
    messages = {first_failure(r).splitlines()[-1] for r in results}
    assert [r.verdict for r in results] == [Verdict.RUNTIME_ERROR] * 3
    assert len(messages) == 1, messages
    (message,) = messages
    assert "solve() wrote outside `output`" in message and "past its end" in message


def test_a_store_far_outside_every_tensor_faults_the_same_way_every_run():
    results = [judge("transpose_oob_far.py", seed=11) for _ in range(2)]
    for result in results:
        assert result.verdict == Verdict.RUNTIME_ERROR
        assert "SIGSEGV" in first_failure(result), first_failure(result)


def test_the_worker_sees_only_the_variables_it_needs(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_leaked0123456789")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-leaked-key")
    result = judge("hostile_environment.py")
    message = result.tests[0].message
    assert result.verdict == Verdict.RUNTIME_ERROR and "PATH=" in message
    assert "ghp_leaked" not in message and "aws-leaked" not in message


READS = """
def solve(input, output, rows, cols):
    raise RuntimeError("read: " + open({path!r}).read())
"""
SIGNALS = """
import os, signal

def solve(input, output, rows, cols):
    for judge in (os.getppid(), {judge}):  # its parent, and the judge's pid as the judge knows it
        if judge > 0:
            os.kill(judge, signal.SIGTERM)
"""


@needs_landlock
def test_a_solution_cannot_read_the_graders_files(tmp_path):
    secret = tmp_path / "grader" / "hidden_tests.txt"
    secret.parent.mkdir()
    secret.write_text("SECRET_TOKEN=hunter2")
    solution = tmp_path / "submission" / "reads.py"
    solution.parent.mkdir()
    solution.write_text(READS.format(path=str(secret)))
    result = judge_solution(TINY, str(solution), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "hunter2" not in result.tests[0].message and "Permission denied" in result.tests[0].message
    assert result.environment["protections"]["landlock"].startswith("on")


@needs_landlock
def test_a_solution_cannot_signal_its_judge(tmp_path):
    import os

    solution = tmp_path / "signals.py"
    solution.write_text(SIGNALS.format(judge=os.getpid()))
    result = judge_solution(TINY, str(solution), Options(seed=1, interpret=True))  # this test's process survives
    assert result.verdict == Verdict.RUNTIME_ERROR
    # In its PID namespace the judge does not exist for it (no such process); without one, Landlock denies it
    assert "No such process" in result.tests[0].message or "Operation not permitted" in result.tests[0].message


def test_the_protections_are_in_the_environment_and_a_missing_one_is_a_note(monkeypatch):
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    result = judge("transpose_ok.py")
    assert result.verdict == Verdict.ACCEPTED
    protections = result.environment["protections"]
    assert protections["landlock"] == "off: JUDGE_SANDBOX=0" and protections["seccomp"] == "off: JUDGE_SANDBOX=0"
    assert protections["guard_zones"] == "on" and protections["environment"] == "allow-listed"
    assert any("sandbox" in note and "JUDGE_SANDBOX=0" in note for note in result.notes)


# -- the red team's findings (2026-11-26; each failed before its fix) ------------------------------------

def test_no_thread_of_the_worker_runs_unconfined(tmp_path, monkeypatch):
    """OpenBLAS started its thread pool while the worker imported numpy, before the sandbox, and Landlock
    confines only the thread that applies it: code the solution ran there (exec_blas takes callbacks) read
    the grader's files and forged the judge's stdout.  Workers now start no pool, and seccomp covers
    every thread."""
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET_TOKEN=hunter2")
    secret_env = {"JUDGE_TEST_SECRET": str(secret)}
    census = first_failure(judge("hostile_thread_census.py", worker_env=secret_env))
    assert "threads: 1 " in census, census  # CPU mode: the worker's own thread, nothing started before
    result = judge("hostile_unconfined_thread.py", timeout=10, worker_env=secret_env)  # no pool: exec_blas waits
    message = first_failure(result)
    assert result.verdict != Verdict.ACCEPTED
    assert "hunter2" not in message and ": READ" not in message and "socket(): allowed" not in message
    assert not (tmp_path / "secret.txt.escaped").exists()
    assert result.environment["protections"]["landlock"].startswith(("on", "off"))  # not "partial": no other thread


def test_a_worker_that_stops_reading_cannot_stall_the_judge():
    """The red team's solution answered a call from inside solve() and never returned; the judge's next
    request (shipped inputs, larger than the pipe) blocked in os.write for 667 s, past --timeout.  Requests
    are small now and every wait has the call's deadline."""
    import time as clock

    from judge.judging.reference import Reference
    from judge.worker.client import Worker, WorkerTimeout

    worker = Worker(str(SOLUTIONS / "hostile_answers_then_stalls.py"), TINY, "cpu", True)
    reference = Reference(TINY, "cpu")
    try:
        worker.start(120)
        fields = worker.place(TINY.parameters, reference.call_arguments({"rows": 3, "cols": 2}, 1))
        header, _ = worker.request({"op": "call", **fields}, 30)
        assert header.get("ok")  # its own answer
        started = clock.monotonic()
        with pytest.raises(WorkerTimeout):
            fields = worker.place(TINY.parameters, reference.call_arguments({"rows": 3, "cols": 2}, 2))
            worker.request({"op": "call", **fields}, 2.0)
        assert clock.monotonic() - started < 10
    finally:
        worker.stop()


def test_no_child_of_the_solution_leaves_its_group_or_outlives_the_judgement():
    import re
    from conftest import outlived

    result = judge("hostile_setsid_child.py")
    message = first_failure(result)
    assert "setsid: Operation not permitted" in message, message
    assert "solve() left a process running" in message, message  # the judge's word: a runtime error
    pid = int(re.search(r"left a process running \(pid (\d+) ", message).group(1))  # as the judge sees it
    assert not outlived(pid), "the solution's child outlived its worker"


@pytest.mark.parametrize("name, words", [
    ("hostile_huge_int_reply.py", "malformed reply"),  # json.loads' ValueError: exit 3 before
    ("hostile_time_ms_string.py", "not a time"),  # the console formatted it: exit 3 before
])
def test_a_reply_with_an_impossible_number_is_malformed_not_a_crash(name, words):
    runner = CliRunner()
    out = runner.invoke(main, ["run", str(SPECS / "tiny_transpose.yaml"), str(SOLUTIONS / name), "--seed", "3"])
    assert out.exit_code == 1, out.output
    assert words in out.output and "internal error" not in out.output


def test_a_solution_that_fills_its_folder_is_stopped():
    from judge.defence.limits import Limits

    result = judge("hostile_disk_fill.py", limits=Limits(scratch_bytes=48 * 1024**2))
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "of files into its folder" in first_failure(result), first_failure(result)


def test_a_worker_cannot_talk_the_judge_into_reporting_a_sandbox_it_lacks(monkeypatch):
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    result = judge("hostile_forge_protections.py")
    protections = result.environment["protections"]
    assert protections["landlock"] == "off: JUDGE_SANDBOX=0" and protections["seccomp"] == "off: JUDGE_SANDBOX=0"
    assert any("sandbox is incomplete" in note for note in result.notes)


@needs_landlock
def test_the_torch_baseline_of_a_leetgpu_folder_may_read_its_checkout(tmp_path):
    """The baseline imports the folder's challenge.py (and the checkout's core package): under the
    sandbox that read was denied and the torch column of LeetGPU benchmarks went missing (H200 test)."""
    from judge.challenge.catalog import load_challenge
    from judge.judging.benchmark_stage import baseline_file, baseline_reads
    from judge.worker.client import SubmissionInvalid, Worker

    spec = load_challenge(str(ROOT / "tests" / "leetgpu" / "challenges" / "easy" / "1_vec_add"))
    path = baseline_file(spec, str(tmp_path))
    worker = Worker(path, spec, "cpu", True, readable=baseline_reads(spec))
    try:
        worker.start(120)  # loads: reference_impl imported from the checkout
    finally:
        worker.stop()
    closed = Worker(path, spec, "cpu", True)
    with pytest.raises(SubmissionInvalid):
        closed.start(120)
    closed.stop()


def test_no_code_of_the_solutions_runs_between_the_draw_and_the_call():
    """A gc callback that computed each call's answer from its freshly drawn inputs, outside the call: found in
    KernelBench mode (tests/test_kernelbench_e2e.py) and closed there first; YAML specs and LeetGPU folders had
    the same window (docs/security.md).  Closed for every kind of challenge: the judge draws in its own process and
    the worker is frozen from its reply to the next request (the harness), so the callback sees no call's inputs
    before its request, and the zeros (or the stale answers) solve() writes instead are wrong."""
    result = judge("hostile_gc_precompute.py")
    accepted = [t.name for t in result.tests if t.verdict == Verdict.ACCEPTED]  # before: every case after the first
    assert result.verdict == Verdict.WRONG_ANSWER and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def accepted_cases(result) -> list[str]:
    return [t.name for t in result.tests if t.verdict == Verdict.ACCEPTED]


@pytest.mark.parametrize("name", ["hostile_window_weakref_finalize.py", "hostile_window_tensor_dict_del.py"])
def test_no_finalizer_run_by_reference_counting_sees_the_next_draw(name):
    """Red team of the draw window: the collector is off from the draw until the call, but a finalizer also runs
    when an object's last reference goes (weakref.finalize, or the __del__ of an object solve() hung on a tensor
    it was given).  The judge drops the previous call's tensors inside the next draw (Session.seal replaces
    self.sealed), with the fresh arguments in the frames above: the finalizer computed their answer there."""
    result = judge(name)
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def test_no_audit_hook_sees_the_draw():
    """Red team of the draw window: an audit hook (sys.addaudithook: it cannot be removed) runs at every audit
    event, and the CPU-mode draw raises some (guarded.Arena._cpu: mmap.__new__, ctypes) right after the input's
    values are drawn (tensors.placed holds them): the hook computed the answer there."""
    result = judge("hostile_window_audit_hook.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def test_no_patched_tensor_method_runs_in_the_draw():
    """Red team of the draw window: the YAML draw calls torch.Tensor methods looked up at each call
    (tensors.placed: ``.copy_``); solve() rebound torch.Tensor.copy_ and its wrapper computed the answer as the
    judge copied the fresh input into its guarded buffer.  KernelBench mode compares torch's functions before
    each draw (kernelbench_model._Untouched); YAML specs and LeetGPU folders did not."""
    result = judge("hostile_window_tensor_method.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def test_no_output_written_by_its_swapped_class_after_the_call():
    """Red team (after solve() returns): solve() set ``output.__class__`` to a torch subclass whose
    __torch_function__ writes the answer at the judge's first torch call on it, the seal's check
    (guarded.Seal.broken -> _identity -> untyped_storage) after the clock stopped.  The seal compares the
    storage, offset, shape, strides, dtype and device, not the class."""
    result = judge("hostile_window_late_class.py")
    accepted = accepted_cases(result)  # leaked: every case
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_poisoned_cache_of_the_judges_runs_in_the_draw():
    """Red team of the draw window: the guard zones' canary is cached in guarded._CANARIES, a dict the worker's
    fingerprint sees only by identity; solve() swapped its tensor for a torch subclass, and every guarded buffer
    the next draw allocated sliced it (guarded._Guarded, from tensors.placed, the drawn values in its frame): the
    subclass's __torch_function__ computed the answer there."""
    result = judge("hostile_window_canary_cache.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def test_no_thread_unlisted_by_threading_runs_through_the_draw():
    """Red team of the draw window: a thread started with ``_thread.start_new_thread`` is not in
    threading.enumerate(), so Session.threads_left never names it; it ran on through the next draws, read the
    main thread's stack (sys._current_frames()) whenever the draw let go of the interpreter and computed the
    answer from tensors.make_arguments' fresh input.  A race: in each of nine runs 1 to 3 of the 11 cases were
    accepted; a judge that sees the thread would stop it (or fail the call) at the first."""
    result = judge("hostile_window_raw_thread.py")
    accepted = accepted_cases(result)
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_code_of_the_solutions_runs_between_the_request_and_the_draw():
    """Red team of the draw window: it closes at the draw, but the call's seed and sizes arrive earlier, in the
    request's header.  solve() put an object into its own request's header dict; its __del__ ran by reference
    counting as the worker's loop (judge/worker/__main__.py) stored the next request in its place, read that
    header's seed and params and drew the inputs itself with tensors.make_arguments: the answer was ready before
    the window closed."""
    result = judge("hostile_window_request_del.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and len(result.tests) > 5 and not accepted, (result.verdict, accepted)


def test_no_signal_handler_runs_between_the_request_and_the_draw():
    """Red team of the draw window: it puts the signal handlers back and cancels the interval timers only at the
    draw.  A SIGALRM every 100 us, armed in solve(), ran its Python handler after the next request arrived and
    before the draw: it read the header's seed and params on the worker loop's frame and drew the inputs itself
    (tensors.make_arguments).  A race, won often: 6 to 8 of the 11 cases were accepted in each run."""
    result = judge("hostile_window_itimer.py")
    accepted = accepted_cases(result)
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_python_kernel_registered_for_an_aten_op_runs_in_the_draw():
    """Red team 2 of the draw window: the solution's import registered a Python kernel for aten::copy_ on the
    AutogradCPU dispatch key (torch.library.Library("aten", "IMPL")).  That is state of torch's dispatcher, in C:
    no callable of torch's namespaces changes, so DrawWindow.close (_Callables) sees nothing.  The YAML draw
    copies each fresh input into its guarded buffer (tensors.placed: ``.copy_(values)``): the kernel kept the
    answer there, untimed."""
    result = judge("hostile_window2_aten_kernel.py")
    accepted = accepted_cases(result)  # leaked: 8 of the 11 cases
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_property_set_on_tensor_runs_in_the_draw():
    """Red team 2 of the draw window: solve() set ``torch.Tensor.shape = property(getter)``.  DrawWindow's
    _Callables compares and takes away only callable entries of torch.Tensor's namespace; a property object is
    not callable, so it stays (and nothing is reported).  The draw reads the fresh input's shape as it places it
    (tensors.placed: ``tuple(values.shape)``): the getter kept the answer there, untimed."""
    result = judge("hostile_window2_tensor_property.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_patched_spec_method_runs_in_the_draw():
    """Red team 2 of the draw window: integrity.Fingerprint watches the worker's modules, not
    judge.challenge.spec_model, and it runs only after a call.  solve() rebound Spec.shape_of, which the YAML draw
    calls (tensors.make_arguments) with the call's seed and sizes in its frame: the wrapper drew the inputs
    itself there (tensors.make_arguments) and kept the answer, untimed."""
    result = judge("hostile_window2_spec_method.py")
    accepted = accepted_cases(result)  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_no_python_kernel_for_an_aten_op_writes_the_outputs_after_the_call():
    """Red team 2, after solve() returns: the import registered a Python kernel for aten::detach on the
    AutogradCPU dispatch key (torch.library); solve() wrote nothing.  The judge's read-back of the output
    (Session.send_tensors -> tensors.raw_bytes: ``.detach()``) ran the kernel, which wrote the answer into the
    output after the clock: every case accepted, none of the work timed."""
    result = judge("hostile_window2_aten_after_call.py")
    accepted = accepted_cases(result)  # leaked: all 11 cases, verdict ACCEPTED
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


