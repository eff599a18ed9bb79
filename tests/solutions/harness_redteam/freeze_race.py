# Red team of issue 46, idea 9: racing the freeze from inside the worker, JUDGE_TEST_MODE choosing how:
#   sigcont - a thread sends SIGCONT to its own process in a loop: a SIGCONT generated while the judge's SIGSTOP is
#             pending cancels it, so the group stop may never complete (or complete and be undone?);
#   vfork   - a thread spawns /bin/true in a loop (posix_spawn: vfork), so a thread is usually inside vfork, whose
#             wait does not stop for SIGSTOP, and a child usually exists, when the reply is sent;
#   late    - solve() returns at once without writing; its answer is written by a thread as soon as the worker
#             flushes its output after the reply (sys.stdout replaced): inside the window between the reply and the
#             judge's SIGSTOP.  Accepted if the write wins the race.
#   late_padded - the same, every reply padded with 8 MB of JSON string, which the judge reads, parses and cleans
#             before it sends SIGSTOP: the window made as long as the judge takes to read the reply.
# Seen twice each: sigcont: runtime_error, "could not be stopped after loading the solution" (the judge never reads a
# running worker: a defence holding); vfork: runtime_error, "solve() left a process running (pid N true)" after a
# few cases; late: most calls accepted (8 and 6 of 11), the rest "never written": the window between the reply and
# the SIGSTOP is real but short; late_padded: ACCEPTED, all 11 tests, twice, with solve() writing nothing (the
# freeze comes only after the judge has read and parsed the 8 MB reply).  No wrong answer accepted, but the
# "done"-then-work order the harness means to forbid works: a hole in the freeze's promise (timing only).
import os
import subprocess
import sys
import threading
import time

_mode = os.environ.get("JUDGE_TEST_MODE", "sigcont")
_go = threading.Event()
_job = []


def _sigcont():
    while True:
        os.kill(os.getpid(), 18)  # SIGCONT


def _vfork():
    while True:
        subprocess.run(["/bin/true"], close_fds=True)


def _late():
    while True:
        _go.wait()
        _go.clear()
        if _job:
            input, output = _job.pop()
            output.copy_(input.T)


class _Signalling:
    def __init__(self, real):
        self.real = real

    def write(self, text):
        return self.real.write(text)

    def flush(self):
        self.real.flush()
        _go.set()  # the reply has just been sent

    def __getattr__(self, name):
        return getattr(self.real, name)


if _mode == "sigcont":
    threading.Thread(target=_sigcont, daemon=True).start()
elif _mode == "vfork":
    threading.Thread(target=_vfork, daemon=True).start()
elif _mode in ("late", "late_padded"):
    sys.stdout = _Signalling(sys.stdout)
    threading.Thread(target=_late, daemon=True).start()
if _mode == "late_padded":  # every reply 8 MB longer: the judge parses it (and cleans its strings) before it freezes
    from judge.worker import protocol

    _send = protocol.send

    def _padded(fd, header, blobs=(), deadline=None):
        if header.get("op") == "result":
            header = dict(header, pad="x" * (8 << 20))
            _go.set()  # the judge starts reading while the rest is still being written
        return _send(fd, header, blobs, deadline)

    protocol.send = _padded


def solve(input, output, rows, cols):
    if _mode.startswith("late"):
        _job.append((input, output))
    else:
        output.copy_(input.T)
