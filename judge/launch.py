"""The ``judge`` console script and ``python -m judge``.

A command the judge server serves (``run``, ``rank``, ``watch``) is handed to it
when one is running (judge/server/client.py); anything else, or with no server,
runs here through the click group (judge/cli).  A ``run`` or ``rank`` that found
no server starts one when it ends, for the next (judge/server/autostart.py).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from judge.base import signals

    signals.install()  # first: a SIGTERM or Ctrl-C from here on stops the command cleanly (judge/base/signals.py)
    from judge.base.trace import mark

    mark("client starts")
    from judge.server.client import run_served

    code = run_served(sys.argv[1:])
    mark("client has the exit status" if code is not None else "no server: judging here")
    if code is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        if code < 0:  # the command was killed by a signal: so is this process, as its caller expects
            import signal

            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
            code = 128 - code
        os._exit(code)
    from judge.server import autostart

    then = autostart.start_in_background if autostart.wanted(sys.argv[1:]) else None
    from judge.cli import entry

    entry(then=then)
