"""The ``judge`` command line: thin click commands over the pipeline.

Each command group lives in its own module and registers itself here.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import Callable

from judge.cli.base import JudgeGroup, main_group
from judge.base.trace import mark
from judge.cli import challenges as _challenges  # noqa: F401 - registers list/show/init
from judge.cli import run as _run  # noqa: F401 - registers run
from judge.cli import watch as _watch  # noqa: F401 - registers watch
from judge.cli import authoring as _authoring  # noqa: F401 - registers new and validate
from judge.cli import grade as _grade  # noqa: F401 - registers grade
from judge.cli import worker as _worker  # noqa: F401 - registers worker (Dask workers for grade --cluster)
from judge.cli import rank as _rank  # noqa: F401 - registers rank and sweep
from judge.cli import history as _history  # noqa: F401 - registers leaderboard and history
from judge.cli import server as _server  # noqa: F401 - registers server start/stop/status
from judge.cli import ui as _ui  # noqa: F401 - registers ui (the browser workspace; its extra is optional)
from judge.cli import profile as _profile  # noqa: F401 - registers profile (judge/judging/profile.py)
from judge.cli import doctor as _doctor  # noqa: F401 - registers doctor

main = main_group

__all__ = ["main", "entry", "JudgeGroup"]


def entry(args: list[str] | None = None, then: Callable[[int], None] | None = None,
          status_fd: int | None = None) -> None:
    """The ``judge`` console script and ``python -m judge``: the click group, then a quick exit.

    Tearing down an interpreter that imported torch takes about a second (module
    finalisation, not work of the judge's): after the command has finished and
    the exit handlers have run, the output is flushed and the process ends at once.
    ``then`` is called with the exit status once the output is out (the launcher
    starts a judge server there: judge/server/autostart.py).  ``status_fd``: a command
    the judge server forked writes its exit status there before its process ends
    (judge/daemon/daemon.py), so that its client does not wait for the teardown.
    """
    from judge.base import signals
    from judge.base.bytecode import keep_bytecode
    from judge.base.profiling import profiled
    from judge.defence.sandbox import set_dumpable

    signals.install()  # SIGTERM and Ctrl-C stop the command through its clean-up, whenever they come
    signals.on_abandon(_stop_workers_now)  # a signal during a slow import (torch) ends the command at once
    keep_bytecode()  # before torch is imported: where Python may not write bytecode, a thousand modules compile
    set_dumpable(False)  # no solution's process can open this one's /proc/<pid>/fd, mem or environ (docs/security.md)
    code = profiled("judge", _run_main, args)
    if code is not None and not isinstance(code, int):  # sys.exit("message"), as Python prints it
        print(code, file=sys.stderr)
        code = 1
    _skip_library_finalizers()
    atexit._run_exitfuncs()  # history connections, temporary folders, logging; workers left (worker/client.py)
    _flush()
    code = signals.status(code or 0)  # a signal taken from here on is not raised: it sets the status
    if then is not None:
        then(code)
        _flush()
    if status_fd is not None:
        _tell_status(status_fd, code)
    mark("process ends")
    _end_process(code)


def _tell_status(fd: int, code: int) -> None:
    """A command the judge server forked tells its exit status before its process ends (through the
    server, to the waiting client), having let go of the client's terminal: ending a process that
    holds a CUDA context takes 0.1-0.2 s, which the user's shell no longer waits for."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)
        os.close(null)
        os.write(fd, str(code).encode())
        os.close(fd)
    except OSError:  # the server is gone: the client hears so and says it
        pass


def _stop_workers_now() -> None:
    """The command is abandoned in an import (base/signals.py): its workers go, as at its exit (the atexit
    function of worker/client.py, which it has not reached), their trees killed and their folders removed.
    Imports nothing: without judge.worker.client imported there is no worker."""
    client = sys.modules.get("judge.worker.client")
    stop = getattr(client, "_stop_live_workers", None)
    if stop is not None:
        stop()


def _skip_library_finalizers() -> None:
    """Torch undoes each ``torch.library.Library``'s operator registrations at exit (weakref finalizers,
    25 ms on a CPU) for a process that is about to end without running any operator again."""
    import weakref

    torch_library = sys.modules.get("torch.library")
    undo = getattr(torch_library, "_del_library", None)
    registry = getattr(weakref.finalize, "_registry", None)  # CPython's, since 3.4
    if undo is None or not isinstance(registry, dict):
        return
    for finalizer, info in list(registry.items()):
        if getattr(info, "func", None) is undo:
            finalizer.atexit = False


def _end_process(code: int) -> None:
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (judge list | head): nothing left to say
            pass


def _run_main(args):
    from judge.base import signals
    from judge.base.exit_codes import ExitCode

    try:
        with signals.interruptible():  # where a signal's exception is raised (one taken before: at once)
            main_group.main(args=args, prog_name="judge")  # standalone mode: always ends in SystemExit
        return 0
    except SystemExit as exc:
        return exc.code
    except KeyboardInterrupt:  # Ctrl-C taken before the command began, raised as it begins
        return ExitCode.INTERRUPTED
