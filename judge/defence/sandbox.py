"""The worker's sandbox (Linux): what the solution's process may touch.

The worker applies it to itself after its own imports and warm-up and before
the solution is imported, so nothing of the solution ever runs outside it
(docs/security.md).  Two kernel features, each through a maintained binding:

- **Landlock** (``landlockpy``, kernel >= 5.13): the worker may read only
  the policy's ``read`` paths (the Python installation, the judge's package,
  the solution's folder, system libraries), write only its ``write`` folders
  (its scratch folder, the Triton cache its kernels compile into) and open
  the GPU's device files.  Landlock also stops it from tracing or reading
  ``/proc/<pid>/{fd,mem,environ}`` of any process outside its domain (the
  judge), and, where the kernel has the scopes (ABI >= 6), from signalling
  it or reaching its abstract sockets; TCP needs ABI >= 4.
- **seccomp** (``pyseccomp`` over libseccomp): system calls a kernel solution
  has no use for fail with EPERM: ptrace, reading or writing other
  processes' memory, taking their descriptors, signals to other processes
  (where Landlock cannot scope them), sockets (no network, and no way to
  the judge server's Unix socket), io_uring (it bypasses seccomp), new
  namespaces, mounts, BPF, kernel modules and the clock.

Both are best effort: a kernel or installation without one leaves that layer
off, and the worker says which layers are on in its ``ready`` message.  The
judge reports them (``environment.protections`` in ``--json``) and warns.
"""

from __future__ import annotations

import errno
import functools
import os
from dataclasses import dataclass, field

from judge.defence.switches import NAMESPACES_ENV, SANDBOX_ENV, Switches, switches

__all__ = ["Policy", "apply", "available", "policy_for", "allowed_environment", "set_dumpable", "SYSCALLS_DENIED",
           "SYSCALLS_ALLOWED", "judged_layers", "sealed", "MECHANISMS"]


