"""``judge list``, ``judge show`` and ``judge init``."""

from __future__ import annotations

from pathlib import Path

import click

from judge.report.console import LIST_WIDTH, make_console
from judge.cli.base import UserError, challenge_argument, current_search_path, load_spec_or_exit, main_group, user_errors


@main_group.command("list")
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
def list_command(folder: str | None) -> None:
    """List the challenges: built-in ones and those of --challenges-dir / $JUDGE_CHALLENGES_PATH;
    with FOLDER, the LeetGPU challenge folders (challenge.py) or the KernelBench problem files under it,
    and which cannot run and why."""
    from judge.challenge.catalog import list_entries
    from judge.report.challenge_views import catalogue_table

    if folder is not None:
        return _list_kernelbench(folder) if _is_kernelbench_folder(folder) else _list_leetgpu(folder)
    console = make_console()
    console.print(catalogue_table(console, list_entries(current_search_path())))


def _is_kernelbench_folder(folder: str) -> bool:
    """A folder with KernelBench problem files and no LeetGPU challenge.py (read, never run)."""
    from judge.challenge.kernelbench import find_problems

    return not any(Path(folder).rglob("challenge.py")) and bool(find_problems(folder))


def _list_kernelbench(folder: str) -> None:
    from judge.challenge.kernelbench import list_problems
    from judge.report.challenge_views import kernelbench_table

    listed = list_problems(folder)
    console = make_console(plain_width=LIST_WIDTH)
    console.print(kernelbench_table(console, listed))
    loaded = [item for item in listed if item.spec is not None]
    example = loaded[0].path if loaded else f"{folder}/<level>/<problem>.py"
    click.echo(f"{len(loaded)} of {len(listed)} KernelBench problems load; judge one with: judge run {example} "
               "solution.py (a solution defines class ModelNew; 'judge init PROBLEM mine.py' writes one)")


def _list_leetgpu(folder: str) -> None:
    from judge.challenge.leetgpu import list_folder
    from judge.report.challenge_views import leetgpu_table

    listed = list_folder(folder)
    if not listed:
        raise UserError(f"no challenge.py under {folder}; give a checkout's challenges/ folder "
                        "(github.com/AlphaGPU/leetgpu-challenges)")
    console = make_console(plain_width=LIST_WIDTH)
    console.print(leetgpu_table(console, listed))
    runnable = sum(not item.problem for item in listed)
    click.echo(f"{runnable} of {len(listed)} challenges can run; run one with: judge run FOLDER/<difficulty>/<name> "
               "solution.py")


@main_group.command("show")
@challenge_argument
def show_command(challenge: str) -> None:
    """Show a challenge: statement, signature, sizes, tolerance and an example."""
    from judge.authoring.example import cached_example_text
    from judge.report.challenge_views import render_challenge

    spec = load_spec_or_exit(challenge)
    render_challenge(make_console(), spec, lambda: cached_example_text(spec))


LANGUAGES = {"triton": "starter.triton.py", "pytorch": "starter.pytorch.py", "cuda": "starter.cu"}


@main_group.command("init")
@challenge_argument
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--lang", type=click.Choice(sorted(LANGUAGES)), default=None,
              help="The starter's language (default: cuda for a PATH ending in .cu, else triton; a KernelBench "
                   "problem's CUDA starter is a .py that builds with load_inline).")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
def init_command(challenge: str, path: str, lang: str | None, force: bool) -> None:
    """Write a starter solution for CHALLENGE to PATH: Triton (default), PyTorch or CUDA C++.
    A LeetGPU folder's starter is its own (starter/starter.triton.py, .pytorch.py, .cu); a KernelBench
    problem's is its Model renamed ModelNew, with an example kernel in the language."""
    spec = load_spec_or_exit(challenge)
    lang = lang or ("cuda" if path.lower().endswith(".cu") else "triton")
    target = Path(path)
    if target.exists() and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    if not target.parent.exists():
        raise UserError(f"folder {target.parent} does not exist")
    if getattr(spec, "kernelbench", False):  # a .py file whatever the language: CUDA through load_inline
        if not path.lower().endswith(".py"):
            raise UserError(f"a KernelBench solution is a .py file (CUDA C++ goes through load_inline in it): {path}")
        from judge.authoring.kernelbench_starter import kernelbench_starter

        target.write_text(kernelbench_starter(spec.text, spec.name, lang), encoding="utf-8")
        click.echo(f"wrote {path}: a {lang} starter for '{spec.name}': class ModelNew, {spec.signature_text()}")
        click.echo(f"judge it with: judge run {challenge} {path}")
        return
    if lang == "cuda" and not path.lower().endswith(".cu"):
        raise UserError(f"a CUDA C++ starter must be a .cu file (the judge picks the language by it): {path}")
    target.write_text(_leetgpu_starter(spec, lang) if getattr(spec, "shipped", False) else _starter(spec, lang),
                      encoding="utf-8")
    click.echo(f"wrote {path}: a {lang} starter for '{spec.name}' with {spec.signature_text()}")
    click.echo(f"judge it with: judge run {challenge} {path}")


def _starter(spec, lang: str) -> str:
    from judge.authoring.starter import cuda_starter_source, pytorch_starter_source, starter_source
    from judge.challenge.c_signature import UnsupportedCType

    if lang == "cuda":
        with user_errors(UnsupportedCType):
            return cuda_starter_source(spec)
    return pytorch_starter_source(spec) if lang == "pytorch" else starter_source(spec)


def _leetgpu_starter(spec, lang: str) -> str:
    """The folder's own starter in that language (LeetGPU's), read from the user's checkout; for Triton its
    ``starter.pytorch.py`` where it has no Triton one (easy/41_simple_inference)."""
    names = [LANGUAGES[lang]] + (["starter.pytorch.py"] if lang == "triton" else [])
    for name in names:  # no Triton starter (easy/41_simple_inference): its PyTorch one
        starter = Path(spec.source) / "starter" / name
        if starter.is_file():
            return starter.read_text(encoding="utf-8")
    raise UserError(f"{spec.source} has no starter/{' or starter/'.join(names)}")
