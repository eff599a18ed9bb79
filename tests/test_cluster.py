"""``judge grade --cluster``: grading on Dask (judge/grading/cluster.py), CPU mode.

One folder of right, wrong and crashing submissions is graded twice, serially
and with ``--cluster local --jobs 2`` (two worker processes), with a secret
seed; the cluster grade also holds a submission that kills the Dask worker
grading it.  The other tests run on a cluster of threads inside this process
(cheap to start: no second torch import) or on pure functions.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from click.testing import CliRunner  # noqa: E402

from judge.cli import main  # noqa: E402
from judge.grading import cluster  # noqa: E402
from judge.grading.records import GradeSettings  # noqa: E402
from judge.grading.submissions import Entry  # noqa: E402
from conftest import ROOT, SOLUTIONS, SPECS  # noqa: E402

SECRET = "cluster-s3cr3t-77"
SEED = 5
NORMAL = {"alice": "transpose_ok.py", "bob": "transpose_wrong_value.py", "carol": "transpose_crash.py"}
# Kills its parent, the Dask worker grading it (the judge's own worker process is its child).  The
# sandbox and the worker's PID namespace forbid that (test_cheats.py, test_redteam_sealing.py); the grade that
# runs it turns both off, to stand for a Dask worker lost some other way (the out-of-memory killer, a lost host).
KILLS_ITS_WORKER = """
import os, signal

def solve(input, output, rows, cols):
    os.kill(os.getppid(), signal.SIGKILL)
