"""Challenge specs: load a YAML file, validate every field, return a ``Spec``.

A spec is data plus one trusted snippet of Python (the torch reference, written
by the challenge's author and run only in the judge's own process).  Every
validation error is a ``SpecError`` that names the file, the field and what is
allowed, so the CLI can print it without a traceback.  The format is
documented in docs/spec-format.md.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from judge.challenge.spec_model import (DTYPES, FLOAT_DTYPES, MAX_FILE_BYTES, Init, Scalar, SizeCase, Spec,
                                        SpecError, Tensor, Tolerance)
from judge.challenge.spec_parser import SpecParser

__all__ = [
    "SpecError", "Spec", "Tensor", "Scalar", "Init", "Tolerance", "SizeCase",
    "load_spec", "parse_spec", "load_specs", "parse_specs", "DTYPES", "FLOAT_DTYPES",
]


def load_spec(path: str | Path) -> Spec:
    """Read and validate one YAML spec file.

    ``<file>#<variant>`` (a variant's ``source``) loads that variant of the file.
    """
    path, variant = _split_variant(str(path))
    text, source = _read_spec_file(path)
    return parse_spec(text, source, variant=variant)


def load_specs(path: str | Path) -> list[Spec]:
    """Every spec of one YAML file: the base spec, then its variants in file order."""
    text, source = _read_spec_file(Path(path))
    return parse_specs(text, source)


def _split_variant(text: str) -> tuple[Path, str | None]:
    """``x.yaml#v`` -> (x.yaml, "v"), unless a file is really named ``x.yaml#v``."""
    if "#" in text and not Path(text).exists():
        file, variant = text.rsplit("#", 1)
        return Path(file), variant
    return Path(text), None


def _read_spec_file(path: Path) -> tuple[str, str]:
    source = str(path)
    if not path.exists():
        raise SpecError(source, "", "no such file")
    if not path.is_file():
        raise SpecError(source, "", "not a file (a directory?)")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SpecError(source, "", f"larger than {MAX_FILE_BYTES // 1000} kB; is this a spec?")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SpecError(source, "", "not UTF-8 text (a binary file?)") from None
    return text, source


def parse_spec(text: str, source: str = "<spec>", variant: str | None = None) -> Spec:
    """Validate the YAML ``text``; ``source`` names it in error messages.

    Returns the base spec, or the variant named ``variant``; every variant is
    validated either way, so a broken variant is reported when its file loads.
    """
    specs = parse_specs(text, source)
    if variant is None:
        return specs[0]
    for spec in specs[1:]:
        if spec.name == variant:
            return spec
    names = ", ".join(s.name for s in specs[1:]) or "none"
    raise SpecError(source, "variants", f"no variant named {variant!r}; this file's variants: {names}")


def parse_specs(text: str, source: str = "<spec>") -> list[Spec]:
    """The base spec of the YAML ``text`` and each of its ``variants``.

    A variant is the base document with the variant's fields replacing whole
    top-level fields of the same name (no deep merge), named by its key; its
    ``source`` is ``<source>#<name>``.
    """
    data = _yaml_mapping(text, source)
    variants = data.pop("variants", None)
    base = replace(SpecParser(source, data).spec(), text=text)
    specs = [base]
    for name, overrides in _variant_entries(variants, source, base.name):
        merged = {**data, **overrides, "name": name}
        specs.append(replace(SpecParser(f"{source}#{name}", merged).spec(), variant_of=base.name, text=text))
    return specs


def _variant_entries(raw, source: str, base_name: str) -> list[tuple[str, dict]]:
    if raw is None:
        return []
    if not isinstance(raw, dict) or not raw:
        raise SpecError(source, "variants", "expected a mapping of variant name -> fields that differ, "
                        "e.g. {transpose_fp16: {dtypes: {T: float16}}}")
    entries = []
    for name, overrides in raw.items():
        where = f"variants.{name}"
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
            raise SpecError(source, where, f"variant names use letters, digits, '_' and '-' only, got {name!r}")
        if name == base_name:
            raise SpecError(source, where, "a variant needs a name different from the base spec's")
        if not isinstance(overrides, dict):
            raise SpecError(source, where, "expected a mapping of the fields that differ from the base spec")
        fixed = sorted({"name", "variants"} & set(overrides))
        if fixed:
            raise SpecError(source, f"{where}.{fixed[0]}",
                            "a variant cannot set this field (its name is its key; variants do not nest)")
        entries.append((name, overrides))
    return entries


# libyaml's parser when PyYAML has it: `judge list` parses every spec, and the
# pure-Python parser spends ~30 ms on each.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml_mapping(text: str, source: str) -> dict:
    try:
        try:
            data = yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 - a safe loader
        except yaml.YAMLError:  # the pure-Python parser words its errors as the messages say
            data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(source, "", f"invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise SpecError(source, "", "expected a mapping of fields at the top level")
    return data
