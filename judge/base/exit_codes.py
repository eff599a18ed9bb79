"""The judge's exit statuses, one table for every command (README, "Exit status")."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """What a `judge` command's exit status means; CI should read it before any report."""

    OK = 0            # every solution accepted (grade: --min-pass met); a check that passed
    FAILED = 1        # a verdict other than accepted, a failed check, nothing to report on
    USAGE = 2         # a mistake in what was asked: bad option, missing file, bad YAML (click's own usage errors too)
    INTERNAL = 3      # the judge's own bug: a one-paragraph message, the traceback with --debug
    INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report it; what was finished is kept
    # another signal S ends a command through its clean-up with 128 + S (base/signals.py: 143 for SIGTERM)
