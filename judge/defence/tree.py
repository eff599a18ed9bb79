"""The judge's view of a worker's processes, from /proc (Linux): what the kernel says, never the worker.

A worker runs as the first process of a PID namespace of its own, under a supervisor the judge
started (judge/defence/namespaces.py); without namespaces it is the process the judge started.
Either way ``worker_root`` names it, and everything the solution started is below it.  The judge
uses this to read a reply only while nothing of the solution can write it (``freeze``: the worker
stopped, no other process left), to name the processes a call left running, to count the memory
of the whole tree (judge/defence/limits.py), and to report which of the worker's protections held
(``kernel_view``: namespaces, capabilities, no_new_privs, seccomp).
"""

from __future__ import annotations

import os
import signal
import time

__all__ = ["children", "descendants", "stop_tree", "kill_all", "wait_ended", "worker_root", "left_running", "freeze",
           "thaw", "kernel_view", "NAMESPACES"]

NAMESPACES = ("user", "pid", "mnt", "ipc", "uts", "net", "cgroup")


def children(pid: int) -> list[int]:
    """The children of ``pid`` (of all its threads), zombies included."""
    found = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            return _children_by_scan(pid)  # a kernel without CONFIG_PROC_CHILDREN
        except (OSError, ValueError):
            continue
    return found


def _children_by_scan(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields and fields[1] == str(pid):
                found.append(int(entry))
    return found


def descendants(pid: int, most: int = 4096) -> list[int]:
    """Every process below ``pid``, at most ``most`` of them (breadth first)."""
    seen, pending, order = {pid}, [pid], []
    while pending and len(order) < most:
        for child in children(pending.pop(0)):
            if child not in seen:
                seen.add(child)
                order.append(child)
                pending.append(child)
    return order[:most]


def stop_tree(root: int, most: int = 4096) -> list[int]:
    """Stop ``root`` and every process below it (SIGSTOP: a stopped process forks no more), looking again until
    no new one appears; the processes stopped, ``root`` first.  Killing them all then leaves nothing, whatever
    process groups they made: a kill of the worker's group alone missed a child in a group of its own (ninja
    starts every compiler in one; a solution may make one too)."""
    stopped: set[int] = set()
    order: list[int] = []
    for _ in range(64):
        found = [pid for pid in (root, *descendants(root, most)) if pid not in stopped]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
            stopped.add(pid)
            order.append(pid)
    return order


def kill_all(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` (those already gone are skipped)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def wait_ended(pids: list[int], timeout: float) -> list[int]:
    """Wait up to ``timeout`` seconds until each of ``pids`` has ended (gone, or a zombie: its exit is
    done); the ones still running then."""
    deadline = time.monotonic() + timeout
    while True:
        running = [pid for pid in pids if _running(pid)]
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.002)


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and has not ended (a zombie's exit is done): any of its threads.  A process whose
    main thread ended alone (SYS_exit, not exit_group) reads "Z" in its own stat while another thread runs on,
    and was counted as ended (the red team of issue 46: a helper left running, its memory uncounted)."""
    fields = _stat(pid)
    if fields is None:
        return False
    if fields[0] not in ("Z", "X"):
        return True
    return any(_live_task(pid, tid) for tid in _tasks(pid))


def _tasks(pid: int) -> list[int]:
    try:
        return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


def _live_task(pid: int, tid: int) -> bool:
    fields = _stat(pid, tid)
    return fields is not None and fields[0] not in ("Z", "X")


def _stat(pid: int, tid: int | None = None) -> list[str] | None:
    """/proc/<pid>/stat's fields after the name: [state, ppid, ...]; None when it is gone."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().decode("utf-8", "replace").strip()[:32]
    except OSError:
        return "?"


def _namespace(pid: int | str, kind: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def worker_root(pid: int) -> int:
    """The process the worker runs in: the first process of its PID namespace when ``pid`` is the
    supervisor of one (its one child lives in another PID namespace), else ``pid`` itself."""
    kids = children(pid)
    if len(kids) == 1 and _namespace(kids[0], "pid") not in (None, _namespace(pid, "pid")):
        return kids[0]
    return pid


def left_running(root: int, most: int = 64) -> list[str]:
    """The live processes below ``root`` (zombies left out), as "pid name" (at most ``most``)."""
    live = []
    for pid in descendants(root, most=4096):
        if _running(pid):
            live.append(f"{pid} {_name(pid)}")
            if len(live) >= most:
                break
    return live


def freeze(root: int, timeout: float = 2.0) -> bool:
    """Stop the worker (SIGSTOP: every thread) and wait until each of its threads is stopped; whether
    they all were in ``timeout`` seconds.  A stopped process writes nothing (the shared memory included)."""
    try:
        os.kill(root, signal.SIGSTOP)
    except OSError:
        return False
    started = time.monotonic()
    while True:
        if _all_stopped(root):
            return True
        waited = time.monotonic() - started
        if waited > timeout:
            return False
        if waited < 2e-3:
            os.sched_yield()  # a thread asleep in a read stops at once: no sleep's granularity for it
        else:
            time.sleep(min(waited / 4, 5e-3))


def _all_stopped(pid: int) -> bool:
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True  # gone: it writes nothing either
    for tid in tids:
        fields = _stat(pid, int(tid))
        if fields is not None and fields[0] not in ("T", "t", "Z", "X"):
            return False
    return True


def thaw(root: int) -> None:
    try:
        os.kill(root, signal.SIGCONT)
    except OSError:
        pass


def kernel_view(root: int) -> dict[str, str]:
    """What the kernel says of the worker's process: its namespaces (those not the judge's),
    capabilities, no_new_privs and seccomp mode (``{mechanism: state}``; empty when it is gone)."""
    try:
        with open(f"/proc/{root}/status", "rb") as f:
            status = dict(line.decode("ascii", "replace").split(":", 1) for line in f if b":" in line)
    except OSError:
        return {}
    status = {key: value.strip() for key, value in status.items()}
    own = [kind for kind in NAMESPACES if _namespace(root, kind) not in (None, _namespace("self", kind))]
    view = {"namespaces": f"on ({', '.join(own)})" if "pid" in own and "user" in own else
            ("off" + (f": only {', '.join(own)}" if own else ""))}
    caps = {name: int(status.get(name, "0") or "0", 16) for name in ("CapEff", "CapPrm", "CapInh", "CapAmb", "CapBnd")}
    held = caps["CapEff"] | caps["CapPrm"] | caps["CapInh"] | caps["CapAmb"]
    if held:
        view["capabilities"] = f"kept: effective {caps['CapEff']:#x}, permitted {caps['CapPrm']:#x}"
    else:
        view["capabilities"] = "dropped" + (" (bounding set empty)" if caps["CapBnd"] == 0 else
                                            " (bounding set kept; no_new_privs keeps it unused)")
    view["no_new_privs"] = "on" if status.get("NoNewPrivs") == "1" else "off"
    view["seccomp_mode"] = {"0": "off", "1": "strict", "2": "filter"}.get(status.get("Seccomp", ""), "unknown")
    view["read_only"] = "on" if _root_read_only(root) else "off"
    return view


def _root_read_only(pid: int) -> bool:
    """Whether the mount at / of ``pid``'s mount namespace is read-only (the last one mounted there)."""
    options = None
    try:
        with open(f"/proc/{pid}/mountinfo", "rb") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 5 and fields[4] == b"/":
                    options = fields[5].split(b",")
    except OSError:
        return False
    return options is not None and b"ro" in options
