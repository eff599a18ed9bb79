"""What ``judge grade`` grades: its arguments (CHALLENGE FILE..., --manifest or --dir)
turned into entries, each submission's files read once, and the challenges' specs loaded.

A mistake in what was asked raises GradeError, which the CLI shows as a usage
error (exit 2); a submission that cannot be judged is no mistake of the
organiser's and becomes its entry's problem (graded invalid_submission).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

from judge.base.solution_file import SolutionFileError, check_solution_file
from judge.grading.submissions import ChallengeResolver, Entry, ManifestError, discover, entries_for, missing_entries, \
    parse_manifest

__all__ = ["GradeError", "Echo", "file_problem", "plan_entries", "snapshot_entries", "load_specs",
           "manifest_requires_kernel"]

# click.echo's signature: echo(text) writes a line to stdout, echo(text, err=True) to stderr
Echo = Callable[..., None]


class GradeError(ValueError):
    """A mistake in what ``judge grade`` was asked; the message says what (the CLI exits 2)."""


def file_problem(path: str) -> str:
    """Why a listed solution cannot be judged ("" when it can): graded, not fatal."""
    if not Path(path).exists():
        return f"no submission: {path} does not exist"
    try:
        check_solution_file(path)
    except SolutionFileError as exc:
        return str(exc)
    return ""


def _files_plan(challenge: str, files: tuple, resolver: ChallengeResolver) -> list[Entry]:
    if not files:
        raise GradeError("give the solution files to grade: judge grade CHALLENGE FILE...")
    if len(set(files)) != len(files):
        twice = next(f for f in files if files.count(f) > 1)
        raise GradeError(f"{twice} is given twice")
    try:
        spec_path = resolver.resolve(challenge, Path.cwd())
    except LookupError as exc:
        raise GradeError(str(exc)) from None
    try:  # files named on the command line must all be solutions: a typo stops the grade
        return [Entry(f, challenge, check_solution_file(f), spec_path) for f in files]
    except SolutionFileError as exc:
        raise GradeError(str(exc)) from None


def _manifest_plan(manifest: str, search) -> list[Entry]:
    path = Path(manifest)
    try:
        resolver, items = parse_manifest(path.read_text(encoding="utf-8"), manifest, path.parent, search)
    except (ManifestError, UnicodeDecodeError) as exc:
        raise GradeError(f"invalid manifest {exc}" if isinstance(exc, ManifestError)
                         else f"{manifest} is not UTF-8 text") from None
    entries = entries_for(items, resolver, file_problem, path.parent)
    return [replace(e, missing=True) if e.problem and not Path(e.path).exists() else e for e in entries]


def _directory_plan(directory: str, resolver: ChallengeResolver, echo: Echo) -> list[Entry]:
    """Every ``<who>`` folder's solutions; a folder without any is graded ``no_submission`` (it was skipped
    without a word: 10 folders, 9 results)."""
    items, warnings, empty = discover(Path(directory))
    for warning in warnings:
        echo(f"warning: {warning}", err=True)
    if not items:
        raise GradeError(f"no submissions found: expected {directory}/<who>/<challenge>.py")
    entries = entries_for(items, resolver, file_problem)
    missing = missing_entries(empty, entries, Path(directory))
    return sorted(entries + missing, key=lambda entry: entry.submission)  # stable: challenges keep their order


def _kernelbench_run_plan(run: str, search, echo: Echo) -> list[Entry]:
    """KernelBench's generations, ``RUN/level_<L>_problem_<id>_sample_<s>_kernel.py``, each with its problem found by
    level and id under the search path's folders (--challenges-dir); submission ``<run>/sample_<s>``."""
    from judge.challenge.kernelbench import find_by_id
    from judge.grading.kernelbench_runs import parse_generation

    roots = [folder for folder in search.user_dirs]
    if not roots:
        raise GradeError("--kernelbench-run needs KernelBench's problems: give the checkout's KernelBench/ folder with "
                         "--challenges-dir (judge --challenges-dir KernelBench/KernelBench grade --kernelbench-run RUN)")
    found = []
    for path in sorted(Path(run).iterdir()):
        named = parse_generation(path.name)
        if named is not None:
            found.append((named, path))
        elif path.suffix == ".py":
            echo(f"warning: ignored {path}: not a generation (level_<L>_problem_<id>_sample_<s>_kernel.py)", err=True)
    if not found:
        raise GradeError(f"no KernelBench generations in {run}: expected {run}/level_<L>_problem_<id>_sample_<s>_kernel.py "
                         "(KernelBench's runs/<run> layout)")
    entries = []
    for (level, problem, sample), path in sorted(found):
        who, spec = f"{Path(run).name}/sample_{sample}", find_by_id(roots, level, problem)
        if spec is None:
            entries.append(Entry(who, f"level{level}/{problem}", str(path), None,
                                 f"no problem {problem} of level {level} (level{level}/{problem}_*.py) under "
                                 f"{', '.join(str(r) for r in roots)}"))
        else:
            entries.append(Entry(who, spec.stem, str(path), str(spec), file_problem(str(path))))
    return sorted(entries, key=lambda entry: entry.submission)  # stable: problems keep their order