# seccomp is an allow-list: a system call not named here fails (ENOSYS for one this list has never heard of,
# so that a library falls back as on an older kernel; EPERM for those below).  What Python, glibc, torch,
# Triton's compiler and launcher builds (gcc, ld), nvcc's tools and the CUDA driver (ioctl on its device
# files) call; none of it acts on another process, the machine or a namespace.
SYSCALLS_ALLOWED = tuple("""
read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 open openat openat2 creat close
close_range lseek llseek _llseek dup dup2 dup3 fcntl fcntl64 flock fsync fdatasync sync syncfs sync_file_range
truncate ftruncate truncate64 ftruncate64 fallocate fadvise64 fadvise64_64 readahead sendfile sendfile64 splice tee
vmsplice copy_file_range stat fstat lstat stat64 fstat64 lstat64 newfstatat fstatat64 statx statfs fstatfs statfs64
fstatfs64 access faccessat faccessat2 getdents getdents64 getcwd chdir fchdir rename renameat renameat2 mkdir
mkdirat rmdir link linkat unlink unlinkat symlink symlinkat readlink readlinkat chmod fchmod fchmodat fchmodat2
chown fchown lchown fchownat chown32 fchown32 lchown32 umask utime utimes futimesat utimensat mknod mknodat
setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr removexattr
lremovexattr fremovexattr pipe pipe2 poll ppoll select _newselect pselect6 epoll_create epoll_create1 epoll_ctl
epoll_wait epoll_pwait epoll_pwait2 eventfd eventfd2 signalfd signalfd4 timerfd_create timerfd_settime
timerfd_gettime memfd_create cachestat
mmap mmap2 munmap mprotect mremap msync mincore madvise brk mlock mlock2 munlock mlockall munlockall
remap_file_pages membarrier pkey_mprotect pkey_alloc pkey_free mbind set_mempolicy get_mempolicy
set_mempolicy_home_node map_shadow_stack
rt_sigaction rt_sigprocmask rt_sigreturn sigreturn rt_sigpending rt_sigtimedwait rt_sigtimedwait_time64
rt_sigsuspend sigaltstack restart_syscall pause alarm getitimer setitimer nanosleep clock_nanosleep
clock_nanosleep_time64 clock_gettime clock_gettime64 clock_getres clock_getres_time64 gettimeofday time times
timer_create timer_settime timer_settime64 timer_gettime timer_gettime64 timer_getoverrun timer_delete
futex futex_time64 futex_waitv futex_wake futex_wait futex_requeue set_robust_list get_robust_list
set_tid_address set_thread_area get_thread_area arch_prctl rseq
clone fork vfork execve execveat exit exit_group wait4 waitid kill tgkill rt_sigqueueinfo rt_tgsigqueueinfo
getpid getppid gettid getpgid getpgrp getsid setpgid getuid geteuid getgid getegid getresuid getresgid getgroups
getuid32 geteuid32 getgid32 getegid32 getresuid32 getresgid32 getgroups32 setuid setgid setreuid setregid
setresuid setresgid setfsuid setfsgid setgroups setuid32 setgid32 setreuid32 setregid32 setresuid32
setresgid32 setfsuid32 setfsgid32 setgroups32 capget capset prctl
getrlimit ugetrlimit setrlimit prlimit64 getrusage getpriority setpriority sched_yield sched_getaffinity
sched_setaffinity sched_getparam sched_setparam sched_getscheduler sched_setscheduler sched_getattr
sched_setattr sched_get_priority_max sched_get_priority_min sched_rr_get_interval
sched_rr_get_interval_time64 ioprio_get ioprio_set getcpu migrate_pages move_pages
uname sysinfo getrandom ioctl
socketpair socket connect accept accept4 bind listen getsockname getpeername sendto recvfrom sendmsg recvmsg
sendmmsg recvmmsg shutdown setsockopt getsockopt
shmget shmat shmdt shmctl semget semop semtimedop semctl msgget msgsnd msgrcv msgctl mq_open mq_unlink
mq_timedsend mq_timedreceive mq_notify mq_getsetattr
io_setup io_destroy io_getevents io_pgetevents io_submit io_cancel
seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self
""".split())
# Named on purpose, though the allow-list leaves them out (EPERM, as before the allow-list): another
# process's memory, descriptors or scheduling; namespaces, mounts, the kernel, the clock, the host's name
# and log; watching files others open (fanotify, inotify); sockets (below); io_uring (it bypasses seccomp).
SYSCALLS_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "process_madvise", "process_mrelease", "kcmp", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "unshare", "setns", "mount", "umount2", "umount", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
    "request_key", "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
    "personality", "tkill", "fanotify_init", "fanotify_mark", "inotify_init", "inotify_init1",
    "inotify_add_watch", "sethostname", "setdomainname", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie",
    "name_to_handle_at", "open_by_handle_at", "vhangup", "modify_ldt", "memfd_secret", "uselib", "ustat", "sysfs",
    "_sysctl", "nfsservctl",
    # A new session: the red team's double fork + setsid ran on after the judge had exited (when the judge
    # killed the worker's group alone).  No compiler or build tool needs one.  setpgid is allowed: ninja
    # starts each compiler in a process group of its own (posix_spawn's SETPGROUP: every load_inline
    # build failed with "posix_spawn: Operation not permitted"), and the judge ends the worker's whole tree,
    # whatever its groups (judge/defence/tree.py: stop_tree).
    "setsid",
)
# Signals: allowed to the worker's own process only (first argument), where neither a PID namespace nor
# Landlock's signal scope keeps them inside.
SIGNAL_SYSCALLS = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
# On another process (a first argument but 0, "this one"), without a PID namespace to hide the others: the
# red team's worker reniced and pinned its judge (setpriority, sched_setaffinity on getppid()).
ON_SELF_ONLY = ("sched_setaffinity", "sched_setparam", "sched_setscheduler", "sched_setattr", "prlimit64",
                "migrate_pages", "move_pages")
# System V and POSIX message queues and shared memory are the machine's, but for a worker with an IPC
# namespace of its own: without one they would reach other processes' (another worker's) segments.
HOST_IPC = ("shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
            "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
            "mq_getsetattr")
PR_SET_CHILD_SUBREAPER = 36  # without a PID namespace, the worker adopts its orphans: it may not give that up


