"""What describing a KernelBench problem found, kept between commands: its tensors at the file's sizes
and at CPU mode's (kernelbench.load_problem, kernelbench.sized), so that ``judge show`` and ``judge
list`` of a problem described before run none of its code and import no torch.

Describing a problem runs its file and its forward on torch's meta device: importing torch (1.5 s),
then torch._dynamo, which the meta device's first decomposition imports (1.5 s), and for CPU mode one
run per halving of its sizes (level 3's LSTMs: 11 s each, 40 s in all).  The key is the problem's text,
the torch and judge versions and what was described; an entry is one small JSON file in the judge's
cache folder (docs/kernelbench.md).  An unreadable or unwritable cache only costs describing again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from importlib import metadata

from judge import __version__
from judge.base.paths import cache_dir

__all__ = ["read", "write", "SCHEMA"]

SCHEMA = 1  # bump when what a description holds changes


@functools.lru_cache(maxsize=1)
def _torch_version() -> str:
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "?"


def _path(text: str, what: str):
    key = f"{SCHEMA}|judge {__version__}|torch {_torch_version()}|{what}|{text}"
    return cache_dir() / "kernelbench" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def read(text: str, what: str) -> dict | None:
    """The description of ``what`` (``meta``, ``cpu 262144``) of the problem ``text``; None if none is kept."""
    try:
        data = json.loads(_path(text, what).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write(text: str, what: str, data: dict) -> None:
    """Keep ``data`` (JSON) as the description of ``what`` of ``text``; silently nothing where it cannot be."""
    path = _path(text, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(json.dumps(data))
        os.replace(temporary, path)
    except OSError:
        pass
