"""The red team of issue 46's harness (2026-12-02, CPU mode, as root, sandbox and namespaces on): ten attack ideas
issue 46 does not name, each a hostile solution in tests/solutions/harness_redteam/ whose header says what it tries
and what happened.  A hole is a test marked ``xfail(strict=True)`` with the hole in its reason: it fails today and
passes once the hole is closed (then drop the mark).  A defence seen working is a plain test where it is cheap."""

from __future__ import annotations

import os
import time

import pytest

from judge.challenge.spec import load_spec
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.defence.limits import Limits

from conftest import ROOT, SPECS

pytestmark = pytest.mark.slow
HOSTILE = ROOT / "tests" / "solutions" / "harness_redteam"
TINY = load_spec(SPECS / "tiny_transpose.yaml")


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", 5)
    options.setdefault("interpret", True)
    return judge_solution(spec, str(HOSTILE / name), Options(**options))


# what a fixed judge says at load: of a hidden helper, of its shared memory grown, of memory or files over the limit
REFUSALS = ("left a process running", "grew the judge's shared memory", "of host memory, over the limit",
            "of files into its folders")


def started_worker(name: str, env: dict | None = None, limits: Limits | None = None):
    """A worker for ``name`` started on TINY, or None when the judge refused it at load (a WorkerCrashed saying
    one of ``REFUSALS``: what a fixed judge says of a hidden helper, of its shared memory grown, or of memory or
    files over a limit: a fast machine's watchdog may trip while the solution still loads)."""
    from judge.worker.client import Worker, WorkerCrashed

    worker = Worker(str(HOSTILE / name), TINY, "cpu", True, extra_env=env or {}, limits=limits)
    try:
        worker.start(120)
    except WorkerCrashed as exc:
        worker.stop()
        assert any(why in str(exc) for why in REFUSALS), str(exc)
        return None
    return worker


def call(worker, seed: int, rows: int = 5, cols: int = 3):
    from judge.judging.reference import Reference

    fields = worker.place(TINY.parameters, Reference(TINY, "cpu").call_arguments({"rows": rows, "cols": cols}, seed))
    return worker.request({"op": "call", **fields}, 60)[0]


# -- 1: a helper whose thread-group leader exited -------------------------------------------------------------

def test_a_helper_whose_leader_thread_exited_is_a_process_left_running():
    """tree._running read only the thread-group leader's state (/proc/<pid>/stat): a child whose main thread called
    SYS_exit while another thread ran on showed 'Z', and left_running() counted a live process as ended (accepted,
    11 of 11, under judge run, the server and judge grade).  Now every thread is read."""
    result = judge("zombie_leader_helper.py")
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "left a process running" in result.message, result.message


def test_a_helpers_memory_is_counted_whatever_its_leader_thread_did():
    """limits.resident_bytes read the leader's VmRSS, which a leader that ended alone has none of: 1 GiB a live
    thread of that process held was not counted (nor limited).  A process whose main thread leaves by SYS_exit
    while another thread holds 256 MiB: counted, and still running."""
    import subprocess
    import sys

    from judge.defence import limits, tree

    script = ("import ctypes, threading, time\n"
              "def hold():\n    block = bytearray(256 << 20)\n    block[::4096] = b'x' * len(block[::4096])\n"
              "    print('held', flush=True)\n    time.sleep(60)\n"
              "threading.Thread(target=hold).start()\n"
              "time.sleep(1.0)\nctypes.CDLL(None).syscall(60, 0)\n")  # SYS_exit: the main thread alone
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "held"
        deadline = time.monotonic() + 5.0
        while tree._stat(process.pid)[0] != "Z" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tree._stat(process.pid)[0] == "Z"  # the leader has ended, the process has not
        assert tree._running(process.pid)
        assert limits.resident_bytes(process.pid) > 256 << 20
    finally:
        process.kill()
        process.wait()


def test_the_worker_stays_frozen_until_the_next_request():
    """The hidden helper sent SIGCONT once the judge had seen every thread stopped: now it is a process left
    running, refused at load."""
    from judge.defence import tree

    worker = started_worker("zombie_leader_helper.py", {"JUDGE_TEST_HELPER_THAW": "1"})
    if worker is None:
        return
    try:
        for seed in (1, 2):
            assert call(worker, seed).get("ok")
            time.sleep(0.1)  # the judge would be reading the results and placing the next call's inputs now
            assert tree._all_stopped(worker._worker_root()), "the solution's process runs between its calls"
    finally:
        worker.stop()


# -- 2: a folder tree too deep for the judge in the worker's own folder ---------------------------------------

