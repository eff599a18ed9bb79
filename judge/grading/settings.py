"""The settings of one ``judge grade`` that are not plain options: the pass rule, the
public and secret seeds, and the earlier results that --resume carries on from."""

from __future__ import annotations

import os
import random
from pathlib import Path

from judge.grading.plan import Echo, GradeError
from judge.grading.pool import make_undumpable
from judge.grading.records import PassRule, load_previous, parse_min_pass

__all__ = ["pass_rule", "take_secret", "read_previous", "public_seed"]


def pass_rule(min_pass: str | None) -> PassRule:
    """--min-pass as a PassRule (all results by default)."""
    if min_pass is None:
        return PassRule()
    try:
        return parse_min_pass(min_pass)
    except ValueError as exc:
        raise GradeError(f"--min-pass: {exc}") from None


def take_secret(env_name: str, echo: Echo) -> str:
    """The secret seed, removed from our environment: workers inherit it, and a
    submission could read it there.  Also makes this process non-dumpable, so a
    submission running as the same (non-root) user cannot read it from
    /proc/<judge>/environ either.  ``echo`` warns of a variable set but empty."""
    present = env_name in os.environ
    secret = os.environ.pop(env_name, "").strip()
    if present and not secret:  # e.g. a CI secret that is not passed to this workflow
        echo(f"warning: ${env_name} is set but empty: grading with the public seed only", err=True)
    if secret:
        make_undumpable()
    return secret


def read_previous(json_path: str | None) -> dict | None:
    """The earlier grade document for --resume; None when there is none yet."""
    if not json_path or json_path == "-":
        raise GradeError("--resume reads the results back from the --json FILE: give one (not '-')")
    path = Path(json_path)
    if not path.exists():
        return None
    try:
        return load_previous(path.read_text(encoding="utf-8"), json_path)
    except (ValueError, OSError) as exc:
        raise GradeError(f"cannot resume: {exc}; delete it or drop --resume") from None


def public_seed(seed: int | None, previous: dict | None) -> int:
    """--seed; else the seed of the run being resumed; else a fresh one (shared by all entries)."""
    if seed is not None:
        return seed
    earlier = ((previous or {}).get("seed") or {}).get("public")
    if isinstance(earlier, int):
        return earlier
    return random.SystemRandom().randrange(2**31)


def require_sandbox(no_sandbox: bool) -> None:
    """A grade runs code it does not trust: it refuses to start where the worker's sandbox cannot hold
    (Landlock or seccomp unavailable) unless told to grade without it (``--no-sandbox``, or
    JUDGE_SANDBOX=0, which also turns the layers off).  GradeError (exit 2) names both ways."""
    from judge.defence.policy import missing_layers
    from judge.defence.switches import SANDBOX_ENV

    off = [] if no_sandbox else missing_layers()
    if off:
        raise GradeError(
            f"judge grade runs submissions it does not trust and will not grade without a working sandbox, and "
            f"here {'; '.join(off)}. Install its bindings (pip install landlockpy pyseccomp, on Linux >= 5.13 "
            f"for Landlock) or grade without it on purpose: --no-sandbox (the layers that work still hold), or "
            f"{SANDBOX_ENV}=0 (none of them); docs/security.md says what a submission can then do")