def plan_entries(challenge, files, manifest, directory, search_path: Callable, echo: Echo,
                 kernelbench_run: str | None = None) -> list[Entry]:
    """The entries to grade, from exactly one of: CHALLENGE FILE..., --manifest, --dir, --kernelbench-run.

    ``search_path()`` gives the challenge search path (--challenges-dir, $JUDGE_CHALLENGES_PATH,
    built-ins); it is asked only once the arguments make sense, so their error comes first.
    ``echo`` shows the warnings of --dir's discovery."""
    if sum(bool(x) for x in (challenge, manifest, directory, kernelbench_run)) != 1:
        raise GradeError("say what to grade with exactly one of: CHALLENGE FILE...,  --manifest FILE,  --dir FOLDER,  "
                         "--kernelbench-run RUN")
    from judge.challenge.catalog import ChallengeConflict

    search = search_path()
    try:
        if kernelbench_run:
            return snapshot_entries(_kernelbench_run_plan(kernelbench_run, search, echo), kernelbench_run)
        if manifest:
            return snapshot_entries(_manifest_plan(manifest, search), str(Path(manifest).parent))
        resolver = ChallengeResolver(search=search)
        if directory:
            return snapshot_entries(_directory_plan(directory, resolver, echo), directory)
        return snapshot_entries(_files_plan(challenge, files, resolver), None)
    except ChallengeConflict as exc:
        raise GradeError(str(exc)) from None


def manifest_requires_kernel(manifest: str | None) -> bool:
    """Whether a manifest (already validated by plan_entries) says ``require_kernel: true``."""
    from judge.grading.submissions import manifest_require_kernel

    return bool(manifest) and manifest_require_kernel(Path(manifest).read_text(encoding="utf-8"))


def snapshot_entries(entries: list[Entry], root: str | None) -> list[Entry]:
    """Every entry's files read now, before any is graded (grading/snapshot.py); a link or a file
    outside ``root`` becomes the entry's problem (invalid_submission)."""
    from judge.grading import snapshot

    taken = []
    for entry in entries:
        if entry.problem:
            taken.append(entry)
            continue
        copy, problem = snapshot.take(entry.path, root)
        taken.append(replace(entry, snapshot=copy, problem=problem))
    return taken


def load_specs(entries: list[Entry]) -> dict:
    """spec path -> Spec (a LeetGPU challenge folder too); a broken spec is the organiser's mistake (GradeError)."""
    from judge.challenge.catalog import UnknownChallenge, load_challenge
    from judge.challenge.spec import SpecError

    specs = {}
    for entry in entries:
        if entry.spec_path and entry.spec_path not in specs:
            try:
                specs[entry.spec_path] = load_challenge(entry.spec_path)
            except (SpecError, UnknownChallenge) as exc:
                raise GradeError(str(exc)) from None
    return specs
