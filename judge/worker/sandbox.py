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

__all__ = ["Policy", "apply", "available", "policy_for", "allowed_environment", "set_dumpable", "SYSCALLS_DENIED",
           "OPT_OUT_ENV"]

OPT_OUT_ENV = "JUDGE_SANDBOX"  # JUDGE_SANDBOX=0: no Landlock or seccomp for the workers (said in every report)

# Denied outright (EPERM).  A Triton or PyTorch solution needs none of them.
SYSCALLS_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "kcmp", "socket", "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount",
    "umount2", "pivot_root", "chroot", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
    "request_key", "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
    "personality", "tkill",
    # A child that leaves the worker's process group outlives it (the judge kills the group): the red
    # team's double fork + setsid ran on after the judge had exited.
    "setsid", "setpgid",
)
# Signals: allowed to the worker's own process only (first argument), where Landlock has no signal scope.
SIGNAL_SYSCALLS = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")


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


def available() -> dict[str, str]:
    """What this kernel and installation allow, without applying anything: ``{layer: state}``,
    state "on (...)" or "off: why".  Costs two system calls; safe in the judge's process."""
    return {"landlock": _landlock_state(), "seccomp": _seccomp_state()}


_AVAILABLE: dict | None = None


def judged_layers(claimed: dict, requested: bool) -> dict[str, str]:
    """Each layer's state as the judge reports it: off where it was not asked for (JUDGE_SANDBOX=0) or
    this kernel or installation cannot give it (``available``, checked in the judge's own process),
    else what the worker said it applied.  A worker's claim never turns a layer on (the red team's
    solution rewrote its "ready" message to say both were on under JUDGE_SANDBOX=0)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        _AVAILABLE = available()
    states = {}
    for layer in ("landlock", "seccomp"):
        claim = str(claimed.get(layer, "off: the worker did not say")) if isinstance(claimed, dict) else "off: ?"
        if not requested:
            states[layer] = f"off: {OPT_OUT_ENV}=0"
        elif _AVAILABLE[layer].startswith("off"):
            states[layer] = _AVAILABLE[layer]
        else:
            states[layer] = claim
    return states


def _landlock_state() -> str:
    try:
        import landlockpy
    except ImportError:
        return "off: the landlockpy package is not installed (pip install 'judge[sandbox]')"
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
    return "on"


def _seccomp_module():
    """pyseccomp (ctypes over libseccomp.so.2), else libseccomp's own ``seccomp`` bindings."""
    try:
        import pyseccomp as seccomp
    except ImportError:
        try:
            import seccomp
        except ImportError:
            raise ImportError("the pyseccomp package is not installed (pip install 'judge[sandbox]')") from None
    except (OSError, RuntimeError, AttributeError) as exc:
        raise RuntimeError(f"libseccomp could not be loaded ({exc}); install libseccomp2") from None
    return seccomp


def apply(policy: Policy) -> dict[str, str]:
    """Restrict this process (Landlock, then seccomp); ``{layer: state}`` of what is now on.

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
            _apply_seccomp(seccomp, policy, signals=not scopes_signals)
            states["seccomp"] = "on"
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


def _apply_seccomp(seccomp, policy: Policy, signals: bool) -> None:
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_TSYNC, 1)  # every thread of the process, those CUDA started too
    for name in SYSCALLS_DENIED:
        if name == "socket" and policy.network:
            continue
        try:
            rules.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):
            pass  # a system call this architecture or libseccomp does not know
    if signals:
        me = os.getpid()
        for name in SIGNAL_SYSCALLS:
            rules.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, me))
    # clone3's flags sit in a struct seccomp cannot read: make glibc fall back to clone, whose flags it can.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in _NEW_NAMESPACES:  # one rule a flag: the rules of one call are alternatives
        rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.load()


# clone()'s flags that make a new namespace: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
_NEW_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


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


# The environment a worker gets: what Python, the C library, CUDA, PyTorch and Triton read, and no
# more.  Tokens, keys and the grader's own variables (GITHUB_TOKEN, AWS_*, SSH_AUTH_SOCK, ...) stay out.
ENV_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH", "CC", "CXX",
    "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PYTHONPYCACHEPREFIX", "PYTHONFAULTHANDLER", "PYTHONWARNINGS", "PYTHONUTF8", "CUDA_HOME", "CUDA_PATH",
})
ENV_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "TRITON_", "TORCH_", "PYTORCH_", "OMP_", "MKL_", "OPENBLAS_", "KMP_",
                "GOMP_", "NCCL_", "NVSHMEM_", "CUBLAS_", "CUDNN_", "JUDGE_", "NUMEXPR_", "GOTO_", "VECLIB_")
ENV_SECRETS = frozenset({"JUDGE_SECRET_SEED"})  # never, whatever the prefix
# Thread pools the worker's imports would start before the sandbox (numpy's OpenBLAS, torch's OpenMP):
# code of the solution's that runs on one of them (OpenBLAS's exec_blas takes callbacks) is not confined
# where Landlock cannot confine every thread.  A kernel solution needs none of them.
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}


def allowed_environment(env: dict) -> dict:
    """The variables of ``env`` a worker may see (the rest are dropped, not blanked)."""
    return {name: value for name, value in env.items()
            if name not in ENV_SECRETS and (name in ENV_NAMES or name.startswith(ENV_PREFIXES))}


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