@dataclass(frozen=True)
class Policy:
    """What the worker may touch.  Paths that do not exist are skipped when applied."""

    read: tuple[str, ...] = ()  # files and folders it may read (and run: compilers, ptxas)
    write: tuple[str, ...] = ()  # folders it may read, write, create and delete in
    devices: tuple[str, ...] = ()  # device files it may open read-write and ioctl (GPU, /dev/null)
    network: bool = False  # True: no Landlock network rules and sockets allowed (never used by the judge)
    extra: dict = field(default_factory=dict)

    def as_message(self) -> dict:
        return {"read": list(self.read), "write": list(self.write), "devices": list(self.devices),
                "network": self.network}

    @classmethod
    def from_message(cls, message: dict) -> "Policy":
        return cls(tuple(map(str, message.get("read", ()))), tuple(map(str, message.get("write", ()))),
                   tuple(map(str, message.get("devices", ()))), bool(message.get("network", False)))


def available(namespaces: bool = False) -> dict[str, str]:
    """What this kernel and installation allow, without applying anything: ``{layer: state}``,
    state "on (...)" or "off: why".  Costs two system calls; safe in the judge's process.  With
    ``namespaces``, also whether a worker can have namespaces of its own (judge/defence/namespaces.py),
    asked of a short-lived process (tens of milliseconds, once per process)."""
    states = {"landlock": _landlock_state(), "seccomp": _seccomp_state()}
    if namespaces:
        states["namespaces"] = namespaces_state()
    return states


@functools.lru_cache(maxsize=None)
def namespaces_state() -> str:
    """Whether a process can enter a worker's namespaces here: "on (...)" or "off: why"."""
    import subprocess
    import sys

    from judge.defence import namespaces as module

    if not switches().namespaces:
        return Switches.off(NAMESPACES_ENV)
    probe = ("import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); "
             f"sys.exit(0 if libc.unshare({sum(module.FLAGS.values())}) == 0 else ctypes.get_errno())")
    try:
        code = subprocess.run([sys.executable, "-I", "-S", "-c", probe], timeout=30,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"off: the probe failed ({exc})"
    if code == 0:
        return "on (" + ", ".join(module.FLAGS) + ")"
    return f"off: unshare: {os.strerror(code) if code > 0 else f'the probe ended with {code}'} (user namespaces disallowed here?)"


_AVAILABLE: dict | None = None


MECHANISMS = ("namespaces", "read_only", "capabilities", "no_new_privs", "landlock", "seccomp")
SEALING = ("capabilities", "no_new_privs", "landlock", "seccomp")  # each must hold for a run to be sealed


def judged_layers(claimed: dict, requested: bool, kernel: dict | None = None) -> dict[str, str]:
    """Each mechanism's state as the judge reports it.  Landlock and seccomp: off where they were not asked
    for (JUDGE_SANDBOX=0) or this kernel or installation cannot give them (``available``, checked in the
    judge's own process), else what the worker said it applied, and seccomp only where the kernel shows a
    filter on the worker.  Namespaces, capabilities and no_new_privs: the kernel's word (``kernel``, read by
    the judge from /proc: judge/defence/tree.py), never the worker's.  A worker's claim never turns a
    mechanism on (the red team's solution rewrote its "ready" message to say both layers were on under
    JUDGE_SANDBOX=0)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        _AVAILABLE = available()
    claimed = claimed if isinstance(claimed, dict) else {}
    kernel = kernel if isinstance(kernel, dict) else {}
    states = {}
    for layer in ("landlock", "seccomp"):
        claim = str(claimed.get(layer, "off: the worker did not say"))
        if not requested:
            states[layer] = Switches.off(SANDBOX_ENV)
        elif _AVAILABLE[layer].startswith("off"):
            states[layer] = _AVAILABLE[layer]
        elif layer == "seccomp" and kernel and kernel.get("seccomp_mode") != "filter" and not claim.startswith("off"):
            states[layer] = "off: the kernel shows no seccomp filter on the worker"
        else:
            states[layer] = claim
    for name in ("namespaces", "capabilities", "no_new_privs"):
        seen, claim = kernel.get(name), str(claimed.get(name, "off: the worker did not say"))
        if seen is None:
            states[name] = "off: not seen (no /proc)"
        elif seen.startswith("off") and claim.startswith("off:"):
            states[name] = claim  # the worker's reason, for a mechanism the kernel confirms is off
        else:
            states[name] = seen
    claim = str(claimed.get("read_only", "off: the worker did not say"))
    if kernel.get("read_only") == "on":
        states["read_only"] = claim if claim.startswith(("on", "partial")) else "on"
    else:
        states["read_only"] = claim if claim.startswith("off") else "off: the worker's root is writable"
    return {name: states[name] for name in MECHANISMS}


def sealed(protections: dict) -> bool:
    """Whether a run's worker was sealed: capabilities dropped, no_new_privs, Landlock (whole or partial:
    the threads CUDA started before it) and seccomp all held.  Namespaces are reported, not required: where
    a kernel has none, the others hold alone (docs/security.md)."""
    return all(str(protections.get(name, "off")).startswith(("on", "partial", "dropped")) for name in SEALING)


def _landlock_state() -> str:
    try:
        import landlockpy
    except ImportError:
        return "off: the landlockpy package is not installed (pip install landlockpy: a dependency of judge on Linux)"
    try:
        abi = landlockpy.abi_version()
    except Exception as exc:  # noqa: BLE001 - an odd kernel: the layer is off, never the judge
        return f"off: {exc}"
    if abi < 1:
        return "off: this kernel has no Landlock (Linux >= 5.13 with landlock in the LSM list)"
    return f"on (ABI {abi}: {', '.join(_landlock_covers(abi))})"


def _landlock_covers(abi: int) -> list[str]:
    covers = ["files", "ptrace and /proc of other processes"]
    if abi >= 4:
        covers.append("TCP")
    if abi >= 6:
        covers.append("signals")
    return covers


def _seccomp_state() -> str:
    try:
        _seccomp_module()
    except (ImportError, OSError, RuntimeError) as exc:
        return f"off: {exc}"
    return SECCOMP_ON


SECCOMP_ON = "on (allow-list)"


def _seccomp_module():
    """pyseccomp (ctypes over libseccomp.so.2), else libseccomp's own ``seccomp`` bindings."""
    try:
        import pyseccomp as seccomp
    except ImportError:
        try:
            import seccomp
        except ImportError:
            raise ImportError("the pyseccomp package is not installed (pip install pyseccomp: a dependency of judge on Linux)") from None
    except (OSError, RuntimeError, AttributeError) as exc:
        raise RuntimeError(f"libseccomp could not be loaded ({exc}); install libseccomp2") from None
    return seccomp


