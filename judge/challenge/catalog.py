"""Finding challenges: built-in specs and user challenge folders by name, or a
spec file by path.

The search path is the user's folders (``--challenges-dir``, then the
``JUDGE_CHALLENGES_PATH`` environment variable, ``os.pathsep``-separated) and
then the built-in challenges.  Every ``*.yaml``/``*.yml`` file in a folder is a
spec; a file with ``variants:`` provides several challenges.  Two challenges of
the same name are an error, except that ``prefer_user`` lets a user challenge
replace a built-in one of the same name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from judge.base.suggest import closest, did_you_mean
from judge.challenge.spec import Spec, SpecError, load_spec, load_specs

__all__ = ["builtin_dir", "find_spec_path", "load_challenge", "list_challenges", "list_entries",
           "UnknownChallenge", "ChallengeConflict", "CatalogError", "SearchPath", "Entry", "ENV_VAR",
           "BUILTIN", "is_spec_path"]

ENV_VAR = "JUDGE_CHALLENGES_PATH"
BUILTIN = "built-in"
SPEC_SUFFIXES = (".yaml", ".yml")


class UnknownChallenge(LookupError):
    """No challenge of that name on the search path and no such spec file."""


class CatalogError(ValueError):
    """A search path that cannot be used (a folder that does not exist)."""


class ChallengeConflict(LookupError):
    """Two challenges of the same name on the search path."""


@dataclass(frozen=True)
class SearchPath:
    """User challenge folders (searched first) and whether they may replace built-ins."""

    user_dirs: tuple = ()
    prefer_user: bool = False

    @classmethod
    def from_environment(cls, extra_dirs=(), prefer_user: bool = False, environ=None) -> "SearchPath":
        """``extra_dirs`` (the --challenges-dir flags), then $JUDGE_CHALLENGES_PATH's folders."""
        env = os.environ if environ is None else environ
        listed = [(str(d), "--challenges-dir") for d in extra_dirs]
        listed += [(p, ENV_VAR) for p in env.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
        dirs, seen = [], set()
        for text, origin in listed:
            folder = Path(text).expanduser()
            if not folder.is_dir():
                raise CatalogError(f"{origin} names {text}, which is not a folder; give folders that hold "
                                   "challenge .yaml specs")
            key = folder.resolve()
            if key not in seen and key != builtin_dir().resolve():
                seen.add(key)
                dirs.append(folder)
        return cls(tuple(dirs), prefer_user)

    def folders(self) -> list[tuple[Path, str]]:
        """(folder, origin) in search order; origin is the folder's path or 'built-in'."""
        return [(d, str(d)) for d in self.user_dirs] + [(builtin_dir(), BUILTIN)]


@dataclass
class Entry:
    """One challenge on the search path, or one spec file that does not load."""

    name: str
    path: Path  # the YAML file
    origin: str  # "built-in" or the user folder it came from
    spec: Spec | None = None
    error: SpecError | None = None
    status: str = "ok"  # ok, invalid, conflict, shadowed (a built-in replaced by --prefer-user)
    others: list = field(default_factory=list)  # the other entries of the same name

    @property
    def is_builtin(self) -> bool:
        return self.origin == BUILTIN


def builtin_dir() -> Path:
    """The built-in specs: the source tree's top-level challenges/ (a checkout run with ``PYTHONPATH=.``,
    uninstalled, has no package judge.challenges: every built-in challenge was an internal error there)
    or, installed, judge.challenges."""
    package = Path(__file__).resolve().parent.parent
    source_tree = package.parent / "challenges"
    if (package.parent / "pyproject.toml").is_file() and (source_tree / "transpose.yaml").is_file():
        return source_tree
    from importlib.resources import files

    return Path(str(files("judge.challenges")))


def _spec_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in SPEC_SUFFIXES and p.is_file())


def _entries_of(path: Path, origin: str) -> list[Entry]:
    try:
        return [Entry(spec.name, path, origin, spec=spec) for spec in load_specs(path)]
    except SpecError as exc:
        return [Entry(path.stem, path, origin, error=exc, status="invalid")]


def list_entries(search: SearchPath | None = None) -> list[Entry]:
    """Every challenge on the search path in search order, with conflicts marked."""
    search = search or SearchPath.from_environment()
    entries = [e for folder, origin in search.folders() for p in _spec_files(folder) for e in _entries_of(p, origin)]
    by_name: dict[str, list[Entry]] = {}
    for entry in entries:
        by_name.setdefault(entry.name, []).append(entry)
    for same in by_name.values():
        if len(same) < 2:
            continue
        users = [e for e in same if not e.is_builtin]
        for entry in same:
            entry.others = [e for e in same if e is not entry]
            if search.prefer_user and len(users) == 1:
                entry.status = "shadowed" if entry.is_builtin else entry.status
            elif entry.status == "ok":
                entry.status = "conflict"
    return entries


def _conflict_message(name: str, same: list[Entry]) -> str:
    where = "; ".join(f"{e.path} ({e.origin})" for e in same)
    hint = ("rename one of them" if sum(not e.is_builtin for e in same) > 1 else
            "rename the user challenge, or pass --prefer-user to use it instead of the built-in")
    return f"challenge {name!r} is defined more than once: {where}; {hint}"


def is_spec_path(name_or_path: str) -> bool:
    """A spec file rather than a name: a .yaml/.yml suffix (before any #variant),
    a folder separator, or an existing file (a folder named like a challenge is not one)."""
    file = name_or_path.rsplit("#", 1)[0] if "#" in name_or_path else name_or_path
    return Path(file).suffix in SPEC_SUFFIXES or "/" in name_or_path or os.sep in name_or_path \
        or Path(name_or_path).is_file()


