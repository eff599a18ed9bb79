"""Every submission of a grade read once, before any is graded: what is judged is that copy.

A submission's solution must be a regular file inside its submission: a
symbolic link (git keeps them) or a path whose folders lead outside the
grading root is ``invalid_submission``, said plainly, and nothing of where it
points is read.  The snapshot holds the solution's bytes and those of its
helper modules (regular ``_*.py`` files beside it, as ``judge grade --dir``
allows, and ``_*.cuh``/``_*.h`` headers for a CUDA C++ solution), with the solution's sha256 (recorded in the grade's JSON).  Each
submission is judged from a private folder written from its snapshot
(``Snapshot.write``), which its worker may read and no other worker can
(docs/security.md): no submission reads or rewrites another's files, or the
originals.  The snapshot travels inside a ``--cluster`` task, so workers no
longer need the submissions on a shared filesystem.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from judge.base.solution_file import MAX_SOLUTION_BYTES, source_problem, too_large

__all__ = ["Snapshot", "take", "MAX_HELPERS"]

MAX_BYTES = MAX_SOLUTION_BYTES  # larger is no solution
MAX_HELPERS = 16
HELPER_SUFFIXES = (".py", ".cuh", ".h")


@dataclass(frozen=True)
class Snapshot:
    name: str  # the solution's file name
    files: tuple  # (name, bytes) pairs: the solution first, then its helpers
    sha256: str  # of the solution's bytes

    def write(self, folder: Path) -> Path:
        """Write the files into ``folder`` (read-only); the solution's path there."""
        for name, data in self.files:
            target = folder / name
            target.write_bytes(data)
            target.chmod(0o400)
        return folder / self.name


def take(path: str, root: str | None = None) -> tuple[Snapshot | None, str]:
    """``(snapshot, "")``, or ``(None, why the file cannot be judged)``.

    ``root``: the folder the submission must lie in (``--dir``'s folder, a manifest's);
    None: the file itself must still be no link.
    """
    problem = _outside(path, root)
    if problem:
        return None, problem
    try:
        data = _read_regular(path)
    except _NotRegular as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror or exc}"
    problem = source_problem(path, data)
    if problem:
        return None, problem
    files = [(os.path.basename(path), data), *_helpers(path)]
    return Snapshot(os.path.basename(path), tuple(files), hashlib.sha256(data).hexdigest()), ""


class _NotRegular(Exception):
    pass


def _outside(path: str, root: str | None) -> str:
    """Why ``path``'s folder lies outside ``root`` through a link ("" when it does not)."""
    if root is None:
        return ""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    base = os.path.realpath(root)
    if os.path.commonpath([folder, base]) != base:
        return (f"{path} lies outside the submissions ({root}) once its folders' links are followed: "
                "a submission's files must be regular files inside it")
    return ""


def _read_regular(path: str) -> bytes:
    """The file's bytes, opened without following a link, and only if it is a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the last component is a symbolic link
            raise _NotRegular(f"{path} is a symbolic link: a submission's files must be regular files inside "
                              "it (replace the link with the file itself)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegular(f"{path} is not a regular file")
        if info.st_size > MAX_BYTES:
            raise _NotRegular(too_large(path))
        chunks, left = [], MAX_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _helpers(path: str) -> list[tuple[str, bytes]]:
    """The regular ``_*.py`` (and ``_*.cuh``, ``_*.h``) files beside the solution (links and other files are
    left out)."""
    folder = os.path.dirname(os.path.abspath(path))
    found = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if not (name.startswith("_") and name.endswith(HELPER_SUFFIXES)) or name == os.path.basename(path):
            continue
        try:
            found.append((name, _read_regular(os.path.join(folder, name))))
        except (OSError, _NotRegular):
            continue
        if len(found) >= MAX_HELPERS:
            break
    return found