def apply(policy: Policy, namespaced: bool = False) -> dict[str, str]:
    """Restrict this process (Landlock, then seccomp); ``{layer: state}`` of what is now on.
    ``namespaced``: it runs in PID and IPC namespaces of its own (judge/defence/namespaces.py), where
    every process it can name is its own; else seccomp keeps the calls that name a process to itself.

    Never raises: a layer that fails is reported off with the reason.  Irreversible.
    Both bindings are imported first: once Landlock is on, their folders may be closed.
    """
    states = {}
    try:
        seccomp = _seccomp_module()
    except (ImportError, OSError, RuntimeError) as exc:
        seccomp, states["seccomp"] = None, f"off: {exc}"
    scopes_signals = False
    others = _other_threads()
    try:
        abi = _apply_landlock(policy)
        states["landlock"] = f"on (ABI {abi}: {', '.join(_landlock_covers(abi))})"
        if others and abi < 8:  # Landlock confines the calling thread only, before its TSYNC (ABI 8)
            states["landlock"] = (f"partial (ABI {abi}): {len(others)} thread(s) started before the sandbox "
                                  f"({', '.join(sorted(set(others.values()))[:4])}) are not confined by it")
        scopes_signals = abi >= 6
    except Exception as exc:  # noqa: BLE001
        states["landlock"] = f"off: {type(exc).__name__}: {exc}"
    if seccomp is not None:
        try:
            _apply_seccomp(seccomp, policy, signals=not (scopes_signals or namespaced), others=not namespaced)
            states["seccomp"] = SECCOMP_ON
        except Exception as exc:  # noqa: BLE001
            states["seccomp"] = f"off: {type(exc).__name__}: {exc}"
    return states


