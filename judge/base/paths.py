"""Where the judge keeps its files: the cache folder, and folders only this user may write in."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "data_dir", "private_folder"]


def cache_dir() -> Path:
    """What the judge may rebuild (peaks, baselines, compiled kernels, the server's socket):
    ``$JUDGE_CACHE_DIR``, else ``$JUDGE_HOME/cache``, else ``$XDG_CACHE_HOME/judge``, else ``~/.cache/judge``."""
    if os.environ.get("JUDGE_CACHE_DIR"):
        return Path(os.environ["JUDGE_CACHE_DIR"])
    if os.environ.get("JUDGE_HOME"):
        return Path(os.environ["JUDGE_HOME"]) / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "judge"


def data_dir() -> Path:
    """What the judge keeps (the history): ``$JUDGE_DATA_DIR``, else ``$JUDGE_HOME/data``, else
    ``$XDG_DATA_HOME/judge``, else ``~/.local/share/judge``."""
    if os.environ.get("JUDGE_DATA_DIR"):
        return Path(os.environ["JUDGE_DATA_DIR"])
    if os.environ.get("JUDGE_HOME"):
        return Path(os.environ["JUDGE_HOME"]) / "data"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "judge"


def private_folder(path: Path) -> bool:
    """Make ``path`` (mode 0700) if missing; whether it is ours and no one else may write in it.
    A socket, or bytecode Python will trust, must not sit where another user can replace it."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.lstat(path)
    except OSError:
        return False
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022
