"""Opt-in time marks across the judge's processes, for scripts/served_trace.sh.

With JUDGE_TRACE naming a file, ``mark(label)`` appends ``<wall clock> <pid> <label>``
to it (client, server, forked command and worker alike: the clock is the machine's);
without it, a mark costs one lookup in the environment.
"""

from __future__ import annotations

import os
import time

TRACE_ENV = "JUDGE_TRACE"


def mark(label: str) -> None:
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    try:
        with open(path, "a") as out:
            out.write(f"{time.time():.4f} {os.getpid()} {label}\n")
    except OSError:
        pass
