"""``python -m judge.defence.confined_exec``: run one command confined as a worker is.

The judge builds a CUDA C++ solution with nvcc before the solution's worker
starts (judge/worker/cuda_build.py), but the compiler reads what the solution
names (``#include "/any/file"``) and writes where it is told: each step runs
in this process's place, after it has set its limits (address space, file
size, no core) and the sandbox's policy (Landlock, seccomp: judge/defence/sandbox.py)
on itself, which nvcc and everything it starts inherit through ``execve``.

The job comes on stdin as JSON: ``{"command": [...], "env": {...},
"policy": <a Policy message or null>, "memory_bytes": N, "file_bytes": N}``.
The working folder and the output file are the caller's (``confined_runner``).
"""

from __future__ import annotations

import json
import os
import resource
import sys

from judge.defence import sandbox


def confine(job: dict) -> dict:
    """Limits, then the sandbox; ``{layer: state}`` of the sandbox's layers."""
    for limit, key in ((resource.RLIMIT_AS, "memory_bytes"), (resource.RLIMIT_FSIZE, "file_bytes")):
        if job.get(key):
            resource.setrlimit(limit, (int(job[key]), int(job[key])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if job.get("policy") is None:
        return {}
    return sandbox.apply(sandbox.Policy.from_message(job["policy"]))


def main() -> None:
    job = json.loads(sys.stdin.read())
    states = confine(job)
    if job.get("policy") is not None and not any(s.startswith(("on", "partial")) for s in states.values()):
        # Neither layer took (an old kernel, no bindings): build anyway, as a worker runs anyway, and say so.
        sys.stderr.write(f"judge: the build runs without its sandbox ({states})\n")
    command = [str(part) for part in job["command"]]
    os.execve(command[0], command, {str(k): str(v) for k, v in job["env"].items()})


if __name__ == "__main__":
    main()
