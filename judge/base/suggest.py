""""Did you mean ...?" for a name that is not there: a challenge, a path, a case, a size.  Pure: no I/O
(the callers list what is there)."""

from __future__ import annotations

import difflib

__all__ = ["closest", "did_you_mean"]


def closest(name: str, candidates) -> str | None:
    """The candidate ``name`` most likely meant: one equal to it but for case (``19_relu.py`` for
    ``19_ReLU.py``), else the closest by difflib's ratio (at least 0.6), else None."""
    candidates = list(dict.fromkeys(candidates))
    folded = [c for c in candidates if c.casefold() == name.casefold() and c != name]
    if folded:
        return folded[0]
    found = difflib.get_close_matches(name, [c for c in candidates if c != name], n=1, cutoff=0.6)
    if found:
        return found[0]
    squeezed = {c.replace("_", "").replace("-", "").casefold(): c for c in candidates}  # 1_vectoradd, 1_vector_add
    return squeezed.get(name.replace("_", "").replace("-", "").casefold())


def did_you_mean(name: str, candidates) -> str:
    """`` (did you mean 'transpose'?)``, or "" when nothing is close."""
    found = closest(name, candidates)
    return f" (did you mean '{found}'?)" if found else ""
