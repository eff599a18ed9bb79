# Hostile (issue 38's red team): renices and pins its judge, the process that started it (or the judge server
# every later worker is forked from): it needs only the same user.  JUDGE_TEST_TARGET names the judge's pid as
# the judge knows it; getppid() is tried too.  Now the judge does not exist in the worker's PID namespace,
# and without one seccomp keeps these calls to the worker itself.
import os


def solve(input, output, rows, cols):
    output.copy_(input.T)
    found = []
    for pid in {os.getppid(), int(os.environ.get("JUDGE_TEST_TARGET", "0"))} - {0, os.getpid()}:
        for name, call in (("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
                           ("sched_setaffinity", lambda: os.sched_setaffinity(pid, {0})),
                           ("prlimit", lambda: __import__("resource").prlimit(pid, __import__("resource").RLIMIT_NOFILE, (64, 64)))):
            try:
                call()
                found.append(f"{name}({pid}): allowed")
            except OSError as exc:
                found.append(f"{name}({pid}): {exc.strerror}")
    raise RuntimeError("; ".join(found) or "no judge to reach")