def _remove(path) -> None:
    """What a test left under ``path``, however deep (rm -rf does not recurse on the C stack)."""
    import subprocess

    subprocess.run(["rm", "-rf", "--", str(path)], check=False)


@pytest.fixture
def judge_tmp(tmp_path, monkeypatch):
    """The judge's temporary folder (where each worker's scratch folder is made) inside the test's own."""
    import tempfile

    folder = tmp_path / "judge-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    _remove(folder)


def test_a_deep_tree_in_the_workers_folder_is_removed_and_the_verdict_stands(judge_tmp):
    """A hole until judge/defence/folders.py walked by descriptors: Worker.stop removes the worker's folder with
    TemporaryDirectory.cleanup (shutil.rmtree, recursive on Python 3.11) and catches OSError only: 3000 nested
    folders made in $TMPDIR raise RecursionError out of the runner's close(), an internal error (exit 3) instead
    of the verdict."""
    result = judge("deep_scratch.py", worker_env={"JUDGE_TEST_DEPTH": "3000"})
    assert result.verdict == Verdict.ACCEPTED, (result.verdict, result.message)
    assert not [p for p in judge_tmp.iterdir() if p.name.startswith("judge-worker-")], "the worker's folder is left"


def test_files_deeper_than_path_max_count_against_the_disk_limit(judge_tmp):
    """A hole until judge/defence/folders.py walked by descriptors: limits.folder_bytes scans each folder by its
    whole path: below PATH_MAX (17 levels of 255-character names) os.scandir fails with ENAMETOOLONG and the
    files there are not counted: 256 MiB against a 64 MiB limit, unseen."""
    worker = started_worker("deep_scratch.py", {"JUDGE_TEST_DEPTH": "20", "JUDGE_TEST_NAME_LEN": "255",
                                                "JUDGE_TEST_DEEP_MB": "256"}, Limits(scratch_bytes=64 * 1024**2))
    if worker is None:
        return  # stopped while it loaded, over the limit (CI's machine saw it so: 0.2 GiB over 0.1 GiB)
    try:
        deadline = time.monotonic() + 5.0  # the watchdog sums the folders every second
        while worker.alive and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker.watchdog.tripped_disk, "256 MiB written in the worker's folder, none of it counted"
    finally:
        worker.stop()


# -- 3: memory in memory files that no process maps -----------------------------------------------------------

def test_memory_files_count_against_the_host_memory_limit():
    """A hole until the watchdog counted the worker's memory files and the judge checked its own after every
    reply: the memory watchdog sums VmRSS only: pages of memfds the worker wrote with write(2) and never mapped
    are charged to no process's VmRSS, so 1 GiB of them passes a 600 MiB limit (a memory cgroup, or the memfds
    in /proc/<pid>/fd, would count them)."""
    worker = started_worker("memfd_hoard.py", {"JUDGE_TEST_HOARD_MB": "1024"}, Limits(host_memory_bytes=600 * 1024**2))
    if worker is None:
        return  # stopped while it loaded, over the limit
    try:
        deadline = time.monotonic() + 10.0  # a loaded machine writes 1 GiB slowly
        while worker.alive and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker.watchdog.tripped, "1 GiB held in memory files, under a 600 MiB limit, not seen"
    finally:
        worker.stop()


def test_the_worker_cannot_grow_the_judges_shared_memory():
    """A hole until the watchdog counted the worker's memory files and the judge checked its own after every
    reply: the harness's memfd is sealed against shrinking only (F_SEAL_SHRINK): the worker fallocates it to 512
    MiB past the judge's slots, pages the judge's process holds (and the watchdog never counts) until the worker
    is stopped."""
    from judge.worker.client import WorkerCrashed

    worker = started_worker("memfd_hoard.py", {"JUDGE_TEST_HOARD_JUDGES": "1", "JUDGE_TEST_HOARD_JUDGES_MB": "512"})
    if worker is None:
        return  # refused at load: the judge checks its memory after every reply, the first included
    try:
        try:
            assert call(worker, 1).get("ok")
        except WorkerCrashed:
            return  # the judge refused a worker that grew its memory: closed
        held = os.fstat(worker.arguments.fd).st_blocks * 512
        assert held <= worker.arguments.memory.size, f"the judge's memfd holds {held >> 20} MiB, " \
                                                     f"{worker.arguments.memory.size >> 20} MiB of them the judge's"
    finally:
        worker.stop()


# -- 4 (honest): a tensor kept from one call and read in a later one ------------------------------------------

