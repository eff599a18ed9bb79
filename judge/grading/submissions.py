"""What ``judge grade`` grades: a list of ``Entry`` (one submission of one challenge).

Entries come from one of three places:

- ``judge grade CHALLENGE FILE...``: each file is a submission;
- a manifest (``grading.yaml``, docs/grading.md) mapping submissions to files;
- a folder laid out as ``<root>/<who>/<challenge>.py``.

Pure but for the small readers of files (the manifest's YAML, the folder walk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import yaml

from judge.base.languages import SOLUTION_SUFFIXES

__all__ = ["Entry", "ManifestError", "ChallengeResolver", "discover", "parse_manifest", "entries_for",
           "split_variant", "missing_entries", "manifest_require_kernel", "MANIFEST_VERSION", "SOLUTION_SUFFIXES"]

MANIFEST_VERSION = 1
MANIFEST_KEYS = ("version", "challenges", "submissions", "require_kernel")
# The files --dir takes for solutions, ``<who>/<challenge><suffix>``: SOLUTION_SUFFIXES (judge/base/languages.py).


@dataclass(frozen=True)
class Entry:
    """One submission of one challenge, before it is judged."""

    submission: str  # who: a folder name, a manifest key, or the file as given
    challenge: str  # as the user wrote it: a name, an alias, or a .yaml path
    path: str  # the solution file
    spec_path: str | None = None  # the resolved spec; None when the challenge is unknown
    problem: str = ""  # why it cannot be judged; graded as invalid_submission (no_submission when ``missing``)
    missing: bool = False  # nothing handed in: an empty folder, a manifest's file that does not exist
    snapshot: object = None  # its bytes as read before grading began (grading/snapshot.py); judged from these


class ManifestError(ValueError):
    """A manifest that cannot be used; ``problems`` lists every mistake found."""

    def __init__(self, source: str, problems: list[str]):
        self.source, self.problems = source, problems
        listed = problems[0] if len(problems) == 1 else "".join(f"\n  {p}" for p in problems)
        super().__init__(f"{source}:{'' if len(problems) > 1 else ' '}{listed}")


@dataclass
class ChallengeResolver:
    """Challenge names to spec files: a manifest's aliases first, then the
    catalog's search path (--challenges-dir, $JUDGE_CHALLENGES_PATH, built-ins);
    a name ending in .yaml (``file.yaml#variant`` too) is a path from ``base_dir``."""

    aliases: dict = field(default_factory=dict)  # name -> spec path (str or Path)
    search: object = None  # a catalog.SearchPath; None: the environment's

    def resolve(self, name: str, base_dir: Path | None = None) -> str:
        """The spec (a path, or ``<file>#<variant>``) for ``name``; ``LookupError`` if none."""
        from judge.challenge.catalog import find_spec_path

        if name in self.aliases:
            return str(self.aliases[name])
        if _is_spec_path(name) and base_dir is not None and not Path(name).is_absolute():
            name = str(base_dir / name)
        return str(find_spec_path(name, self.search))  # UnknownChallenge, ChallengeConflict: LookupErrors


def _is_spec_path(name: str) -> bool:
    return split_variant(name)[0].endswith((".yaml", ".yml"))


def split_variant(spec_path: str) -> tuple[str, str]:
    """``("file.yaml", "variant")`` for ``file.yaml#variant``; ``(spec_path, "")`` otherwise."""
    file, hash_sign, variant = spec_path.rpartition("#")
    if hash_sign and file.endswith((".yaml", ".yml")):
        return file, variant
    return spec_path, ""


def discover(root: Path) -> tuple[list[tuple[str, str, str]], list[str], list[str]]:
    """``(who, challenge, path)`` for each ``root/<who>/<challenge>.py`` (or ``.cu``: SOLUTION_SUFFIXES), sorted, the
    warnings, and the folders that hold no solution at all (``who``: graded ``no_submission``).

    Names starting with ``.`` or ``_`` (``.git``, ``__pycache__``, ``_helpers.py``)
    are skipped: a submission may carry helper modules beside its solutions.
    """
    found, warnings, empty = [], [], []
    for who_dir in sorted(root.iterdir()):
        if who_dir.name.startswith((".", "_")):
            continue
        if not who_dir.is_dir():
            warnings.append(f"ignored {who_dir}: expected folders {root}/<who>/<challenge>.py")
            continue
        solutions = [p for p in sorted(who_dir.iterdir()) if p.suffix.lower() in SOLUTION_SUFFIXES
                     and not p.name.startswith((".", "_")) and not p.is_dir()]
        found += [(who_dir.name, solution.stem, str(solution)) for solution in solutions]
        if not solutions:
            empty.append(who_dir.name)
    return found, warnings, empty


def missing_entries(empty: list[str], entries: list[Entry], root: Path) -> list[Entry]:
    """An entry ``no_submission`` for each folder of ``empty`` and each challenge the others handed in
    (the known ones; one entry named ``-`` when none is known), so that a course sees who handed nothing in."""
    challenges = dict.fromkeys((e.challenge, e.spec_path) for e in entries if e.spec_path is not None)
    wanted = list(challenges) or [("-", None)]
    suffixes = ", ".join(SOLUTION_SUFFIXES)
    return [Entry(who, challenge, str(root / who), spec_path, missing=True,
                  problem=f"no submission: {root / who} holds no solution file ({suffixes})")
            for who in empty for challenge, spec_path in wanted]


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that rejects a key given twice (PyYAML keeps the last silently)."""


def _mapping_without_duplicates(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} is given twice", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def parse_manifest(text: str, source: str, base_dir: Path,
                   search=None) -> tuple[ChallengeResolver, list[tuple[str, str, str]]]:
    """Validate a manifest; return its resolver and ``(who, challenge, path)`` items.

    Paths are relative to ``base_dir`` (the manifest's folder); ``search`` is the
    catalog's search path for challenge names (None: the environment's).  Every
    problem found is collected into one ``ManifestError``.  A listed file that
    does not exist is *not* an error here: it is graded as a missing submission.
    """
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ManifestError(source, [f"not valid YAML: {' '.join(str(exc).split())}"]) from None
    if not isinstance(data, dict) or "submissions" not in data:
        raise ManifestError(source, ["expected a mapping with a 'submissions' key (see docs/grading.md)"])
    problems = [f"unknown key {k!r}; allowed: {', '.join(MANIFEST_KEYS)}" for k in data if k not in MANIFEST_KEYS]
    if data.get("version", MANIFEST_VERSION) != MANIFEST_VERSION:
        problems.append(f"version: {data['version']!r} is not supported (only {MANIFEST_VERSION})")
    if not isinstance(data.get("require_kernel", False), bool):
        problems.append(f"require_kernel: expected true or false, got {data['require_kernel']!r}")
    aliases = _manifest_aliases(data.get("challenges"), base_dir, problems)
    resolver = ChallengeResolver({k: v for k, v in aliases.items() if v is not None}, search)
    broken = {k for k, v in aliases.items() if v is None}
    items = _manifest_items(data["submissions"], base_dir, resolver, problems, broken)
    if problems:
        raise ManifestError(source, problems)
    return resolver, items


def manifest_require_kernel(text: str) -> bool:
    """A valid manifest's ``require_kernel: true`` (the rule of --require-kernel for the whole grade)."""
    data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    return data.get("require_kernel", False) is True


def _manifest_aliases(section, base_dir: Path, problems: list[str]) -> dict:
    """name -> spec path, or None for a broken one (already reported)."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        problems.append("challenges: expected a mapping of name: spec file (.yaml)")
        return {}
    aliases = {}
    for name, spec in section.items():
        aliases[str(name)] = None
        if not isinstance(spec, str) or not _is_spec_path(spec):
            problems.append(f"challenges.{name}: expected the path of a .yaml spec, got {spec!r}")
        elif not (base_dir / split_variant(spec)[0]).is_file():
            problems.append(f"challenges.{name}: no such spec file: {base_dir / spec}")
        else:
            aliases[str(name)] = str(base_dir / spec)
    return aliases


def _manifest_items(section, base_dir: Path, resolver: ChallengeResolver, problems: list[str],
                    broken: set) -> list:
    if not isinstance(section, dict) or not section:
        problems.append("submissions: expected a non-empty mapping of who: {challenge: file}")
        return []
    items = []
    for who, files in section.items():
        if who is None or str(who).strip() == "":
            problems.append("submissions: a submission has an empty name")
            continue
        if not isinstance(files, dict) or not files:
            problems.append(f"submissions.{who}: expected a non-empty mapping of challenge: solution file")
            continue
        for challenge, path in files.items():
            where = f"submissions.{who}.{challenge}"
            if not isinstance(path, str) or not path.strip():
                problems.append(f"{where}: expected the path of a .py file, got {path!r}")
                continue
            try:
                resolver.resolve(str(challenge), base_dir)
            except LookupError as exc:
                if str(challenge) not in broken:  # a broken alias is reported once, where it is defined
                    problems.append(f"{where}: {exc}")
                continue
            items.append((str(who), str(challenge), str(base_dir / path)))
    return items


def entries_for(items: Iterable[tuple[str, str, str]], resolver: ChallengeResolver,
                check_file: Callable[[str], str], base_dir: Path | None = None) -> list[Entry]:
    """Entries with resolved specs; an unknown challenge or an unusable file
    becomes the entry's ``problem`` (``check_file`` returns "" for a usable file).
    Raises ``catalog.ChallengeConflict`` when a name is defined twice."""
    from judge.challenge.catalog import UnknownChallenge

    entries = []
    for who, challenge, path in items:
        try:
            spec_path = resolver.resolve(challenge, base_dir)
        except UnknownChallenge as exc:  # a conflict on the search path is the organiser's: it propagates
            entries.append(Entry(who, challenge, path, None, str(exc)))
            continue
        entries.append(Entry(who, challenge, path, spec_path, check_file(path)))
    return entries


