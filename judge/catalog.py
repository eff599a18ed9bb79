"""Finding challenges: built-in specs by name, or a spec file by path."""

from __future__ import annotations

from pathlib import Path

from .spec import Spec, SpecError, load_spec

__all__ = ["builtin_dir", "find_spec_path", "load_challenge", "list_challenges", "UnknownChallenge"]


class UnknownChallenge(LookupError):
    """No built-in challenge of that name and no such spec file."""


def builtin_dir() -> Path:
    """The built-in specs: the source tree's challenges/ or, installed, judge.challenges."""
    source_tree = Path(__file__).resolve().parent.parent / "challenges"
    if source_tree.is_dir():
        return source_tree
    from importlib.resources import files

    return Path(str(files("judge.challenges")))


def _builtin_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted(builtin_dir().glob("*.yaml"))}


def find_spec_path(name_or_path: str) -> Path:
    """A built-in name ("transpose") or a path to a YAML spec."""
    candidate = Path(name_or_path)
    if candidate.suffix in (".yaml", ".yml") or candidate.exists():
        if not candidate.exists():
            raise UnknownChallenge(f"no such spec file: {name_or_path}")
        return candidate
    builtins = _builtin_paths()
    if name_or_path in builtins:
        return builtins[name_or_path]
    known = ", ".join(builtins) or "none"
    raise UnknownChallenge(f"unknown challenge {name_or_path!r}; built-in challenges: {known} "
                           "(or give the path of a .yaml spec)")


def load_challenge(name_or_path: str) -> Spec:
    return load_spec(find_spec_path(name_or_path))


def list_challenges() -> list[tuple[Path, Spec | SpecError]]:
    """Every built-in spec, loaded, or the error that stops it loading."""
    result = []
    for path in _builtin_paths().values():
        try:
            result.append((path, load_spec(path)))
        except SpecError as exc:
            result.append((path, exc))
    return result
