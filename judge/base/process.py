"""What a process forked for another one takes over from it: umask, limits, affinity, priority, cgroup;
and whether a process is still the one it was (a judge server watching what started it)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cgroup", "process_context", "start_time"]


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


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (Linux: clock ticks after boot; elsewhere 0 for any live process),
    or None if there is no such process or it has ended (a zombie). The pair (pid, start time) names
    one process: a pid the system gave to a new process has another start time."""
    if not Path("/proc/self/stat").exists():  # pragma: no cover - not Linux: existence is all there is to know
        return _exists(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the name, in parentheses, may hold spaces
    return None if fields[0] in ("Z", "X") else int(fields[19])


def _exists(pid: int) -> int | None:  # pragma: no cover - not Linux
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return 0
    return 0
