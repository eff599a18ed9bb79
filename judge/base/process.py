"""What a process forked for another one takes over from it: umask, limits, affinity, priority, cgroup."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cgroup", "process_context"]


def cgroup() -> str:
    """This process's control group (Linux; '' elsewhere): a Slurm job's or a container's limits."""
    try:
        return Path("/proc/self/cgroup").read_text()
    except OSError:
        return ""


_LIMITS = ("RLIMIT_NOFILE", "RLIMIT_AS", "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_DATA", "RLIMIT_CPU",
           "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_MEMLOCK")


def process_context() -> dict:
    """What a forked process takes over from the one that asked for it (daemon._take_client_context):
    umask, resource limits, CPU affinity and priority, and the control group it must share."""
    import resource

    umask = os.umask(0)
    os.umask(umask)
    limits = {name: list(resource.getrlimit(getattr(resource, name))) for name in _LIMITS if hasattr(resource, name)}
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"umask": umask, "limits": limits, "affinity": affinity,
            "priority": os.getpriority(os.PRIO_PROCESS, 0), "cgroup": cgroup()}