def _other_threads() -> dict[str, str]:
    """This process's threads but the calling one: {tid: name}.  The worker starts none before the
    sandbox, and its environment keeps BLAS and OpenMP to one thread (client.py: the red team ran its
    code on an OpenBLAS pool thread, which Landlock had not confined); CUDA's driver starts a few."""
    import threading

    me, found = str(threading.get_native_id()), {}
    try:
        for tid in os.listdir("/proc/self/task"):
            if tid != me:
                try:
                    with open(f"/proc/self/task/{tid}/comm", encoding="utf-8", errors="replace") as comm:
                        found[tid] = comm.read().strip()
                except OSError:
                    found[tid] = "?"
    except OSError:
        pass
    return found


def _apply_landlock(policy: Policy) -> int:
    import landlockpy
    from landlockpy import AccessFS, AccessNet, RestrictFlag, Ruleset, Scope

    abi = landlockpy.abi_version()
    if abi < 1:
        raise OSError(errno.ENOSYS, "this kernel has no Landlock")
    read = AccessFS.READ_FILE | AccessFS.READ_DIR | AccessFS.EXECUTE
    file_read = AccessFS.READ_FILE | AccessFS.EXECUTE
    write = ~AccessFS.NONE & ~AccessFS.IOCTL_DEV & ~AccessFS.MAKE_CHAR & ~AccessFS.MAKE_BLOCK
    device = AccessFS.READ_FILE | AccessFS.WRITE_FILE | AccessFS.IOCTL_DEV | AccessFS.TRUNCATE
    handled_net = AccessNet.NONE if policy.network else (AccessNet.BIND_TCP | AccessNet.CONNECT_TCP
                                                          | AccessNet.BIND_UDP | AccessNet.CONNECT_SEND_UDP)
    with Ruleset(handled_net=handled_net, scoped=Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET) as ruleset:
        for path in policy.read:
            _allow(ruleset, path, read if os.path.isdir(path) else file_read)
        for path in policy.write:
            _allow(ruleset, path, write if os.path.isdir(path) else file_read | AccessFS.WRITE_FILE
                   | AccessFS.TRUNCATE)
        for path in policy.devices:
            _allow(ruleset, path, (device | AccessFS.READ_DIR) if os.path.isdir(path) else device)
        ruleset.restrict(RestrictFlag.TSYNC)  # every thread, where the kernel can (ABI 8; dropped before)
    return abi


def _allow(ruleset, path: str, access) -> None:
    if not os.path.exists(path):
        return
    try:
        ruleset.allow_path(path, access)
    except OSError:
        pass  # a path that vanished or cannot be opened with O_PATH: it stays closed


