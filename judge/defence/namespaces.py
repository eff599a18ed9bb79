"""The worker's namespaces and capabilities (Linux): a worker that owns nothing outside itself.

Every worker, spawned by the judge or forked by the judge server, calls ``enter`` first, while it
is one thread and before the solution exists: it unshares a user namespace that maps only its own
uid and gid (so it works as root and as a normal user alike, without privilege), and with it new
PID, mount, IPC, UTS, network and cgroup namespaces, then forks.  The child goes on as the worker:
the first process of its PID namespace, with a ``/proc`` of its own in which the judge does not
exist (``getppid()`` is 0: it cannot signal, trace, renice or read the judge, or the server every
later worker is forked from), no network (not even the abstract Unix sockets of other processes),
no System V or POSIX IPC shared with anyone, and a ``/dev/shm`` of its own (64 MiB).  When it ends,
the kernel kills every process left in its namespace: no orphan and no late writer outlives it.
The parent stays outside as a supervisor that holds nothing and exits as the worker did, so the
judge still watches, signals and waits for the process it started (``supervise``).

``seal`` is the last step before the solution loads, whatever the sandbox's other layers
(JUDGE_SANDBOX=0 included): every mount becomes read-only but the worker's own folders (the
judge's code, its caches, the Python installation and the user's files with them: a run never
changes what a later run loads), the judge server's socket folder an empty one, then every
capability goes (effective, permitted, inheritable, ambient and the bounding
set, with securebits locked so that an ``execve`` as uid 0 gets none back) and no_new_privs is set.
Root inside has no capability over anything.  Where namespaces are not available (an old kernel,
a container that forbids them, ``JUDGE_NAMESPACES=0``), the worker stays the one process, adopts
its orphans (a child subreaper) and ``seal`` still drops the capabilities and sets no_new_privs;
seccomp then holds to its allow-list with the rules on other processes (judge/defence/sandbox.py).

Only the kernel's word counts in a report: the judge reads the namespaces, capabilities,
no_new_privs and seccomp mode of the worker's process from ``/proc`` (judge/defence/tree.py).
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys

from judge.defence.switches import NAMESPACES_ENV, Switches, switches

__all__ = ["enter", "seal", "supervise", "STATE", "FLAGS"]


CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
FLAGS = {"user": CLONE_NEWUSER, "pid": CLONE_NEWPID, "mount": CLONE_NEWNS, "ipc": CLONE_NEWIPC, "uts": CLONE_NEWUTS,
         "net": CLONE_NEWNET, "cgroup": CLONE_NEWCGROUP}

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_PRIVATE = 1024, 2048, 1 << 21, 1 << 18
# statvfs's flags that a remount must keep (a mount of a user namespace may not drop them: EPERM)
_KEPT = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
         (getattr(os, "ST_NOATIME", 1024), MS_NOATIME), (getattr(os, "ST_NODIRATIME", 2048), MS_NODIRATIME),
         (getattr(os, "ST_RELATIME", 4096), MS_RELATIME))

PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 24, 28, 38
PR_SET_CHILD_SUBREAPER, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 36, 47, 4
# NOROOT, NO_SETUID_FIXUP, KEEP_CAPS (off), NO_CAP_AMBIENT_RAISE: each with its lock
SECUREBITS_LOCKED = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
SHM_BYTES = 64 * 1024**2  # the worker's own /dev/shm

STATE = "off: the worker did not enter its namespaces"  # what enter() did, for seal's report


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _fail(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


def enter() -> str:
    """Move this (single-threaded) worker into namespaces of its own and fork: returns in the child,
    which goes on as the worker; the parent never returns (``supervise``).  Returns what held,
    "on (...)" or "off: why".  Never raises: a kernel that refuses leaves the worker as it was."""
    global STATE
    if not sys.platform.startswith("linux"):
        STATE = "off: not Linux"
        return STATE
    if not switches().namespaces:
        STATE = Switches.off(NAMESPACES_ENV)
        _adopt_orphans()
        return STATE
    try:
        libc = _libc()
        uid, gid = os.geteuid(), os.getegid()
        if libc.unshare(sum(FLAGS.values())) != 0:
            raise _fail("unshare")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")  # only itself: nobody else's files become its own
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as exc:
        STATE = f"off: {exc.strerror or exc} (user namespaces disallowed here?)"
        _adopt_orphans()
        return STATE
    pid = os.fork()
    if pid != 0:
        supervise(pid)  # never returns
    STATE = "on (" + ", ".join(FLAGS) + "; " + _first_process(libc) + ")"
    return STATE


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _adopt_orphans() -> None:
    """Without a PID namespace: this process adopts its descendants' orphans (a double fork stays in
    its tree, where the judge finds it and the worker's end kills it)."""
    try:
        _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _first_process(libc) -> str:
    """In the namespace's first process: die with the supervisor, a private mount tree, its own /proc
    and /dev/shm, small IPC limits.  Returns what it says of /proc."""
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    proc = "a /proc of its own"
    try:
        _mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as exc:  # a container's masked /proc: the host's stays (Landlock keeps it from others' entries)
        proc = f"the host's /proc ({exc.strerror})"
    if os.path.isdir("/dev/shm"):
        try:
            _mount(libc, "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   f"size={SHM_BYTES},mode=1777")
        except OSError:
            pass
    limits = [("kernel/shmmni", 64), ("kernel/shmall", SHM_BYTES // 4096), ("kernel/msgmni", 16)]
    # No namespace below its own (seccomp denies them too; these hold where the sandbox is off): a nested
    # user namespace would give the solution capabilities again, over a copy of its own mounts.
    limits += [(f"user/max_{kind}_namespaces", 0) for kind in ("user", "pid", "mnt", "net", "ipc", "uts", "cgroup",
                                                              "time")]
    for name, value in limits:
        try:
            _write(f"/proc/sys/{name}", str(value))
        except OSError:
            pass
    _new_session_keyring(libc)
    return proc


SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1


def _new_session_keyring(libc) -> None:
    """An empty session keyring of its own: it inherited the judge's, whose keys it could read (the red team
    of issue 38, with the sandbox off: seccomp denies keyctl)."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is not None:
        libc.syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None)


def _mount(libc, source, target: str, fstype, flags: int, data: str | None = None) -> None:
    encode = (lambda s: None if s is None else s.encode())
    if libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)) != 0:
        raise _fail(f"mount {target}")


def supervise(child: int) -> None:
    """The parent outside the namespaces: holds no descriptor of the worker's, waits for it and ends
    as it ended (the same exit status, or killed by the same signal).  Never returns."""
    try:
        os.closerange(3, 1 << 16)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        while True:
            try:
                _, status = os.waitpid(child, 0)
                break
            except InterruptedError:
                continue
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        os._exit(code & 0xFF)
    except BaseException:  # noqa: BLE001 - the supervisor must never run the worker's code
        os._exit(70)


def seal(writable: list[str], hidden: list[str]) -> dict[str, str]:
    """The last step before the solution loads: every mount becomes read-only but the ``writable``
    folders (its scratch folder, the Triton cache its kernels compile into), its /dev/shm and the
    device files (which a read-only mount leaves writable); ``hidden`` folders (the judge server's
    sockets) become empty; then every capability goes and no_new_privs is set.  Returns
    ``{mechanism: state}`` as this process saw it (the judge reports the kernel's word)."""
    states = {"namespaces": STATE}
    if STATE.startswith("on"):
        states["read_only"] = _read_only_mounts(writable, hidden)
    else:
        states["read_only"] = "off: no mount namespace"
    states["capabilities"] = drop_capabilities()
    try:
        if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("prctl")
        states["no_new_privs"] = "on"
    except (OSError, AttributeError) as exc:
        states["no_new_privs"] = f"off: {exc}"
    return states


def _read_only_mounts(writable: list[str], hidden: list[str]) -> str:
    """Everything read-only (the judge's code, its caches, the Python installation, the user's files: a
    run, sandboxed or not, never changes what a later run loads), then its own folders writable again."""
    libc = _libc()
    failed = []
    for path in hidden:
        if os.path.isdir(path):
            try:
                _mount(libc, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0")
            except OSError as exc:
                failed.append(f"{path} not hidden ({exc.strerror})")
    writable = sorted({os.path.realpath(p) for p in writable if p and os.path.isdir(p)}, key=len)
    for path in writable:
        try:
            _mount(libc, path, path, None, MS_BIND | MS_REC)
        except OSError as exc:
            failed.append(f"{path} not writable ({exc.strerror})")
    kept = _all_read_only(libc)
    for path in [*writable, "/dev/shm"]:
        if os.path.isdir(path) and _on_read_only_mount(path):
            try:
                _mount(libc, None, path, None, MS_REMOUNT | MS_BIND | (_kept_flags(path) & ~MS_RDONLY))
            except OSError as exc:
                failed.append(f"{path} stays read-only ({exc.strerror})")
    try:
        os.chdir(os.getcwd())  # the working folder as the new mounts show it (its scratch folder: writable)
    except OSError:
        pass
    if kept or failed:
        return "partial: " + "; ".join([f"{len(kept)} mount(s) stay writable ({', '.join(kept[:3])})"] * bool(kept)
                                        + failed[:3])
    return "on (every folder but its own)"


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


SYS_MOUNT_SETATTR = 442  # the same number on every architecture (it came after the tables were unified)
AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = -100, 0x8000, 1


def _all_read_only(libc) -> list[str]:
    """Every mount of this namespace read-only: at once (mount_setattr, Linux >= 5.12), else one by one.
    Returns the mount points that stayed writable."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    if libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, b"/", AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)) == 0:
        return []
    kept = []
    for point in _mount_points():
        try:
            _mount(libc, None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(point))
        except OSError:
            if not _on_read_only_mount(point):
                kept.append(point)
    return kept


def _mount_points() -> list[str]:
    points = []
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            for line in f:
                raw = line.split()[4].decode("utf-8", "surrogateescape")
                points.append(raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
                              if "\\" in raw else raw)
    except (OSError, IndexError, UnicodeError):
        pass
    return points


def _kept_flags(path: str) -> int:
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _KEPT if flags & st) | (MS_RDONLY if flags & os.ST_RDONLY else 0)


def _on_read_only_mount(path: str) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> str:
    """Every capability of this process, for good: securebits locked (uid 0 gets none back at an
    ``execve``), the bounding and ambient sets emptied, then effective, permitted and inheritable.
    The first two need CAP_SETPCAP (root, or the owner of a new user namespace); a process without it
    holds no capability to drop and ``no_new_privs`` keeps it so."""
    libc = _libc()
    notes = []
    try:
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
    except (OSError, ValueError):
        last = 40
    if libc.prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EPERM:
        notes.append(f"securebits: {os.strerror(ctypes.get_errno())}")
    bounding_kept = [cap for cap in range(last + 1) if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0]
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()  # _LINUX_CAPABILITY_VERSION_3: all zero
    if libc.capset(ctypes.byref(header), data) != 0:
        return f"kept: capset: {os.strerror(ctypes.get_errno())}"
    if bounding_kept and _bounding_set() != 0:
        notes.append(f"bounding set kept ({len(bounding_kept)} capabilities; no_new_privs keeps them unused)")
    return "dropped" + (f" ({'; '.join(notes)})" if notes else "")


def _bounding_set() -> int:
    try:
        for line in open("/proc/self/status"):
            if line.startswith("CapBnd:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return -1