@pytest.mark.parametrize("sizes", [[(63, 100), (1449, 1449)], [(2048, 2048), (5, 3)]])
def test_a_tensor_kept_from_an_earlier_call_stays_readable(sizes):
    """A hole until a slot's mapping lived as long as a tensor over it (arguments._Reservation):
    WorkerArguments._release munmaps every slot's reservation when the next call's layout differs, while tensors
    the solution kept still point there: reading one faults (SIGSEGV, reported as the kernel's out-of-bounds
    access) or, when the new reservation lands at the same address, silently shows the next call's values; an
    honest memoising solve() is a runtime_error."""
    worker = started_worker("keeps_input.py")
    try:
        for seed, (rows, cols) in enumerate(sizes):
            reply = call(worker, seed, rows, cols)
            assert reply.get("ok"), reply
    finally:
        worker.stop()


# -- 5: the cleanup of the worker's folder follows a link the solution made -----------------------------------

_AS_USER = r'''
import sys
sys.path.insert(0, sys.argv[3])  # the judge's interpreter's own tempfile.py, not the system python's
import os, runpy, stat, tempfile
assert tempfile.__file__.startswith(sys.argv[3]), tempfile.__file__
from judge.worker.client import Worker
base, solution = sys.argv[1], sys.argv[2]
target = os.path.join(base, "private.txt")
with open(target, "w") as f:
    f.write("the user's")
os.chmod(target, 0o400)
tempfile.tempdir = base
worker = Worker(solution, None, "cpu", True)
worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")  # as Worker._spawn makes it
tmp = os.path.join(worker.workdir.name, "tmp")
os.mkdir(tmp)
os.environ.update(TMPDIR=tmp, JUDGE_TEST_TARGET=target)
os.chdir(worker.workdir.name)
runpy.run_path(solution)  # the solution's import, as the worker runs it (its sandbox allows each step)
worker.stop()  # the judge's cleanup
print(oct(stat.S_IMODE(os.stat(target).st_mode)))
'''


def test_the_cleanup_of_the_workers_folder_changes_no_file_outside_it():
    """A hole until judge/defence/folders.py walked by descriptors: Worker.stop removes the worker's folder with
    TemporaryDirectory.cleanup, whose error handler on Python 3.11.7 (CVE-2023-6597) chmods a path it could not
    unlink to 0700 following symlinks: a link in a folder the solution made read-only turns any file of the
    judge's (non-root) user to mode 0700."""
    import shutil
    import subprocess
    import tempfile

    setpriv, python = shutil.which("setpriv"), "/usr/bin/python3"
    if os.geteuid() != 0 or setpriv is None or not os.access(python, os.X_OK):
        pytest.skip("needs root, setpriv and a system python3 to run the judge's cleanup as another user")
    base = tempfile.mkdtemp(prefix="judge-redteam-", dir="/tmp")
    stdlib = os.path.join(base, "stdlib")
    os.mkdir(stdlib)
    shutil.copy(tempfile.__file__, stdlib)  # what the judge runs (3.11.7 here), readable by the other user
    for path in (base, stdlib, os.path.join(stdlib, "tempfile.py")):
        os.chown(path, 65534, 65534)
    try:
        done = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", _AS_USER,
                               base, str(HOSTILE / "symlink_cleanup.py"), stdlib],
                              env={"PYTHONPATH": str(ROOT), "HOME": base, "PYTHONDONTWRITEBYTECODE": "1",
                                   "PATH": os.environ.get("PATH", "")},
                              capture_output=True, text=True, timeout=60, cwd=base)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split()[-1] == "0o400", f"the user's read-only file is now mode {done.stdout.split()[-1]}"
    finally:
        _remove(base)


# -- 6: without namespaces, a helper made with clone(CLONE_PARENT) is the judge's child -----------------------

def test_without_namespaces_a_sibling_made_with_clone_parent_is_refused(monkeypatch):
    """Without namespaces (JUDGE_NAMESPACES=0, the documented fallback) seccomp allowed clone(CLONE_PARENT): the
    helper was a sibling of the worker, the judge's own child, which tree.left_running, the freeze and
    limits.family (all below the worker's root) never see, and the subreaper adopts orphans only (accepted, 11 of
    11, with a 1 GiB helper running).  Now seccomp refuses the flag: no process of the solution's beside the worker."""
    from judge.defence import tree

    monkeypatch.setenv("JUDGE_NAMESPACES", "0")
    before = set(tree.children(os.getpid()))
    worker = started_worker("clone_parent_helper.py")
    try:
        assert worker is not None
        assert "off" in worker.protections["namespaces"], worker.protections
        mine = set(tree.children(os.getpid())) - before
        assert mine == {worker.process.pid}, f"the judge's children now: {sorted(mine)} (the worker is one)"
    finally:
        if worker is not None:
            worker.stop()


