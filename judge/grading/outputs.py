"""The files a ``judge grade`` writes (--json, --junit, --summary, GitHub's step summary):
the one place that writes them, rewritten whole after every submission."""

from __future__ import annotations

import json
import math
import os
import tempfile
import threading
from contextlib import suppress
from pathlib import Path

from judge.grading.plan import Echo, GradeError
from judge.report.json_export import run_to_json
from judge.report.junit import grade_to_junit
from judge.report.markdown import grade_to_markdown

__all__ = ["GradeOutputs", "write_atomically", "eval_results_json"]


def eval_results_json(doc: dict) -> str:
    """KernelBench's runs/<run>/eval_results.json from the grade document (grading/kernelbench_runs.py), written as
    its evaluator writes it (indent 4)."""
    from judge.grading.kernelbench_runs import eval_results

    return json.dumps(_finite(eval_results(doc.get("results") or [])), indent=4)


def _finite(value):
    """JSON has no NaN or infinity: null instead, so that every reader parses the file."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def write_atomically(path: Path, text: str, mode: int = 0o644) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path`` with ``mode``:
    readers, and a run killed mid-write, see the old file or the new one, never half.  The
    temporary file is always a new one (mkstemp's O_EXCL), never a link planted beside ``path``.
    The default 0644, not mkstemp's 0600: a CI artifact must not be hidden from other users.
    Missing parent folders are made (``--junit out/junit.xml`` with no ``out/`` wrote no report at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


class GradeOutputs:
    """--json/--junit/--summary, rewritten together after every submission.

    ``echo`` (click.echo's signature) prints the JSON for ``--json -`` and the
    warning of a step summary that cannot be written."""

    def __init__(self, json_path: str | None, junit_path: str | None, summary_path: str | None, echo: Echo,
                 eval_results_path: str | None = None):
        self.json_to_stdout = json_path == "-"
        self.echo = echo
        self.exporters = [(Path(p), render) for p, render in (
            (None if self.json_to_stdout else json_path, run_to_json), (junit_path, grade_to_junit),
            (summary_path, grade_to_markdown), (eval_results_path, eval_results_json)) if p]
        paths = [p.resolve() for p, _ in self.exporters]
        if len(set(paths)) != len(paths):
            raise GradeError("--json, --junit and --summary must name different files (and none RUN/eval_results.json "
                             "with --kernelbench-run)")
        self.lock = threading.Lock()

    def write(self, doc: dict, first: bool = False) -> None:
        """Every output file from ``doc``; ``first``: before any grading, where a file that
        cannot be written is a usage error (GradeError), not lost work."""
        with self.lock:
            for path, render in self.exporters:
                try:
                    write_atomically(path, render(doc))
                except OSError as exc:
                    if first:
                        raise GradeError(f"cannot write {path}: {exc.strerror or exc}") from None
                    raise

    def finish(self, doc: dict) -> None:
        """The last write, the JSON on stdout for ``--json -``, and GitHub's step summary."""
        self.write(doc)
        if self.json_to_stdout:
            self.echo(run_to_json(doc))
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary:  # appended once, at the end: GitHub shows the file as the job's summary
            try:
                with open(step_summary, "a", encoding="utf-8") as stream:
                    stream.write(grade_to_markdown(doc) + "\n")
            except OSError as exc:
                self.echo(f"warning: cannot append to $GITHUB_STEP_SUMMARY ({step_summary}): {exc}", err=True)
