"""``judge new`` and ``judge validate``: writing challenges of your own."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from judge.base.exit_codes import ExitCode
from judge.cli.base import UserError, user_errors, current_search_path, json_option, main_group


@main_group.command("new")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Folder to write the files into.")
def new_command(name: str, folder: str) -> None:
    """Scaffold a challenge NAME: NAME.yaml (the spec, with its statement) and NAME.py (a solution).

    The spec is a complete, valid challenge for a placeholder operation, with
    a comment on every field; the solution passes it. Existing files are never
    overwritten. Exit status: 0 written, 2 usage error.
    """
    from judge.challenge.catalog import list_entries
    from judge.authoring.scaffold import scaffold_files, valid_name

    if not valid_name(name):
        raise UserError(f"challenge names use letters, digits, '_' and '-' only, got {name!r}")
    target = Path(folder)
    if not target.is_dir():
        raise UserError(f"folder {folder} does not exist")
    files = {target / file: text for file, text in scaffold_files(name).items()}
    existing = [str(p) for p in files if p.exists()]
    if existing:
        verb = "exists" if len(existing) == 1 else "exist"
        raise UserError(f"{' and '.join(existing)} already {verb}; 'judge new' overwrites nothing: "
                        "remove them or pick another name")
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    spec_file, solution_file = list(files)
    click.echo(f"wrote {spec_file} (the spec, with its statement) and {solution_file} (a solution)")
    if any(e.name == name and e.is_builtin for e in list_entries(current_search_path())):
        click.echo(f"note: '{name}' is also a built-in challenge; from a --challenges-dir folder it needs "
                   "--prefer-user (or give the .yaml path)")
    click.echo(f"next:  judge validate {spec_file}\n       judge run {spec_file} {solution_file}\n"
               f"       judge --challenges-dir {target} list")


def _reports_for(spec: str):
    """Validation reports of one argument: a spec file (all its variants) or a challenge name."""
    from judge.challenge.catalog import ChallengeConflict, UnknownChallenge, is_spec_path, load_challenge
    from judge.challenge.spec import SpecError
    from judge.authoring.validate import validate_file, validate_spec

    with user_errors(SpecError, UnknownChallenge, ChallengeConflict):
        if Path(spec).is_dir():
            raise UserError(f"{spec} is a folder: 'judge validate' checks YAML specs; for a LeetGPU challenge "
                            "folder, 'judge list FOLDER' checks that it loads and 'judge show FOLDER' builds its "
                            "tests (docs/leetgpu.md)")
        if is_spec_path(spec) and "#" not in spec:
            if not Path(spec).is_file():
                raise UserError(f"no such spec file: {spec}")
            return validate_file(spec)
        return [validate_spec(load_challenge(spec, current_search_path()))]


@main_group.command("validate")
@click.argument("specs", nargs=-1, metavar="SPEC...")
@click.option("--all", "all_specs", is_flag=True, help="Validate every challenge on the search path.")
@json_option
def validate_command(specs: tuple, all_specs: bool, as_json: bool) -> None:
    """Check challenge specs: formulas at the corners of the ranges, the reference at
    small sizes, and that the tolerance accepts correct answers and rejects wrong ones.

    SPEC is a .yaml file (all its variants are checked) or a challenge name.
    Exit status: 0 all checks passed, 1 a check failed, 2 a spec cannot be read.
    """
    if all_specs:
        from judge.challenge.catalog import list_entries

        entries = list_entries(current_search_path())
        specs = specs + tuple(dict.fromkeys(str(e.path) for e in entries))
    if not specs:
        raise UserError("give one or more SPECs (.yaml files or challenge names), or --all")
    reports = [report for spec in specs for report in _reports_for(spec)]
    failed = [r for r in reports if not r.ok]
    if as_json:
        click.echo(json.dumps({"ok": not failed, "specs": [r.as_dict() for r in reports]}, indent=2))
    else:
        from judge.report.validation import check_marks, validation_lines

        for line in validation_lines(reports, check_marks(sys.stdout)):
            click.echo(line)
    sys.exit(ExitCode.FAILED if failed else ExitCode.OK)