# -- 7: an internal error the solution chose, naming a module that exists nowhere -----------------------------

def test_a_claimed_broken_environment_naming_an_unknown_module_is_the_solutions_failure():
    """Worker._raise_if_broken_environment believed a worker's 'environment' exit (status 78) when the module it
    named failed to import in a fresh Python: any name that exists nowhere does, so the solution turned its own
    failure into the judge's (exit 3) and the message told the grader to 'pip install' the name it chose.  Now a
    claim is believed only for the judge's own modules (environment.CLAIMABLE_MODULES)."""
    from judge.base.environment import JudgeEnvironmentError

    try:
        result = judge("forged_environment_any_module.py")
    except JudgeEnvironmentError as exc:
        pytest.fail(f"the solution made the judge blame its installation: {exc}")
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "pip install judge_runtime_support" not in result.message


# -- 8 (a defence holding): replies forged from inside solve() ------------------------------------------------

@pytest.mark.parametrize("mode, verdict", [("ahead", Verdict.WRONG_ANSWER), ("partial", Verdict.TIME_LIMIT_EXCEEDED)])
def test_a_reply_forged_from_inside_solve_gets_no_call_accepted_on_poison(mode, verdict):
    """A "done" sent before the work (then the worker's own reply too, stale for the next request): the judge freezes
    the process mid-work and reads poison, then the stale solve's stores (a store outside); half a header: the
    deadline.  (Also seen, slower: a 2**40-byte header is a malformed reply; 100 000 "compile start" progress
    messages stop at the compile allowance.)"""
    result = judge("forged_replies.py", worker_env={"JUDGE_TEST_MODE": mode}, timeout=2.0, compile_timeout=5.0)
    assert result.verdict == verdict, (result.verdict, result.message)
    first = result.tests[0]
    assert first.verdict == verdict, (first.verdict, first.message)


# -- 9: racing the freeze from inside the worker --------------------------------------------------------------

def test_a_worker_that_keeps_continuing_itself_is_never_read_running():
    """A thread sending SIGCONT to its own process in a loop cancels the judge's SIGSTOP: the judge never sees every
    thread stopped, and refuses the worker instead of reading it running (a runtime_error, 2 s later)."""
    result = judge("freeze_race.py", worker_env={"JUDGE_TEST_MODE": "sigcont"})
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "could not be stopped" in result.message, result.message


def test_the_worker_is_frozen_before_the_judge_reads_its_reply():
    """Worker._receive froze the worker only after protocol.receive had read, parsed and cleaned the whole reply: a
    reply padded to 8 MB kept the judge busy while a thread of the worker's wrote the answer solve() never wrote
    (the 'done' first, the work after it: every call accepted).  Now the worker is frozen as soon as a reply's first
    bytes arrive, and a call's reply still being written then is malformed (none is longer than a pipe holds)."""
    result = judge("freeze_race.py", worker_env={"JUDGE_TEST_MODE": "late_padded"})
    assert result.verdict == Verdict.RUNTIME_ERROR, (result.verdict, result.message)
    assert "still being written" in result.message, result.message


# -- 10 (a defence holding): the shared memory handled from the worker's side --------------------------------

@pytest.mark.parametrize("mode, verdict, words", [
    ("punch", Verdict.RUNTIME_ERROR, "wrote outside `output`"),  # a hole punched: zeros read, no fault
    ("input", Verdict.WRONG_ANSWER, "input 'input' was modified"),  # the file mapped again, the input rewritten
    ("shrink", Verdict.ACCEPTED, ""),  # ftruncate(0): EPERM (F_SEAL_SHRINK); the judge's mapping never faults
    ("seal", Verdict.ACCEPTED, ""),  # F_SEAL_WRITE / FUTURE_WRITE: EPERM (F_SEAL_SEAL)
])
def test_the_shared_memory_handled_from_the_workers_side(mode, verdict, words):
    result = judge("shared_memory_tricks.py", worker_env={"JUDGE_TEST_MODE": mode})
    assert result.verdict == verdict, (result.verdict, result.message)
    assert words in result.message, result.message


# -- honest tools the harness must not refuse ---------------------------------------------------------------

def test_threads_a_pool_and_a_child_that_end_before_solve_returns_are_accepted():
    result = judge("honest_threads.py")
    assert result.verdict == Verdict.ACCEPTED, (result.verdict, result.message)
