"""Resource limits of the worker process (docs/security.md).

- Captured output: the judge empties the stdout/stderr capture file before every
  request (client.Worker.new_output), and the watchdog below kills the worker when
  the file grows past ``output_bytes``: it caps what one call prints ("wrote more
  than N MiB in one call").
- Any one file: ``RLIMIT_FSIZE`` caps every file the worker and what it starts
  write at ``file_bytes`` (a build's object files and inductor's precompiled
  header are larger than a call's printed output: g++ died at 64 MiB); writing
  past it fails (EFBIG: Python ignores SIGXFSZ).
- Host memory: a watchdog thread in the judge reads the resident memory of
  every process of the worker (its PID namespace's, judge/defence/tree.py) from
  /proc every 50 ms and kills them past the limit.  (``RLIMIT_AS``
  cannot be used: CUDA reserves far more virtual address space than memory.)
- GPU memory: the worker caps torch's allocator with
  ``torch.cuda.set_per_process_memory_fraction`` before importing the
  solution, so an allocation storm is a clear out-of-memory error, not a
  judge without memory for its reference.
- Disk: the same watchdog sums every folder the worker may write (its scratch
  folder, its temporary folder inside it, the Triton cache its kernels compile
  into) every second and kills it past ``scratch_bytes``; ``RLIMIT_FSIZE``
  alone bounds each file, not how many.
- Processes: more than ``MAX_PROCESSES`` below the worker is a fork storm: killed.
- No core dumps.

Linux-only parts degrade to no-ops elsewhere.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

__all__ = ["Limits", "apply_rlimits", "MemoryWatchdog"]


@dataclass(frozen=True)
class Limits:
    output_bytes: int = 64 * 1024**2  # what one call may print (the capture file, watched by MemoryWatchdog)
    file_bytes: int = 1024**3  # any one file the worker or a build it starts writes (RLIMIT_FSIZE)
    host_memory_bytes: int | None = None  # None: half the machine's RAM
    gpu_memory_fraction: float = 0.75
    scratch_bytes: int = 2 * 1024**3  # the worker's folder: files it writes, its private Triton cache (grade)

    def host_memory(self) -> int:
        if self.host_memory_bytes is not None:
            return self.host_memory_bytes
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
        except (ValueError, OSError, AttributeError):
            return 16 * 1024**3


def apply_rlimits(file_bytes: int) -> None:
    """Set the worker's own rlimits, before it imports the solution.

    Done by the worker itself rather than in a ``preexec_fn``, which is not
    safe when the judge spawns workers from several threads (``grade --gpus``).
    """
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass  # not on this platform: a file is then bounded by the disk watchdog alone (docs/security.md)


def resident_bytes(pid: int) -> int | None:
    """VmRSS of ``pid`` from /proc (None where /proc is missing or the process is gone).  A process whose main
    thread ended alone has no VmRSS in its own status while its other threads hold its memory: then a live
    thread's (the red team of issue 46 held 1.2 GB so, with 298 MiB counted)."""
    own = _vm_rss(f"/proc/{pid}/status")
    if own is not None:
        return own
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        found = _vm_rss(f"/proc/{pid}/task/{tid}/status")
        if found is not None:
            return found
    return None


def _vm_rss(path: str) -> int | None:
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


MAX_PROCESSES = 256  # a worker's processes together (a kernel solution needs one; a fork storm is stopped)


def family_resident_bytes(pid: int, most: int = MAX_PROCESSES) -> int | None:
    """VmRSS of ``pid`` and of its descendants (at most ``most`` of them: ``family``).  None once ``pid`` is gone."""
    found = family(pid, most)
    return None if found is None else found[0]


def family(pid: int, most: int = MAX_PROCESSES) -> tuple[int, int] | None:
    """(VmRSS of ``pid`` and its descendants, how many descendants), counting at most ``most`` + 1 of them:
    a child the solution forks (or a compiler it starts) holds memory the worker's own VmRSS does not show
    (the red team's compiler held 1.6 GB; a double-forked grandchild 12.2 GiB against an 11.8 GiB limit).
    In a PID namespace every process of the worker is below its first one (judge/defence/tree.py).
    None once ``pid`` is gone."""
    from judge.defence.tree import descendants

    own = resident_bytes(pid)
    if own is None:
        return None
    below = descendants(pid, most=most + 1)
    return own + sum(resident_bytes(child) or 0 for child in below), len(below)


