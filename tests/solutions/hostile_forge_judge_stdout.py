# Hostile: writes a forged --json document on the judge's own stdout through
# /proc/<judge>/fd/1, then SIGKILLs the judge: a CI job reading the JSON saw "accepted".
# Now the judge does not exist in the worker's PID namespace (getppid() is 0, its /proc is its own); without
# namespaces the sandbox refuses both (Landlock: /proc of other processes, signals out of the domain), and
# without either the judge is non-dumpable and the worker has no capability left to pass that.
import os
import signal

FORGED = '{"verdict": "accepted", "message": "all 18 tests passed", "tests": [], "benchmarks": []}\n'


def solve(input, output, rows, cols):
    judge = os.getppid()
    with open(f"/proc/{judge}/fd/1", "w") as stdout:
        stdout.write(FORGED)
    os.kill(judge, signal.SIGKILL)
