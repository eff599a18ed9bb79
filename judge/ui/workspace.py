"""Drafts as files in one workspace folder: ``<workspace>/<challenge>/<file>``.

The files are the drafts, so ``judge run``/``watch`` in a terminal judge the file the page
edits, and the page notices edits made elsewhere by the file's modification time.
Nothing is ever written outside the workspace: names are checked, then the
resolved path (links followed) must still lie inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from judge.grading.outputs import write_atomically

__all__ = ["Workspace", "WorkspaceError", "Draft", "SUFFIXES"]

SUFFIXES = (".py", ".cu")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
MAX_DRAFT_BYTES = 1_000_000


class WorkspaceError(ValueError):
    """A draft name that would leave the workspace, or that the judge cannot run."""


@dataclass(frozen=True)
class Draft:
    path: Path
    text: str
    mtime_ns: int


def folder_name(challenge: str) -> str:
    """The draft folder of a challenge name or a LeetGPU folder's path: its last part, made a plain name."""
    last = challenge.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", last).lstrip(".-_")
    return cleaned or "challenge"


class Workspace:
    def __init__(self, root: str | Path):
        self.root = Path(root).expanduser().resolve()

    def path_of(self, challenge: str, file: str) -> Path:
        """Where ``file`` of ``challenge`` lives; WorkspaceError for a name that is not a plain .py/.cu file
        name or a path that, links followed, leaves the workspace."""
        if not _NAME.match(file or "") or not file.endswith(SUFFIXES):
            raise WorkspaceError(f"draft names are plain file names ending in {' or '.join(SUFFIXES)}: {file!r}")
        path = self.root / folder_name(challenge) / file
        resolved = path.resolve()
        if not resolved.is_relative_to(self.root):
            raise WorkspaceError(f"{file!r} would be written outside the workspace {self.root}")
        return resolved

    def read(self, challenge: str, file: str) -> Draft | None:
        path = self.path_of(challenge, file)
        if not path.is_file():
            return None
        return Draft(path, path.read_text(encoding="utf-8", errors="replace"), path.stat().st_mtime_ns)

    def mtime_ns(self, challenge: str, file: str) -> int | None:
        path = self.path_of(challenge, file)
        return path.stat().st_mtime_ns if path.is_file() else None

    def write(self, challenge: str, file: str, text: str) -> Draft:
        if len(text.encode("utf-8")) > MAX_DRAFT_BYTES:
            raise WorkspaceError(f"a draft holds at most {MAX_DRAFT_BYTES} bytes")
        path = self.path_of(challenge, file)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.parent.resolve().is_relative_to(self.root):  # a folder link made after the check
            raise WorkspaceError(f"{file!r} would be written outside the workspace {self.root}")
        # Written beside and renamed: judge watch never sees half a file, and the file beside is a new one
        # (never a link already there, which would carry the text outside the workspace).  An existing
        # draft keeps its mode; a new one is the owner's only.
        write_atomically(path, text, path.stat().st_mode & 0o777 if path.is_file() else 0o600)
        return Draft(path, text, path.stat().st_mtime_ns)

    def files(self, challenge: str) -> list[str]:
        folder = self.root / folder_name(challenge)
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if p.suffix in SUFFIXES and _NAME.match(p.name))