def memory_file_bytes(pids, skip: set | None = None) -> int:
    """Bytes of the distinct memory files (memfds) the processes ``pids`` hold open, by their allocated blocks,
    less those in ``skip`` ((st_dev, st_ino): the judge's own shared memory).  Pages written into a memfd with
    write(2) and never mapped are in no process's VmRSS: 1 GiB of them passed a 600 MiB limit (the red team of
    issue 46)."""
    seen, total = set(skip or ()), 0
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                info = os.stat(path)
            except OSError:
                continue
            key = (info.st_dev, info.st_ino)
            if key not in seen:
                seen.add(key)
                total += info.st_blocks * 512
    return total


def folder_bytes(folder, stop_at: int) -> int:
    """Bytes the files under ``folder`` (a path, or several) take on disk (allocated blocks), counted up to
    just past ``stop_at``, at any depth (folders.tree_bytes: below PATH_MAX a path-based scan counted nothing)."""
    from judge.defence.folders import tree_bytes

    total = 0
    for path in [folder] if isinstance(folder, str) else list(folder):
        if total > stop_at:
            break
        total += tree_bytes(path, stop_at - total)
    return total


class MemoryWatchdog(threading.Thread):
    """Kills the worker's process group when its resident memory (the worker's and its descendants') passes
    the limit, when it has more than MAX_PROCESSES processes, when its output capture file (``output_fd``, the
    judge's own descriptor of it) passes ``output_limit``, or (every second) when the files in the folders
    it may write (its scratch folder, the Triton cache its kernels compile into) pass theirs.

    ``root`` is the process whose tree is counted: the one spawned at first, then the worker's own once the
    judge knows it (a supervisor outside the worker's namespaces runs no code of the solution's and is
    not counted: forked from the judge server, it shares the server's memory)."""

    SCRATCH_EVERY = 20  # polls
    FILES_EVERY = 5  # polls: the memory files (a look at each process's descriptors)

    def __init__(self, pid: int, limit: int, kill, interval: float = 0.05, scratch=None, scratch_limit: int = 0,
                 output_fd: int | None = None, output_limit: int = 0, shared_fd: int | None = None):
        super().__init__(daemon=True, name=f"judge-memory-watchdog-{pid}")
        self.pid, self.root, self.limit, self.kill, self.interval = pid, pid, limit, kill, interval
        self.output_fd, self.output_limit = output_fd, output_limit
        self.tripped_output: int | None = None
        self.folders = [scratch] if isinstance(scratch, str) else [f for f in (scratch or ()) if f]
        self.scratch_limit = scratch_limit
        self.tripped: int | None = None
        self.tripped_disk: int | None = None
        self.tripped_processes: int | None = None
        self.shared = set()  # the judge's shared memory's (st_dev, st_ino): the judge's pages, not the worker's
        if shared_fd is not None:
            info = os.fstat(shared_fd)
            self.shared.add((info.st_dev, info.st_ino))
        self.in_files = 0  # bytes in the worker's memory files, as last counted (every FILES_EVERY polls)
        self._stop_event = threading.Event()

    @property
    def scratch(self) -> str | None:
        return self.folders[0] if self.folders else None

    def run(self) -> None:
        polls = 0
        while not self._stop_event.wait(self.interval):
            found = family(self.root)
            if found is None and self.root != self.pid:
                found = family(self.pid)
            if found is None:
                return
            used, processes = found
            if processes > MAX_PROCESSES:
                self.tripped_processes = processes
                self.kill()
                return
            polls += 1
            if polls % self.FILES_EVERY == 1:
                self.in_files = self.memory_in_files()
            if used + self.in_files > self.limit:
                self.tripped = used + self.in_files
                self.kill()
                return
            printed = self.printed()
            if printed > self.output_limit > 0:
                self.tripped_output = printed
                self.kill()
                return
            if self.folders and polls % self.SCRATCH_EVERY == 0:
                written = folder_bytes(self.folders, self.scratch_limit)
                if written > self.scratch_limit:
                    self.tripped_disk = written
                    self.kill()
                    return

    def memory_in_files(self) -> int:
        """The worker's memory files' bytes (``memory_file_bytes`` of its processes)."""
        from judge.defence.tree import descendants

        return memory_file_bytes([self.root, *descendants(self.root, most=MAX_PROCESSES + 1)], self.shared)

    def printed(self) -> int:
        """Bytes in the output capture file now (0 without one)."""
        if self.output_fd is None:
            return 0
        try:
            return os.fstat(self.output_fd).st_size
        except OSError:
            return 0

    def stop(self) -> None:
        self._stop_event.set()
