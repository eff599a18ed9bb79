"""A worker started under one of NVIDIA's tools: Nsight Compute (``judge profile``), and compute-sanitizer
could use the same (``judge run --sanitize``).

Such a tool runs a program and instruments its CUDA calls from inside it (an injection library that
CUDA loads), so the judge starts ``TOOL [options] python -m judge.worker FDS`` instead of the worker
alone.  Everything else stays as for any worker: the same allowed environment, the same descriptors
(the tool's launcher passes them on to the program), and the worker still confines itself before the
solution loads; only the tool's own folder is added to what it may read (its injection libraries load
more of themselves later), and the folder the tool's library locks in (ncu's) to what it may write.  The tool itself is NVIDIA's program, run as the user, outside the sandbox:
it never runs the solution's code, which only ever runs in the confined worker.

``Wrap`` says how: the command's prefix, the folders to read, the files the tool writes.  A worker
forked by the judge server cannot be wrapped: a wrapped worker is always spawned (client.Worker).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

from judge.base.cuda_tools import find_cuda_tool
from judge.defence.switches import NAMESPACES_ENV

__all__ = ["Wrap", "find_tool", "tool_folders", "ncu_wrap", "ncu_lock_folders", "NCU_SECTIONS", "NCU_FLAGS_ENV"]

NSIGHT_COMPUTE_INSTALLS = "/opt/nvidia/nsight-compute/*/ncu"  # Nsight Compute's own installer's folders
NCU_FLAGS_ENV = "JUDGE_NCU_FLAGS"  # more ncu options (e.g. "--set full"), after the judge's
# The sections whose metrics the report reads (judge/timing/kernel_profile.py); the .ncu-rep holds them all.
NCU_SECTIONS = ("SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats", "WarpStateStats")


@dataclass(frozen=True)
class Wrap:
    """How to start the worker under a tool."""

    name: str  # "ncu", "compute-sanitizer"
    argv: tuple[str, ...]  # the tool and its options, up to the program it runs
    readable: tuple[str, ...] = ()  # folders the confined worker must read (the tool's libraries)
    writable: tuple[str, ...] = ()  # what the confined worker must write (ncu's lock folder), each existing
    outputs: tuple[str, ...] = ()  # files the tool writes (ncu's report), outside the sandbox
    env: dict = field(default_factory=dict)  # variables for the tool (added to the worker's)


def find_tool(name: str, environ=None) -> str | None:
    """``name`` (ncu, compute-sanitizer) from $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, and
    for ncu Nsight Compute's own install folders (/opt/nvidia/nsight-compute/<version>, newest first), by
    base/cuda_tools.py's order; its links kept (tool_folders reads the toolkit's from them); None if none."""
    after = sorted(glob.glob(NSIGHT_COMPUTE_INSTALLS), reverse=True) if name == "ncu" else []
    return find_cuda_tool(name, environ, after=after)


def tool_folders(tool: str) -> tuple[str, ...]:
    """The folders a tool's injection libraries live in: the real folder of the tool's program (ncu in
    /opt/nvidia/nsight-compute/<version>/, often reached through a link in the toolkit's bin/), and for a
    program in a toolkit's bin/, the toolkit's own Nsight Compute and compute-sanitizer folders."""
    folders = [os.path.dirname(os.path.realpath(tool))]
    parent = os.path.dirname(os.path.dirname(os.path.abspath(tool)))
    if os.path.basename(os.path.dirname(os.path.abspath(tool))) == "bin":
        folders += sorted(glob.glob(os.path.join(parent, "nsight-compute*")))
        folders += [p for p in (os.path.join(parent, "compute-sanitizer"),) if os.path.isdir(p)]
    if os.path.basename(tool) == "ncu":
        folders += sorted(glob.glob("/opt/nvidia/nsight-compute/*"))
    return tuple(dict.fromkeys(os.path.realpath(f) for f in folders if f not in ("/", "")))


def ncu_lock_folders(environ=None, temps: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Nsight Compute's lock folder, ``<tmp>/nvidia/nsight_compute``, where its library inside the profiled
    program makes and locks its lock files (seen on the H200, ncu 2025.3: ``lock``, then
    ``lock.<the GPU's UUID>``) so that two profiled programs of the machine never measure at once; made
    here if missing, as a tool shared by the machine's users would make it (writable by all with the
    sticky bit, as /tmp is), and $TMPDIR's too in case ncu follows it.  The sandboxed worker may write in
    this folder and nowhere else outside its own: it could leave files there while it is profiled, which
    is the price of ncu's lock.  A folder that is a link (or under one) is never granted."""
    environ = os.environ if environ is None else environ
    found = []
    temps = temps if temps is not None else (environ.get("TMPDIR"), "/tmp")
    for tmp in dict.fromkeys(filter(None, temps)):
        folder = os.path.join(os.path.realpath(tmp), "nvidia", "nsight_compute")
        try:
            for made in (os.path.dirname(folder), folder):
                if not os.path.lexists(made):
                    os.mkdir(made)
                    os.chmod(made, 0o1777)
        except OSError:
            pass  # another user's folder we cannot write in: ncu then says so itself
        if os.path.isdir(folder) and os.path.realpath(folder) == folder:
            found.append(folder)
    return tuple(found)


def ncu_wrap(ncu: str, report: str, extra: list[str] = (), locks: tuple[str, ...] | None = None) -> Wrap:
    """ncu running the worker: only what runs between cudaProfilerStart and cudaProfilerStop is measured
    (the worker opens that range around one solve() call: kernel_trace.py), the judge's own kernels never;
    the clocks as they are (a locked base clock would make the times disagree with ``judge run``'s); the
    caches flushed before each measured pass (ncu's default, as the judge flushes before a timed call)."""
    sections = [part for name in NCU_SECTIONS for part in ("--section", name)]
    argv = (ncu, "--target-processes", "application-only", "--profile-from-start", "off", "--clock-control",
            "none", *sections, "--export", report, "--force-overwrite", *extra)
    # The worker's own namespaces (judge/defence/namespaces.py: no network, no shared IPC, its own /dev/shm)
    # would cut ncu's library off from ncu, which it reaches once CUDA starts, after the worker entered them:
    # under ncu the worker keeps Landlock, seccomp and its dropped capabilities, not the namespaces.
    return Wrap("ncu", argv, tool_folders(ncu), ncu_lock_folders() if locks is None else locks, (report,),
                {NAMESPACES_ENV: "0"})