"""


def _folder(base: Path, killer: bool) -> Path:
    for who, name in NORMAL.items():
        (base / who).mkdir(parents=True)
        shutil.copy(SOLUTIONS / name, base / who / "tiny_transpose.py")
    if killer:
        (base / "mallory").mkdir()
        (base / "mallory" / "tiny_transpose.py").write_text(KILLS_ITS_WORKER)
    return base


def _grade(args: list, cwd: Path, **extra_env) -> subprocess.CompletedProcess:
    env = {**os.environ, "JUDGE_SECRET_SEED": SECRET, "PYTHONPATH": str(ROOT), "JUDGE_CHALLENGES_PATH": str(SPECS),
           **extra_env}
    return subprocess.run([sys.executable, "-m", "judge", "grade", "--seed", str(SEED), "--timeout", "5", *args],
                          capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


def _outcomes(doc: dict) -> dict:
    return {r["submission"]: (r["verdict"], [(t["name"], t["verdict"], t.get("params")) for t in r["tests"]])
            for r in doc["results"]}


@pytest.mark.slow
def test_a_local_cluster_grades_as_serially_survives_a_killed_worker_and_keeps_the_secret(tmp_path):
    """One test, so that pytest-xdist runs the two grades once: the right, wrong and
    crashing submissions serially, and with one that kills its worker on
    ``--cluster local --jobs 2``, both with a secret seed."""
    serial = _grade(["--dir", str(_folder(tmp_path / "serial", False)), "--json", "s.json"], tmp_path)
    on_cluster = _grade(["--dir", str(_folder(tmp_path / "subs", True)), "--cluster", "local", "--jobs", "2",
                         "--json", "c.json", "--junit", "c.xml"], tmp_path, JUDGE_SANDBOX="0",
                        JUDGE_NAMESPACES="0")
    s_doc, c_doc = (json.loads((tmp_path / name).read_text()) for name in ("s.json", "c.json"))
    # the same verdicts, cases and sizes as the serial grade
    expected = _outcomes(s_doc)
    assert {k: v[0] for k, v in expected.items()} == {"alice": "accepted", "bob": "wrong_answer",
                                                      "carol": "runtime_error"}, serial.stdout + serial.stderr
    assert {k: _outcomes(c_doc)[k] for k in expected} == expected
    assert on_cluster.returncode == 1 and c_doc["complete"] and c_doc["summary"]["graded"] == 4
    assert {r.get("worker") for r in c_doc["results"] if r["submission"] in NORMAL} <= {"cpu0", "cpu1"}
    assert "on a local Dask cluster of 2 worker(s)" in on_cluster.stdout
    # the submission that kills its Dask worker: tried twice, then a verdict that --resume retries
    killer = next(r for r in c_doc["results"] if r["submission"] == "mallory")
    assert killer["verdict"] == "runtime_error" and killer["internal_error"] and killer["key"] is None
    assert "Dask worker grading this submission died (2 tries" in killer["message"]
    assert "left the cluster mid-grade" in on_cluster.stdout  # the killed worker, seen gone (docs/grading.md)
    # the secret: in no output, log (the workers' included: they write to this stderr) or file
    texts = [on_cluster.stdout, on_cluster.stderr, (tmp_path / "c.json").read_text(), (tmp_path / "c.xml").read_text()]
    assert not [t for t in texts if SECRET in t] and c_doc["seed"]["label"] == f"{SEED} + secret"


# -- on a cluster of threads in this process --------------------------------------------------

@pytest.fixture(scope="module")
def threads_cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
                                  silence_logs=logging.ERROR) as local, distributed.Client(local) as client:
        yield client


def _job(index: int, tmp_path: Path) -> cluster.Job:
    path = tmp_path / f"s{index}.py"
    path.write_text("def solve(*args): pass\n")
    entry = Entry(f"who{index}", "tiny_transpose", str(path), str(SPECS / "tiny_transpose.yaml"))
    return cluster.Job(index, entry, None, "k", str(path), "not its digest")


SEEN_ON_THE_WORKER = []  # module level: a closure would be pickled with a copy of its list


def _failing_task(job, settings, cancel_name):
    """Notes each task's key and reprs (the Task's, and its arguments': Dask
    shortens the first when the key is long), then fails."""
    for key, ts in distributed.get_worker().state.tasks.items():
        spec = ts.run_spec
        SEEN_ON_THE_WORKER.append((str(key), repr(spec) + str(spec) + repr(getattr(spec, "args", ""))
                                   + repr(getattr(spec, "kwargs", ""))))
    raise RuntimeError("boom")


def test_task_keys_and_reprs_do_not_carry_the_secret(threads_cluster, tmp_path, monkeypatch, caplog):
    """What Dask shows of a task (its key, its repr; the 'Compute Failed' log of a
    task that raises) holds no secret; the failure becomes an internal record."""
    failing_task, seen = _failing_task, SEEN_ON_THE_WORKER
    monkeypatch.setattr(cluster, "grade_task", failing_task)
    settings, records = GradeSettings(SEED, SECRET, interpret=True), {}
    with caplog.at_level(logging.INFO, logger="distributed"):
        cluster.grade_on_cluster(threads_cluster, [_job(0, tmp_path)], settings, records.__setitem__)
    assert seen and all(SECRET not in key and SECRET not in text for key, text in seen)
    assert all(key.startswith("judge-grade-0-") for key, _ in seen)
    assert "GradeSettings(public_seed=5, interpret=True" in seen[0][1]  # the settings are there, shown
    assert "Compute Failed" in caplog.text and SECRET not in caplog.text
    assert records[0]["verdict"] == "runtime_error" and "RuntimeError: boom" in records[0]["message"]
    assert records[0]["key"] is None


def test_an_interrupt_stops_the_running_tasks_and_keeps_finished_records(threads_cluster, tmp_path, monkeypatch):
    """Ctrl-C while the first record is written: the grade's Event stops the other
    tasks (running or not started), and the interrupt propagates."""
    def task(job, settings, cancel_name):
        stop = cluster.ClusterCancel(cancel_name)
        deadline = time.monotonic() + (0 if job.index == 0 else 20)
        while time.monotonic() < deadline:
            if stop.is_set():
                return None
            time.sleep(0.05)
        return {"index": job.index}

    def done(index, record):
        records[index] = record
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster, "grade_task", task)
    records, started = {}, time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        cluster.grade_on_cluster(threads_cluster, [_job(i, tmp_path) for i in range(4)],
                                 GradeSettings(SEED, interpret=True), done)
    assert records == {0: {"index": 0}} and time.monotonic() - started < 10


HELD_BY_THE_WORKER = []


def _counting_task(job, settings, cancel_name):
    HELD_BY_THE_WORKER.append(len(distributed.get_worker().state.tasks))
    time.sleep(0.05)
    return {"index": job.index}


def test_only_as_many_tasks_as_the_cluster_has_slots_are_submitted(threads_cluster, tmp_path, monkeypatch):
    """Two threads: the worker never holds more than two of the eight tasks (all
    at once would queue them on it, where its death would count against each)."""
    monkeypatch.setattr(cluster, "grade_task", _counting_task)
    records = {}
    assert cluster.slots(threads_cluster, interpret=True) == 2 and cluster.slots(threads_cluster, False) == 0
    cluster.grade_on_cluster(threads_cluster, [_job(i, tmp_path) for i in range(8)],
                             GradeSettings(SEED, interpret=True), records.__setitem__)
    assert records == {i: {"index": i} for i in range(8)}
    assert len(HELD_BY_THE_WORKER) == 8 and max(HELD_BY_THE_WORKER) <= 2


STARTED_AT = {}  # index -> when its task began (a cluster of threads: this process's clock and dict)


def _task_of_known_length(job, settings, cancel_name):
    STARTED_AT[job.index] = time.monotonic()
    time.sleep({0: 0.05, 1: 1.5}.get(job.index, 0.0))
    return {"index": job.index}


def test_a_freed_slot_takes_its_next_task_before_the_outputs_are_written(threads_cluster, tmp_path, monkeypatch):
    """Writing the outputs (every record so far, three formats) takes long in a large
    grade: the task that frees a slot is replaced first, so its GPU does not wait for that."""
    monkeypatch.setattr(cluster, "grade_task", _task_of_known_length)
    written = {}

    def done(index, record):
        if index == 0:
            time.sleep(0.6)
        written[index] = time.monotonic()

    cluster.grade_on_cluster(threads_cluster, [_job(i, tmp_path) for i in range(3)],
                             GradeSettings(SEED, interpret=True), done)
    assert sorted(written) == [0, 1, 2]
    assert STARTED_AT[2] < written[0] - 0.4  # task 2 ran in the slot of task 0 while its record was written


def _quick_task(job, settings, cancel_name):
    time.sleep(0.05)
    return {"index": job.index}


@pytest.mark.parametrize("where", ["fetching the result", "submitting the next task"])
def test_an_interrupt_while_a_finished_task_is_taken_keeps_its_record(threads_cluster, tmp_path, monkeypatch,
                                                                      where):
    """Ctrl-C lands in the main thread wherever it runs: while it fetches a finished
    task's result, or while it submits the next task before passing that record on
    (a round trip to the scheduler each).  The record was dropped then, though its
    task had finished: the interrupted grade must still write it."""
    monkeypatch.setattr(cluster, "grade_task", _quick_task)
    interrupt = {"fetching the result": "_outcome", "submitting the next task": "_workers"}[where]
    real, calls = getattr(cluster, interrupt), []

    def interrupted_once(*args, **kwargs):
        calls.append(1)
        # _workers: the workers at the start, then the first top-up's, then the refill's (the round trip hit)
        if len(calls) == (1 if interrupt == "_outcome" else 3):
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(cluster, interrupt, interrupted_once)
    records = {}
    with pytest.raises(KeyboardInterrupt):
        cluster.grade_on_cluster(threads_cluster, [_job(i, tmp_path) for i in range(2)],
                                 GradeSettings(SEED, interpret=True), records.__setitem__, drain_s=10)
    assert records == {0: {"index": 0}, 1: {"index": 1}}


def _second_long_task(job, settings, cancel_name):
    time.sleep(0.05 if job.index == 0 else 30)
    return {"index": job.index}


def test_a_scheduler_lost_mid_grade_is_a_cluster_error_that_keeps_the_records(tmp_path, monkeypatch):
    """The scheduler's process dies after the first record: the grade says so (a ClusterError,
    a one-paragraph exit 2), not 'internal error ... please report it' after setting the
    Event had waited out a 30 s connect timeout; the first record was passed on."""
    serve = ("import logging, sys, time, distributed; c = distributed.LocalCluster(n_workers=1, threads_per_worker=2, "
             "processes=False, protocol='tcp', dashboard_address=None, silence_logs=logging.CRITICAL); "
             "print(c.scheduler_address, flush=True); time.sleep(120)")
    scheduler = subprocess.Popen([sys.executable, "-c", serve], stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])})
    monkeypatch.setattr(cluster, "grade_task", _second_long_task)
    records = {}

    def done(index, record):
        records[index] = record
        scheduler.kill()

    try:
        # timeout: how long the client tries to reconnect; now and then (1 suite run of 8 on a loaded 2-core
        # machine) the loss is only noticed when that runs out, which at 60 s failed the 20 s bound below.
        with distributed.Client(scheduler.stdout.readline().strip(), timeout=10) as client:
            started = time.monotonic()
            with pytest.raises(cluster.ClusterError, match="lost the Dask scheduler mid-grade"):
                cluster.grade_on_cluster(client, [_job(i, tmp_path) for i in range(2)],
                                         GradeSettings(SEED, interpret=True), done)
            lost_s = time.monotonic() - started
    finally:
        scheduler.kill()
        scheduler.wait(timeout=30)
    assert records == {0: {"index": 0}} and lost_s < 20


@pytest.mark.slow
def test_resume_on_a_scheduler_grades_only_the_changed_submission(threads_cluster, tmp_path):
    """--cluster ADDRESS (a scheduler's address) twice: the second run, with --resume
    after bob fixed his file, grades bob only."""
    subs = tmp_path / "subs"
    for who, name in (("alice", "transpose_ok.py"), ("bob", "transpose_wrong_value.py")):
        (subs / who).mkdir(parents=True)
        shutil.copy(SOLUTIONS / name, subs / who / "tiny_transpose.py")
    out = tmp_path / "r.json"
    args = ["grade", "--dir", str(subs), "--cluster", threads_cluster.scheduler.address, "--interpret",
            "--timeout", "5", "--seed", str(SEED), "--resume", "--json", str(out)]
    env = {"JUDGE_CHALLENGES_PATH": str(SPECS)}
    first = CliRunner().invoke(main, args, env=env)
    assert [r["verdict"] for r in json.loads(out.read_text())["results"]] == ["accepted", "wrong_answer"], first.output
    shutil.copy(SOLUTIONS / "transpose_ok.py", subs / "bob" / "tiny_transpose.py")
    second = CliRunner().invoke(main, args, env=env)
    doc = json.loads(out.read_text())
    assert {r["submission"]: (r["verdict"], bool(r.get("carried_over"))) for r in doc["results"]} == {
        "alice": ("accepted", True), "bob": ("accepted", False)}, second.output
    assert second.exit_code == 0 and doc["results"][1]["worker"] == "0"


def test_a_worker_that_offers_a_gpu_it_does_not_have_is_a_usage_error():
    """GPU mode on a worker started with --resources GPU=1 but no CUDA device (this machine)."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                                  resources={"GPU": 1}, silence_logs=logging.ERROR) as local, \
            distributed.Client(local) as client:
        if cluster._worker_facts(False)[1] > 0:
            pytest.skip("this machine has a CUDA GPU")
        with pytest.raises(cluster.ClusterError, match="offers the resource GPU but sees no CUDA GPU"):
            cluster.check_workers(client, local.scheduler_address, False, print)
        assert cluster.slots(client, interpret=False) == 1


@pytest.mark.slow
def test_judge_worker_serves_a_scheduler_until_sigterm():
    """``judge worker --interpret --jobs 2`` joins with two named single-threaded workers and leaves on SIGTERM."""
    import signal

    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None,
                                  silence_logs=logging.ERROR) as local, distributed.Client(local) as client:
        proc = subprocess.Popen([sys.executable, "-m", "judge", "worker", local.scheduler_address, "--interpret",
                                 "--jobs", "2", "--name", "box"], env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            client.wait_for_workers(2, timeout=120)
            workers = client.scheduler_info()["workers"].values()
            assert sorted((w["name"], w["nthreads"]) for w in workers) == [("box-cpu0", 1), ("box-cpu1", 1)]
            assert cluster.slots(client, interpret=True) == 2
        finally:
            proc.send_signal(signal.SIGTERM)
            output = proc.communicate(timeout=60)[0]
        assert proc.returncode == 0, output
        deadline = time.monotonic() + 10
        while client.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not client.scheduler_info()["workers"]


@pytest.mark.slow
def test_local_workers_join_warmed_up_and_end_without_the_interpreters_teardown(tmp_path):
    """A --cluster local worker (CPU mode) has torch and the judging modules imported
    before its first task, and after a graceful close its process skips the interpreter's
    teardown: an object kept until then is never finalised, and the close is quick."""
    marker = tmp_path / "finalised"

    def facts(dask_worker):
        return {name: name in sys.modules for name in ("torch", "judge.judging.dispatch")}, \
            dask_worker.judge_warm_up_s

    def keep_until_teardown(path):
        import os
        import sys

        class Marker:
            def __del__(self, _open=os.open, _close=os.close, flags=os.O_CREAT | os.O_WRONLY):
                _close(_open(path, flags))

        sys.modules["judge_test_marker"] = Marker()  # dropped, and finalised, only by the teardown

    local = cluster._start_local(None, 1)
    try:
        with distributed.Client(local) as client:
            client.wait_for_workers(1, timeout=120)
            [(modules, warmed)] = client.run(facts).values()
            client.run(keep_until_teardown, str(marker))
    finally:
        started = time.monotonic()
        local.close()
        closed_s = time.monotonic() - started
    assert modules == {"torch": True, "judge.judging.dispatch": True}
    assert warmed["imports"] > 0 and "cuda" not in warmed  # a CPU worker warms no GPU
    assert not marker.exists() and closed_s < 5


def test_the_cuda_warm_up_runs_the_judges_first_steps_on_any_device(monkeypatch):
    """warm_cuda's steps on the CPU (its two CUDA-only calls stubbed): a broken step would
    only be logged on a GPU worker, which would then join cold, and no test there would fail."""
    import torch

    from judge.grading import preload

    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    preload.warm_cuda("cpu")
    assert set(preload.warm(gpu=False)) == {"imports"}


@pytest.mark.gpu
def test_a_gpu_worker_joins_with_cuda_warmed_up():
    import torch

    local = cluster._start_local([0], 0)
    try:
        with distributed.Client(local) as client:
            client.wait_for_workers(1, timeout=120)
            [(ready, warmed)] = client.run(
                lambda dask_worker: (torch.cuda.is_initialized(), dask_worker.judge_warm_up_s)).values()
    finally:
        local.close()
    assert ready and warmed["cuda"] > 0


# -- pure parts ------------------------------------------------------------------------

def test_a_poll_without_a_finished_task_is_no_error_on_python_3_10(monkeypatch):
    """``distributed.wait`` times out with ``distributed.TimeoutError``, asyncio's: the builtin
    from Python 3.11 on, a class of its own on 3.10, where the driver's first poll that saw no
    task finish within POLL_S ended every grade with a traceback.  3.10's class, mimicked."""
    class AsyncioTimeoutError(Exception):  # asyncio.exceptions.TimeoutError on Python 3.10
        pass

    def wait(futures, timeout=None, return_when=None):
        raise AsyncioTimeoutError

    monkeypatch.setattr(distributed, "TimeoutError", AsyncioTimeoutError)
    monkeypatch.setattr(distributed, "wait", wait)
    assert cluster._finished({"a future": None}, 0.01) == []


def test_local_workers_are_pinned_one_per_gpu_or_count_jobs():
    gpus = cluster.worker_specs([0, 3], 2)
    assert list(gpus) == ["gpu0", "gpu3"]
    assert all(spec["preload"] == ["judge.grading.preload"] for spec in gpus.values())
    assert gpus["gpu3"]["env"]["CUDA_VISIBLE_DEVICES"] == "3" and gpus["gpu3"]["resources"] == {"GPU": 1}
    assert all(spec["nthreads"] == 1 for spec in gpus.values())
    cpus = cluster.worker_specs(None, 3)
    assert list(cpus) == ["cpu0", "cpu1", "cpu2"] and not any("resources" in s for s in cpus.values())


def test_local_workers_are_pinned_to_the_gpus_this_process_sees(monkeypatch):
    """Under CUDA_VISIBLE_DEVICES=2,3 (a batch job's GPUs) --cluster local's GPUs 0 and 1
    are the physical 2 and 3, as for --gpus: pinned to "0" and "1", the workers judged on
    GPUs the job was not given."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    assert [s["env"]["CUDA_VISIBLE_DEVICES"] for s in cluster.worker_specs([0, 1], 0).values()] == ["2", "3"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-aa, GPU-bb")
    assert cluster.worker_specs([1], 0)["gpu1"]["env"]["CUDA_VISIBLE_DEVICES"] == "GPU-bb"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert cluster.worker_specs([1], 0)["gpu1"]["env"]["CUDA_VISIBLE_DEVICES"] == "1"


def test_a_worker_that_cannot_read_the_submission_says_why(tmp_path):
    job = _job(0, tmp_path)
    settings = GradeSettings(SEED, interpret=True)
    assert "cannot read the submission" in cluster._worker_problem(
        cluster.Job(0, job.entry, None, "k", str(tmp_path / "gone.py"), "d"), settings)
    assert "other bytes" in cluster._worker_problem(job, settings)
    assert cluster._worker_problem(cluster.make_jobs([0], [job.entry], {}, ["k"])[0], settings) == ""
    assert "runs judge" in cluster._worker_problem(cluster.Job(0, job.entry, None, "k", job.path, "d", "0.0.0"),
                                                   settings)


def test_a_task_result_unpickles_without_importing_torch(tmp_path, monkeypatch):
    """A run's record holds torch.__version__, a str subclass: unpickled as such, the first
    result made the grading process import torch, seconds during which the GPU that had
    finished waited for its next task (the 3.5 s gap of the first hand-started-scheduler
    measurement).  What grade_task returns holds builtin types only."""
    import pickle

    import torch

    job = _job(0, tmp_path)
    job = cluster.make_jobs([0], [job.entry], {}, ["k"])[0]
    run = {"verdict": "accepted", "environment": {"torch": torch.__version__},
           "tests": [{"params": {"rows": 1}, "smallest_failing": (1, 1)}]}
    monkeypatch.setattr(cluster, "judge_entry", lambda *args, **kwargs: dict(run))
    record = cluster.grade_task(job, GradeSettings(SEED, interpret=True), "judge-cancel-none")
    load = "import pickle, sys; r = pickle.loads(sys.stdin.buffer.read()); print('torch' in sys.modules, r)"
    done = subprocess.run([sys.executable, "-c", load], input=pickle.dumps(record), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().startswith("False ")
    assert record["environment"]["torch"] == torch.__version__ and record["tests"][0]["smallest_failing"] == (1, 1)


def test_cluster_usage_errors_exit_2(tmp_path):
    solution = str(SOLUTIONS / "transpose_ok.py")
    for args, words in [(["--cluster", "tcp://127.0.0.1:1", "--gpus", "0"], "--gpus and --jobs are for"),
                        (["--cluster", "local", "--device", "cuda:1"], "drop --device"),
                        (["--cluster", "foo://sched:8786"], "'foo://sched:8786' is not a Dask scheduler address"),
                        (["--cluster", "lokal"], "'lokal' is not a Dask scheduler address")]:
        result = CliRunner().invoke(main, ["grade", "transpose", solution, *args])
        assert result.exit_code == 2 and words in result.output, result.output


def test_judge_worker_with_a_bad_or_unreachable_scheduler_is_a_usage_error():
    """Not an internal error (exit 3) asking for a bug report: a typo in the address, or a
    scheduler that does not answer (within Dask's connect timeout, 1 s here)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    for address, words in [("foo://sched:8786", "'foo://sched:8786' is not a Dask scheduler address"),
                           ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1")]:
        done = subprocess.run([sys.executable, "-m", "judge", "worker", address, "--interpret", "--jobs", "2"],
                              capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 2 and words in done.stderr, done.stdout + done.stderr
        assert "Traceback" not in done.stderr


def test_a_leetgpu_folder_travels_as_its_path_and_unpickles_where_its_checkout_is_not_importable(tmp_path):
    """A folder's Challenge class is defined by the user's challenge.py under a module name that no
    other process can import: pickled by value it failed to load on a worker ("No module named
    'core'").  The task carries the folder's path instead and the worker loads it from there."""
    import cloudpickle

    from judge.challenge.catalog import load_challenge

    folder = ROOT / "tests" / "leetgpu" / "challenges" / "easy" / "1_vec_add"
    solution = tmp_path / "s.py"
    solution.write_text("def solve(*args):\n    pass\n")
    spec = load_challenge(str(folder))
    [job] = cluster.make_jobs([0], [Entry("a", str(folder), str(solution), str(folder))], {str(folder): spec}, [None])
    assert job.spec is None and job.folder == str(folder.resolve())
    load = ("import sys, cloudpickle; job = cloudpickle.loads(sys.stdin.buffer.read()); "
            "print(job.load_spec().name)")
    done = subprocess.run([sys.executable, "-c", load], input=cloudpickle.dumps(job), capture_output=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip() == spec.name


@pytest.mark.slow
def test_a_worker_that_may_not_write_bytecode_keeps_it_where_the_judge_does(tmp_path, monkeypatch):
    """Under PYTHONDONTWRITEBYTECODE=1 (the GPU image we measure on) the ``judge`` command keeps
    bytecode in its cache (judge/base/bytecode.py), but a Dask worker is not started by it: the
    worker, and every judge worker process it started for a submission, compiled torch's modules
    again (2.0 s more per submission than the thread pool on two H100s).  The preload, and each
    task for workers without it, now keep it in the judge's cache as the command does."""
    from judge.base.bytecode import worker_bytecode_env

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JUDGE_BYTECODE_CACHE", raising=False)

    def bytecode(dask_worker=None):
        return sys.dont_write_bytecode, sys.pycache_prefix, worker_bytecode_env({}).get("PYTHONPYCACHEPREFIX")

    local = cluster._start_local(None, 1)
    try:
        with distributed.Client(local) as client:
            client.wait_for_workers(1, timeout=120)
            [preloaded] = client.run(bytecode).values()
    finally:
        local.close()
    prefix = str(tmp_path / "cache" / "pycache")
    assert preloaded == (False, prefix, prefix)
    assert any((tmp_path / "cache" / "pycache").rglob("*.pyc"))  # torch's, imported by the preload


def test_a_local_cluster_on_gpus_starts_without_torch_in_the_grading_process():
    """The grading process of ``--cluster local`` needs only the number of GPUs, which the CUDA
    driver gives (judge/base/cuda_driver.py); importing torch for it (1.5-2 s on the GPU machines)
    delayed the start of every worker.  The driver's answer is faked here (no GPU on CI)."""
    code = ("import sys; import judge.grading.placement as p; p.visible_device_count = lambda: 2; "
            "p.torch_has_cuda = lambda: True; "
            "placed = p.place('local', None, None, None, False); "
            "print(placed.interpret, placed.gpus, placed.jobs, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.stdout.split() == ["False", "[0,", "1]", "2", "False"], out.stderr


def test_no_cuda_driver_means_ask_torch_and_no_gpu_means_cpu_mode(monkeypatch):
    from judge.base import cuda_driver
    from judge.grading import placement

    monkeypatch.setattr(placement, "visible_device_count", lambda: 0)  # a driver without devices
    assert placement.place("local", None, 2, None, False).interpret is True
    monkeypatch.setattr(placement, "visible_device_count", lambda: None)  # no driver: torch decides
    monkeypatch.setattr(placement, "resolve_mode", lambda interpret: True)
    assert placement.place("local", None, 2, None, False).jobs == 2
    if not os.path.exists("/dev/nvidiactl"):
        assert cuda_driver.visible_device_count() in (None, 0)


def test_the_ready_line_says_how_long_the_cluster_took_and_names_its_workers():
    assert cluster.ready_line(["gpu0", "gpu1"], 4.26, True) == \
        "local Dask cluster started in 4.3 s: 2 worker(s) (gpu0, gpu1)"
    names = [f"h{i}" for i in range(9)]
    assert cluster.ready_line(names, 0.5, False, shown=3) == \
        "Dask workers checked in 0.5 s: 9 worker(s) (h0, h1, h2, ... (6 more))"


def test_a_worker_that_leaves_or_joins_mid_grade_is_said_and_its_task_noted():
    """Dask runs a lost worker's task again elsewhere without a word (the rehearsal on two H100s:
    a killed host's task reran unseen); the grade now says so, and the record of that task too."""
    changes = cluster.WorkerChanges({"tcp://a:1": "host-a-gpu0", "tcp://b:1": "host-b-gpu0"})
    label = {3: "alice · transpose", 4: "bob · transpose"}.get
    both = {"tcp://a:1": "host-a-gpu0", "tcp://b:1": "host-b-gpu0"}
    assert changes.seen(both, {"tcp://a:1": [4], "tcp://b:1": [3]}, label) == []
    assert changes.seen({"tcp://a:1": "host-a-gpu0"}, {"tcp://a:1": [4, 3]}, label) == [
        "Dask worker host-b-gpu0 left the cluster mid-grade: its task alice · transpose runs again on another "
        "worker (1 worker(s) now)"]
    # a nanny restarts a dead worker under its name at a new address: left, then joined
    assert changes.seen({"tcp://a:2": "host-a-gpu0"}, {}, label) == [
        "Dask worker host-a-gpu0 left the cluster mid-grade: its task bob · transpose, alice · transpose runs again "
        "on another worker (1 worker(s) now)", "Dask worker host-a-gpu0 joined (1 worker(s) now)"]
    record = changes.noted(3, {"verdict": "accepted", "notes": ["n"]})
    assert record["lost_workers"] == ["host-b-gpu0", "host-a-gpu0"]
    assert record["notes"] == ["n", "graded again: the Dask workers host-b-gpu0, host-a-gpu0 running it left the "
                                    "cluster mid-judgement"]
    assert changes.noted(7, {"notes": []}) == {"notes": []}
    died = changes.noted(4, {"verdict": "runtime_error", "internal_error": True, "notes": []})
    assert died["notes"] == ["the Dask worker host-a-gpu0 running it left the cluster mid-judgement"]


class _FakeFuture:
    def __init__(self, key, worker):
        self.key, self.worker, self.status = key, worker, "pending"

    def result(self):
        return {"verdict": "accepted", "notes": []}

    def release(self):
        pass


class _FakeClient:
    """A scheduler whose worker ``a`` finishes its task and then leaves (its host killed
    between the result reaching the driver and the driver's next look at the workers)."""

    status = "running"

    def __init__(self):
        self.workers = {"tcp://a:1": {"name": "gpu0", "resources": {"GPU": 1}},
                        "tcp://b:1": {"name": "gpu1", "resources": {"GPU": 1}}}
        self.futures = []

    def scheduler_info(self, n_workers=-1):
        return {"workers": dict(self.workers)}

    def processing(self):
        return {address: [f.key for f in self.futures if f.worker == address and f.status == "pending"]
                for address in self.workers}

    def submit(self, fn, *args, key, resources=None, pure=False):
        future = _FakeFuture(key, "tcp://a:1" if not self.futures else "tcp://b:1")
        self.futures.append(future)
        return future


def test_a_worker_lost_after_its_task_finished_does_not_mark_that_task_graded_again(monkeypatch):
    """The driver's last look at the workers saw the task running on ``a``; the task then finished
    (its record taken) and ``a`` left before the next look.  The task was judged once: its record
    must not say "graded again", nor the line that it runs again on another worker."""
    import distributed

    client = _FakeClient()
    monkeypatch.setattr(distributed, "Event", lambda name, client=None: type("E", (), {"name": name,
                                                                                      "set": lambda self: None})())
    calls = []

    def finished(futures, timeout):
        calls.append(1)
        if len(calls) == 1:
            return []  # both running: the next look sees them on a and b
        if len(calls) == 2:
            first = client.futures[0]
            first.status = "finished"
            del client.workers["tcp://a:1"]  # its host killed right after its result was sent
            return [first]
        for future in futures:
            future.status = "finished"
        return list(futures)

    monkeypatch.setattr(cluster, "_finished", finished)
    settings, records, said = GradeSettings(SEED, None, interpret=False), {}, []
    jobs = [cluster.Job(i, Entry(f"who{i}", "tiny_transpose", f"s{i}.py", "spec.yaml"), None, "k", f"/s{i}.py", "d")
            for i in range(2)]
    cluster.grade_on_cluster(client, jobs, settings, lambda i, r: records.__setitem__(i, r), say=said.append)
    assert "lost_workers" not in records[0] and records[0]["notes"] == []
    assert not any("who0" in line for line in said), said


def test_a_cuda_driver_beside_a_cpu_only_torch_grades_in_cpu_mode_as_without_cluster(monkeypatch):
    """A machine with the NVIDIA driver but a CPU build of torch (pip's +cpu wheel): ``judge grade``
    grades in CPU mode there (torch sees no GPU), and so must ``--cluster local``; taking the driver's
    count alone started one GPU worker per GPU, whose torch sees none, and the grade failed on the
    workers' check ("offers the resource GPU but sees no CUDA GPU")."""
    from judge.base import cuda_driver
    from judge.grading import placement

    import torch

    monkeypatch.setattr(placement, "visible_device_count", lambda: 2)
    placed = placement.place("local", None, None, None, False)
    assert placed.interpret is (torch.version.cuda is None), placed
    monkeypatch.setattr(cuda_driver, "_torch_version_file", lambda: None)  # torch not found: the driver decides
    assert placement.place("local", None, None, None, False).gpus == [0, 1]


def test_torch_has_cuda_reads_the_build_from_version_py(monkeypatch, tmp_path):
    from judge.base import cuda_driver

    version = tmp_path / "version.py"
    monkeypatch.setattr(cuda_driver, "_torch_version_file", lambda: version)
    for text, built in [("cuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n", True),
                        ("cuda: Optional[str] = None\nhip: Optional[str] = None\n", False),
                        ("cuda = None\nhip = '6.0.3'\n", True), ("cuda = '11.8'\n", True), ("x = 1\n", None)]:
        version.write_text(text)
        assert cuda_driver.torch_has_cuda() is built, text
    version.unlink()
    assert cuda_driver.torch_has_cuda() is None


def test_the_preload_never_fails_a_workers_start_even_where_bytecode_cannot_be_kept(monkeypatch):
    """dask_setup promises never to fail the worker's start (a cold worker still grades); keeping bytecode
    (9fb3d65) ran outside its guard, so a cache folder that cannot be named (no $HOME, a uid without a
    passwd entry, as in some containers) failed the worker's start."""
    from types import SimpleNamespace

    from judge.base import bytecode
    from judge.grading import preload

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(bytecode, "keep_bytecode", no_home)
    monkeypatch.setattr(preload, "warm", lambda gpu: {"imports": 0.0})
    monkeypatch.setattr(preload, "_exit_quickly_after_close", lambda: None)
    worker = SimpleNamespace(state=SimpleNamespace(total_resources={}))
    preload.dask_setup(worker)
    assert worker.judge_warm_up_s == {"imports": 0.0}


def test_a_scheduler_lost_before_the_first_task_is_a_cluster_error(monkeypatch):
    """The look at the workers that WorkerChanges starts from is the grade's first round trip to the
    scheduler: made before the grade loop's guard, a scheduler lost since the workers' check was a bare
    OSError (exit 3, 'internal error'), not the ClusterError that says the scheduler was lost (exit 2)."""
    import distributed

    class Gone(_FakeClient):
        status = "closed"

        def scheduler_info(self, n_workers=-1):
            raise OSError("Timed out trying to connect to tcp://127.0.0.1:8786")

    monkeypatch.setattr(distributed, "Event", lambda name, client=None: type("E", (), {"name": name,
                                                                                      "set": lambda self: None})())
    jobs = [cluster.Job(0, Entry("who0", "tiny_transpose", "s0.py", "spec.yaml"), None, "k", "/s0.py", "d")]
    with pytest.raises(cluster.ClusterError, match="lost the Dask scheduler mid-grade"):
        cluster.grade_on_cluster(Gone(), jobs, GradeSettings(SEED, None, interpret=False), lambda i, r: None)