def _apply_seccomp(seccomp, policy: Policy, signals: bool, others: bool) -> None:
    """The allow-list (SYSCALLS_ALLOWED), EPERM for SYSCALLS_DENIED.  ``signals``: signals only to this
    process; ``others``: no PID or IPC namespace of the worker's own, so the calls that name another
    process may name only this one, and the machine's IPC is closed."""
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.ENOSYS))
    rules.set_attr(seccomp.Attr.CTL_TSYNC, 1)  # every thread of the process, those CUDA started too
    conditional = {"socket", "clone", "clone3", "prctl", "setpriority", "ioprio_set"}
    if signals:
        conditional.update(SIGNAL_SYSCALLS)
    if others:
        conditional.update(ON_SELF_ONLY)
    for name in SYSCALLS_ALLOWED:
        if name not in conditional and not (others and name in HOST_IPC):
            _rule(rules, seccomp.ALLOW, name)
    for name in SYSCALLS_DENIED + ((*HOST_IPC,) if others else ()) + (() if policy.network else ("socket",)):
        _rule(rules, deny, name)
    if policy.network:
        _rule(rules, seccomp.ALLOW, "socket")
    arg = seccomp.Arg
    me = os.getpid()
    if signals:
        for name in SIGNAL_SYSCALLS:
            _rule(rules, seccomp.ALLOW, name, arg(0, seccomp.EQ, me))
            _rule(rules, deny, name, arg(0, seccomp.NE, me))
    if others:
        for name in ON_SELF_ONLY:
            _rule(rules, seccomp.ALLOW, name, arg(0, seccomp.EQ, 0))
            _rule(rules, deny, name, arg(0, seccomp.NE, 0))
    for name, which in (("setpriority", 0), ("ioprio_set", 1)):  # PRIO_PROCESS / IOPRIO_WHO_PROCESS, "this one"
        if others:
            _rule(rules, seccomp.ALLOW, name, arg(0, seccomp.EQ, which), arg(1, seccomp.EQ, 0))
            _rule(rules, deny, name, arg(0, seccomp.NE, which))
            _rule(rules, deny, name, arg(0, seccomp.EQ, which), arg(1, seccomp.NE, 0))
        else:
            _rule(rules, seccomp.ALLOW, name)
    # prctl: all but giving up the adoption of orphans (namespaces.py, without a PID namespace)
    _rule(rules, seccomp.ALLOW, "prctl", arg(0, seccomp.NE, PR_SET_CHILD_SUBREAPER))
    _rule(rules, deny, "prctl", arg(0, seccomp.EQ, PR_SET_CHILD_SUBREAPER))
    # clone3's flags sit in a struct seccomp cannot read: make glibc fall back to clone, whose flags it can.
    _rule(rules, seccomp.ERRNO(errno.ENOSYS), "clone3")
    refused = sum(_REFUSED_CLONE_FLAGS)
    _rule(rules, seccomp.ALLOW, "clone", arg(0, seccomp.MASKED_EQ, refused, 0))
    for flag in _REFUSED_CLONE_FLAGS:  # one rule a flag: the rules of one call are alternatives
        _rule(rules, deny, "clone", arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.load()


def _rule(rules, action, name: str, *args) -> None:
    try:
        rules.add_rule(action, name, *args)
    except (RuntimeError, ValueError, OSError):
        pass  # a system call this architecture or libseccomp does not know


# clone()'s flags that make a new namespace: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
_NEW_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
# CLONE_PARENT: a child made the worker's sibling, the judge's own child, below no root the judge looks under (the
# freeze, the processes left running, the memory count): seen without namespaces (the red team of issue 46).  No
# thread, fork or posix_spawn of an honest tool sets it.
CLONE_PARENT = 0x00008000
_REFUSED_CLONE_FLAGS = (*_NEW_NAMESPACES, CLONE_PARENT)


# -- the judge's side: the policy for one worker ---------------------------------------------------

# System folders a Python, CUDA and Triton process reads (libraries, compilers for Triton's launcher).
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/sys",
               "/usr/local/nvidia", "/usr/local/cuda")
# Of /proc only this process's own folder and the machine-wide files: not /proc/<pid> of another
# process (the judge's environ, maps, fd list; another worker's), which Landlock's ptrace rule lets
# a process read in its "read" mode.  The rule is made in the worker, where /proc/self is its own.
PROC_READ = ("/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg",
             "/proc/uptime", "/proc/version", "/proc/filesystems", "/proc/sys", "/proc/driver", "/proc/devices",
             "/proc/pressure")
# From /etc only what the dynamic loader, the C library and CUDA read: never the whole folder.
ETC_READ = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/nsswitch.conf", "/etc/passwd",
            "/etc/group", "/etc/localtime", "/etc/os-release", "/etc/host.conf", "/etc/gai.conf",
            "/etc/nvidia", "/etc/OpenCL", "/etc/vulkan")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/nvidiactl",
           "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/nvidia-caps", "/dev/kfd",
           "/dev/dri")


def policy_for(solution_dir: str, scratch: str, writable: tuple[str, ...] = (), readable: tuple[str, ...] = (),
               strict: bool = False, hidden: tuple[str, ...] = ()) -> Policy:
    """The policy of a worker judging a solution in ``solution_dir``, working in ``scratch``.

    ``writable``: more folders it writes (the Triton cache its kernels compile into);
    ``readable``: more it reads (the judge's bytecode and kernel caches).  The Python
    installation and the packages the worker imports are readable; with ``strict``
    (``judge grade``) the folders of ``$PYTHONPATH`` are not, since a grader's may hold
    the tests or other submissions.  ``hidden``: folders never made readable whole (the judge's
    source tree, whose package folders are readable on their own).
    """
    import glob

    hidden_paths = {os.path.abspath(h) for h in hidden}
    python = [p for p in _python_paths(strict) if os.path.abspath(p) not in hidden_paths]
    read = [*SYSTEM_READ, *PROC_READ, *ETC_READ, *python, *_compiler_roots(), solution_dir, *readable]
    for variable in ("CUDA_HOME", "CUDA_PATH", "TRITON_PTXAS_PATH", "TRITON_CUOBJDUMP_PATH"):
        if os.environ.get(variable):
            read.append(os.environ[variable])
    devices = [*DEVICES, *sorted(glob.glob("/dev/nvidia[0-9]*"))]
    return Policy(tuple(_unique(read)), tuple(_unique([scratch, *writable])), tuple(devices))


