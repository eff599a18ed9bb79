# Hostile (issue 38's red team, as root): seccomp's deny-list left fanotify, syslog and sethostname open, and
# root kept its capabilities inside the sandbox: the worker could watch which files any process opens, read
# the kernel's log and rename the machine.  Now every capability is dropped and seccomp is an allow-list.
# It sets the host name to the one it already has: nothing changes whatever happens.
import ctypes
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)


def _try(name, call):
    result = call()
    return f"{name}: " + ("allowed" if result >= 0 else os.strerror(ctypes.get_errno()))


def solve(input, output, rows, cols):
    output.copy_(input.T)
    name = socket.gethostname().encode()
    found = [
        _try("fanotify_init", lambda: libc.syscall(300, 0, 0)),  # FAN_CLASS_NOTIF, O_RDONLY (x86_64)
        _try("syslog", lambda: libc.klogctl(10, None, 0)),  # SYSLOG_ACTION_SIZE_BUFFER
        _try("sethostname", lambda: libc.sethostname(name, len(name))),
        _try("setdomainname", lambda: libc.setdomainname(b"(none)", 6)),
    ]
    raise RuntimeError("; ".join(found))
