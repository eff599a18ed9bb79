"""Waiting for a solution file to be saved again (``judge watch``).

With the optional ``watchfiles`` package (``pip install 'judge[watch]'``) the
operating system says when the file changes; without it, or with ``--poll``,
the file's status is read every ``POLL_S`` seconds.  Either way a save is a
change of the file's modification time, size or inode (editors that save by
renaming a new file over the old one change the inode), so that the several
events of one save count once, and a save while a judgement runs is not lost.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

__all__ = ["FileWatcher", "signature", "have_watchfiles"]

POLL_S = 0.1  # a stat() ten times a second costs nothing measurable
# A save is judged once the file has stopped changing for this long: an editor
# that writes in pieces is not judged half-written.
SETTLE_S = 0.05


def signature(path: Path) -> tuple | None:
    """What changes when the file is saved; None while it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def have_watchfiles() -> bool:
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        return False
    return True


class FileWatcher:
    """``wait(since)`` returns once the file's signature differs from ``since``."""

    def __init__(self, path: str, poll: bool = False):
        self.path = Path(path).resolve()
        self.stop_event = threading.Event()
        self.backend = "polling" if poll or not have_watchfiles() else "watchfiles"
        self._events = None

    def wait(self, since: tuple | None) -> tuple:
        """Block until a save; the new signature."""
        while True:
            current = signature(self.path)
            if current is not None and current != since:
                return self._settled(current)
            self._sleep_until_an_event()

    def _settled(self, current: tuple) -> tuple:
        while True:
            time.sleep(SETTLE_S)
            again = signature(self.path)
            if again == current and again is not None:
                return again
            current = again

    def _sleep_until_an_event(self) -> None:
        if self.backend == "polling":
            time.sleep(POLL_S)
            return
        if self._events is None:
            import watchfiles

            target = str(self.path)
            # The folder, not the file: a save by rename replaces the file being watched.
            self._events = watchfiles.watch(self.path.parent, watch_filter=lambda _, p: p == target,
                                            stop_event=self.stop_event, rust_timeout=1000,
                                            yield_on_timeout=True, debounce=200, step=20)
        next(self._events, None)

    def close(self) -> None:
        self.stop_event.set()
        if self._events is not None:
            self._events.close()
            self._events = None