@functools.lru_cache(maxsize=None)
def _compiler_roots() -> tuple[str, ...]:
    """Where the C compilers live that Triton builds its launchers with ($CC, cc, gcc, clang): the
    folder above their bin/ (on the GPU machine we test on, gcc is /opt/gcc/bin/gcc)."""
    import shutil

    roots = []
    for name in (os.environ.get("CC", ""), os.environ.get("CXX", ""), "cc", "gcc", "clang"):
        found = shutil.which(name) if name else None
        if found:
            real = os.path.realpath(found)
            roots.append(os.path.dirname(os.path.dirname(real)) if os.path.basename(os.path.dirname(real)) == "bin"
                         else os.path.dirname(real))
    return tuple(root for root in roots if root not in ("/", ""))


def _python_paths(strict: bool) -> list[str]:
    """The interpreter's prefixes, its library folders and where the worker's packages live."""
    paths = list(_installation_paths())
    if not strict:
        paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return paths


@functools.lru_cache(maxsize=None)
def _installation_paths() -> tuple[str, ...]:
    import site
    import sys
    import sysconfig

    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable),
             *sysconfig.get_paths().values()]
    try:
        paths += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # a virtualenv's old site module
        pass
    paths += [entry for entry in sys.path if entry and os.path.isabs(entry)
              and ("site-packages" in entry or "dist-packages" in entry or entry.startswith(sys.base_prefix))]
    return tuple(paths + _package_folders())


def _package_folders() -> list[str]:
    """The judge's own package folders (an editable install's source tree is not read whole)."""
    from pathlib import Path

    here = Path(__file__).resolve().parents[1]  # judge/
    folders = [str(here)]
    try:
        import judge.challenges as builtin

        folders += [str(Path(p).resolve()) for p in builtin.__path__]
    except ImportError:
        pass
    return folders


def _unique(paths) -> list[str]:
    seen, out = set(), []
    for path in paths:
        path = os.path.abspath(path)
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