def _find_entry(name: str, search: SearchPath | None) -> Entry:
    entries = list_entries(search)
    same = [e for e in entries if e.name == name]
    if not same:
        names = list(dict.fromkeys(e.name for e in entries if e.status != "invalid"))
        raise UnknownChallenge(f"unknown challenge {name!r}{did_you_mean(name, names)}; known challenges: "
                               f"{', '.join(names) or 'none'} (or give the path of a .yaml spec)")
    usable = [e for e in same if e.status in ("ok", "invalid")]
    if len(usable) != 1:
        raise ChallengeConflict(_conflict_message(name, same))
    return usable[0]


def find_spec_path(name_or_path: str, search: SearchPath | None = None) -> Path:
    """A challenge name ("transpose") or a path to a YAML spec (``file.yaml#variant`` too).

    For a variant the result is ``<file>#<variant>``, which ``load_spec`` reads.
    """
    if is_spec_path(name_or_path):
        file = Path(name_or_path)
        if not file.exists() and not Path(name_or_path.rsplit("#", 1)[0]).exists():
            raise UnknownChallenge(missing_path_message(name_or_path.rsplit("#", 1)[0] if "#" in name_or_path
                                                        else name_or_path))
        return file
    try:
        entry = _find_entry(name_or_path, search)
    except UnknownChallenge:
        problem = _kernelbench_problem(name_or_path, search)  # a KernelBench problem in a user folder, by name
        if problem is None:
            raise
        return problem
    if entry.spec is not None and entry.spec.variant_of:
        return Path(entry.spec.source)
    return entry.path


def missing_path_message(text: str) -> str:
    """Why a challenge path is not there, with the sibling it most likely meant (``.../easy/1_vectoradd``:
    did you mean ``.../easy/1_vector_add``?), or the first folder on the way that is missing."""
    path = Path(text)
    what = "spec file" if path.suffix in SPEC_SUFFIXES else "challenge folder or spec file"
    parent = path.parent
    if not parent.is_dir():
        missing = next((p for p in reversed(path.parents) if not p.is_dir()), parent)
        near = closest(missing.name, [p.name for p in missing.parent.iterdir() if p.is_dir()]) \
            if missing.parent.is_dir() else None
        return f"no such {what}: {text} (there is no folder {missing}" + \
            (f"; did you mean {missing.parent / near}?)" if near else ")")
    near = closest(path.name, [p.name for p in parent.iterdir()])
    return f"no such {what}: {text}" + (f" (did you mean {parent / near}?)" if near else "")


def load_challenge(name_or_path: str, search: SearchPath | None = None) -> Spec:
    """The spec of a challenge name, a spec path, a LeetGPU challenge folder (one that
    holds ``challenge.py``: judge/challenge/leetgpu.py) or a KernelBench problem file
    (judge/challenge/kernelbench.py); raises SpecError, UnknownChallenge, ChallengeConflict.
    ``judge run``, ``rank``, ``grade`` and ``watch`` resolve challenges here."""
    path = Path(name_or_path)
    if path.suffix == ".py" and path.name != "challenge.py" and path.is_file():
        from judge.challenge.kernelbench import load_problem  # a KernelBench problem, or why the file is none

        return load_problem(path)
    if path.is_dir() and not (path / "challenge.py").is_file():
        from judge.challenge.kernelbench import kernelbench_folder_hint

        kernelbench_folder_hint(path)  # a KernelBench folder: an error that names one of its problems
    if path.is_dir() or (path.name == "challenge.py" and path.is_file()):
        from judge.challenge.leetgpu import load_folder  # a LeetGPU challenge, or an error saying what it lacks

        return load_folder(path if path.is_dir() else path.parent)
    if is_spec_path(name_or_path):
        return load_spec(find_spec_path(name_or_path))
    try:
        entry = _find_entry(name_or_path, search)
    except UnknownChallenge:
        problem = _kernelbench_problem(name_or_path, search)
        if problem is None:
            raise
        from judge.challenge.kernelbench import load_problem

        return load_problem(problem)
    if entry.error is not None:
        raise entry.error
    return entry.spec


def _kernelbench_problem(name: str, search: SearchPath | None) -> Path | None:
    """The KernelBench problem file ``<name>.py`` under the user's folders (--challenges-dir KernelBench/,
    $JUDGE_CHALLENGES_PATH), so that ``judge grade --dir`` finds ``<who>/19_ReLU.py``'s problem; None when there
    is none; ChallengeConflict when two folders (or levels) hold one of that name."""
    from judge.challenge.kernelbench_format import is_problem_source  # pure: no torch to import for a name

    search = search or SearchPath.from_environment()
    found = [p for folder in search.user_dirs for p in Path(folder).rglob("*.py")
             if p.stem == name and p.is_file() and is_problem_source(p.read_text(encoding="utf-8", errors="replace"))]
    if len(found) > 1:
        raise ChallengeConflict(f"KernelBench problem {name!r} is in more than one place: "
                                f"{'; '.join(map(str, found))}; give the file's path")
    return found[0] if found else None


def list_challenges(search: SearchPath | None = None) -> list[tuple[Path, Spec | SpecError]]:
    """Every spec on the search path, loaded, or the error that stops its file loading."""
    return [(e.path, e.spec if e.spec is not None else e.error) for e in list_entries(search)]
