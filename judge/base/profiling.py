"""An opt-in cProfile of the judge's process and of its workers, for scripts/profile_run.sh.

With JUDGE_PROFILE_DIR naming a folder, ``judge`` and each worker leave a
``ROLE-PID.prof`` there; without it nothing is imported or changed.
"""

from __future__ import annotations

import os

PROFILE_DIR_ENV = "JUDGE_PROFILE_DIR"


def profiled(role: str, function, *args):
    """``function(*args)``, under cProfile when JUDGE_PROFILE_DIR is set."""
    folder = os.environ.get(PROFILE_DIR_ENV)
    if not folder:
        return function(*args)
    import cProfile

    profile = cProfile.Profile()
    try:
        return profile.runcall(function, *args)
    finally:
        os.makedirs(folder, exist_ok=True)
        profile.dump_stats(os.path.join(folder, f"{role}-{os.getpid()}.prof"))