# The environment a worker gets: what Python, the C library, CUDA, PyTorch and Triton read, by name (a prefix
# let NVIDIA_API_KEY through with NVIDIA_VISIBLE_DEVICES), and nothing named like a credential whatever the
# name (CREDENTIAL_HINTS).  Tokens, keys and the grader's own variables (GITHUB_TOKEN, AWS_*, SSH_AUTH_SOCK,
# JUDGE_SECRET_SEED, ...) stay out.
ENV_NAMES = frozenset("""
PATH HOME USER LOGNAME LANG LANGUAGE TZ TMPDIR LD_LIBRARY_PATH CC CXX TERM NO_COLOR
LC_ALL LC_CTYPE LC_NUMERIC LC_TIME LC_COLLATE LC_MONETARY LC_MESSAGES LC_PAPER LC_NAME LC_ADDRESS LC_TELEPHONE
LC_MEASUREMENT LC_IDENTIFICATION
PYTHONPATH PYTHONHASHSEED PYTHONIOENCODING PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX
PYTHONFAULTHANDLER PYTHONWARNINGS PYTHONUTF8 PYTHONMALLOC
CUDA_HOME CUDA_PATH CUDA_ROOT CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER CUDA_LAUNCH_BLOCKING CUDA_MODULE_LOADING
CUDA_MODULE_DATA_LOADING CUDA_CACHE_PATH CUDA_CACHE_DISABLE CUDA_CACHE_MAXSIZE CUDA_FORCE_PTX_JIT
CUDA_DISABLE_PTX_JIT CUDA_DEVICE_MAX_CONNECTIONS CUDA_AUTO_BOOST CUDA_SCALE_LAUNCH_QUEUES
CUDA_MANAGED_FORCE_DEVICE_ALLOC CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES NVIDIA_TF32_OVERRIDE
TRITON_HOME TRITON_CACHE_DIR TRITON_INTERPRET TRITON_PTXAS_PATH TRITON_CUOBJDUMP_PATH TRITON_NVDISASM_PATH
TRITON_LIBDEVICE_PATH TRITON_LIBCUDA_PATH TRITON_DEBUG TRITON_PRINT_AUTOTUNING TRITON_ALWAYS_COMPILE
TRITON_DEFAULT_FP_FUSION TRITON_F32_DEFAULT TRITON_DISABLE_LINE_INFO TRITON_FRONT_END_DEBUGGING
TORCH_HOME TORCH_CUDA_ARCH_LIST TORCH_SHOW_CPP_STACKTRACES TORCH_USE_CUDA_DSA TORCH_ALLOW_TF32_CUBLAS_OVERRIDE
TORCH_LOGS
PYTORCH_CUDA_ALLOC_CONF PYTORCH_ALLOC_CONF PYTORCH_NO_CUDA_MEMORY_CACHING PYTORCH_NVML_BASED_CUDA_CHECK
PYTORCH_KERNEL_CACHE_PATH PYTORCH_JIT
OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES OMP_WAIT_POLICY OMP_DYNAMIC OMP_SCHEDULE OMP_STACKSIZE
MKL_NUM_THREADS MKL_DYNAMIC MKL_THREADING_LAYER MKL_SERVICE_FORCE_INTEL OPENBLAS_NUM_THREADS OPENBLAS_CORETYPE
KMP_AFFINITY KMP_BLOCKTIME KMP_DUPLICATE_LIB_OK GOMP_SPINCOUNT GOMP_CPU_AFFINITY NUMEXPR_NUM_THREADS
GOTO_NUM_THREADS VECLIB_MAXIMUM_THREADS CUBLAS_WORKSPACE_CONFIG
JUDGE_WORKER_WARM_DEVICE JUDGE_PROFILE_DIR JUDGE_SANDBOX JUDGE_NAMESPACES JUDGE_BYTECODE_CACHE JUDGE_TRACE
JUDGE_CACHE_DIR JUDGE_HOME
""".split())
# Never, whatever the name: a variable whose name says it holds a credential.
CREDENTIAL_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE")
ENV_SECRETS = frozenset({"JUDGE_SECRET_SEED"})  # never, whatever the allow-list says
# Thread pools the worker's imports would start before the sandbox (numpy's OpenBLAS, torch's OpenMP):
# code of the solution's that runs on one of them (OpenBLAS's exec_blas takes callbacks) is not confined
# where Landlock cannot confine every thread.  A kernel solution needs none of them.
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                                     # torch.compile's compile workers would be processes left running
                                     "TORCHINDUCTOR_COMPILE_THREADS")}


def allowed_environment(env: dict) -> dict:
    """The variables of ``env`` a worker may see (the rest are dropped, not blanked)."""
    return {name: value for name, value in env.items() if env_allowed(name)}


def env_allowed(name: str) -> bool:
    """Whether a worker may see the variable ``name``: named in ENV_NAMES, and not named like a credential."""
    upper = name.upper()
    return name in ENV_NAMES and name not in ENV_SECRETS and not any(hint in upper for hint in CREDENTIAL_HINTS)


def set_dumpable(dumpable: bool) -> bool:
    """``prctl(PR_SET_DUMPABLE)`` on this process (Linux); whether it took.

    The judge's processes (run, rank, grade, watch, the server) make themselves
    non-dumpable at start: then no process of the same (non-root) user can open
    their ``/proc/<pid>/{fd,mem,environ}`` or trace them.  For a worker, that
    is also what Landlock's ptrace rule and /proc rules enforce, whatever the user
    (root's capabilities pass the dumpable check, not Landlock).  Children become
    dumpable again when they exec."""
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(4, int(dumpable), 0, 0, 0) == 0  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False
