"""``judge list``, ``judge show`` and ``judge init``."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from judge.challenge.conventions import CONVENTIONS
from judge.report.console import make_console, table_box
from judge.challenge.spec import Scalar, Tensor
from judge.cli.base import UserError, challenge_argument, current_search_path, load_spec_or_exit, main_group


def _ranges(spec) -> str:
    return ", ".join(f"{lo} ≤ {n} ≤ {hi}" for n, (lo, hi) in spec.sizes.items())


@main_group.command("list")
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
def list_command(folder: str | None) -> None:
    """List the challenges: built-in ones and those of --challenges-dir / $JUDGE_CHALLENGES_PATH;
    with FOLDER, the LeetGPU challenge folders (challenge.py) under it, and which cannot run and why."""
    from judge.challenge.catalog import list_entries

    if folder is not None:
        return _list_leetgpu(folder)
    console = make_console()
    table = Table(box=table_box(console))
    for header in ("name", "title", "difficulty", "signature", "sizes", "source"):
        table.add_column(header)
    for entry in list_entries(current_search_path()):
        source = escape(entry.origin if entry.is_builtin else str(entry.path))
        if entry.error is not None:
            table.add_row(entry.name, f"[red]invalid spec: {escape(entry.error.problem)}[/]", "", "", "", source)
            continue
        spec, title = entry.spec, escape(entry.spec.title)
        if entry.status == "conflict":
            title = f"[red]name conflict with {escape(', '.join(str(o.path) for o in entry.others))}[/]"
        elif entry.status == "shadowed":
            title = f"[dim]replaced by {escape(str(entry.others[0].path))} (--prefer-user)[/]"
        table.add_row(spec.name, title, spec.difficulty, spec.signature_text(), _ranges(spec), source)
    console.print(table)


def _list_leetgpu(folder: str) -> None:
    from judge.challenge.leetgpu import list_folder

    listed = list_folder(folder)
    if not listed:
        raise UserError(f"no challenge.py under {folder}; give a checkout's challenges/ folder "
                        "(github.com/AlphaGPU/leetgpu-challenges)")
    console = make_console()
    table = Table(box=table_box(console))
    for header in ("name", "title", "difficulty", "signature", "performance test", "status"):
        table.add_column(header)
    for item in listed:
        spec = item.spec
        size = item.performance + (f" ({item.performance_bytes / 1e6:.1f} MB)" if item.performance_bytes else "")
        status = f"[red]cannot run: {escape(item.problem)}[/]" if item.problem else "ok"
        difficulty = spec.difficulty if spec else item.folder.parent.name
        table.add_row(item.folder.name, escape(spec.title) if spec else "", difficulty,
                      spec.signature_text() if spec else "", escape(size), status)
    console.print(table)
    runnable = sum(not item.problem for item in listed)
    click.echo(f"{runnable} of {len(listed)} challenges can run; run one with: judge run FOLDER/<difficulty>/<name> "
               "solution.py")


def _show_leetgpu(console, spec) -> None:
    """``judge show`` of a LeetGPU folder: its tests are generated, so their sizes are shown (built on the meta device)."""
    from judge.challenge.leetgpu import build_performance_test, build_tests

    console.print(f"\nsignature: {spec.signature_text()}", markup=False)
    try:
        cases, _ = build_tests(spec, "meta", 0)
    except ValueError:  # a generator that needs real values (torch's meta device has none): the CPU's
        cases, _ = build_tests(spec, "cpu", 0)
    table = Table(box=table_box(console))
    for header in ("parameter", "declared", "dtype", "role", "example"):
        table.add_column(header)
    declared = dict(spec.c_types)
    for p in spec.parameters:
        value = cases[0].arguments[p.name]
        example = f"[{', '.join(map(str, value.shape))}]" if isinstance(p, Tensor) else str(value)
        table.add_row(p.name, declared.get(p.name, ""), p.dtype, getattr(p, "role", "in"), escape(example))
    console.print(table)
    tol = spec.tolerance
    console.print(f"tolerance: atol={tol.atol:g}, rtol={tol.rtol:g} (|got - ref| <= atol + rtol * |ref|)", markup=False)
    for case in cases:
        console.print(f"test {case.name}: {case.label()} ({case.elements} tensor elements)", markup=False)
    try:
        perf = build_performance_test(spec, "meta", 0)
        console.print(f"performance test: {perf.label()} ({perf.nbytes / 1e6:.1f} MB moved)", markup=False)
    except ValueError:
        console.print("performance test: sized when run (its generator needs real values)", markup=False)


def _parameter_table(console, spec) -> Table:
    table = Table(box=table_box(console))
    for header in ("parameter", "kind", "dtype", "shape / value", "role"):
        table.add_column(header)
    for p in spec.parameters:
        if isinstance(p, Tensor):
            table.add_row(p.name, "tensor", p.dtype, escape(f"[{', '.join(map(str, p.shape))}]"), p.role)
        elif isinstance(p, Scalar):
            table.add_row(p.name, "scalar", p.dtype, str(p.value), "in")
    return table


def _example(spec) -> str:
    """The worked example, from the cache when this spec's was computed before
    (computing it imports torch: seconds, where the rest of ``show`` takes a fraction of one)."""
    from judge.authoring.example import example_key, example_text
    from judge.base.paths import cache_dir
    from judge.timing.peaks import read_cache, write_cache

    path, key = cache_dir() / "examples.json", example_key(spec)
    cached = read_cache(path)
    if isinstance(cached.get(key), str):
        return cached[key]
    text = example_text(spec)
    kept = {k: v for k, v in cached.items() if not k.startswith(f"{spec.name}|")}  # older texts of this spec
    write_cache(path, dict(kept, **{key: text}))
    return text


@main_group.command("show")
@challenge_argument
def show_command(challenge: str) -> None:
    """Show a challenge: statement, signature, sizes, tolerance and an example."""
    spec = load_spec_or_exit(challenge)
    console = make_console()
    console.print(f"[bold]{escape(spec.title)}[/] ({spec.name}, {spec.difficulty})  ·  {escape(spec.source)}")
    if getattr(spec, "shipped", False):  # a LeetGPU folder: the statement is text from its HTML
        console.print(spec.statement, markup=False)
        _show_leetgpu(console, spec)
        console.print("\n" + CONVENTIONS, markup=False, highlight=False)
        return
    if console.no_color:
        console.print(spec.statement, markup=False)
    else:
        from rich.markdown import Markdown  # a tenth of a second to import: only where it is drawn

        console.print(Markdown(spec.statement), markup=False)
    console.print(f"\nsignature: {spec.signature_text()}")
    console.print(_parameter_table(console, spec))
    console.print(f"sizes: {_ranges(spec)}")
    for c in spec.constraints:
        console.print(f"constraint: {c}")
    tol = spec.tolerance
    console.print(f"tolerance: {tol.kind}" + ("" if tol.kind == "exact" else f" (atol={tol.atol:g}, rtol={tol.rtol:g})"))
    console.print("benchmarks: " + ("; ".join(f"{b.name} ({', '.join(f'{k}={v}' for k, v in b.params.items())})"
                                             for b in spec.benchmarks) or "none"))
    console.print("\nexample:", markup=False)
    console.print(_example(spec), markup=False)
    console.print("\n" + CONVENTIONS, markup=False, highlight=False)


@main_group.command("init")
@challenge_argument
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
def init_command(challenge: str, path: str, force: bool) -> None:
    """Write a Triton starter solution for CHALLENGE to PATH."""
    from judge.authoring.starter import starter_source

    spec = load_spec_or_exit(challenge)
    target = Path(path)
    if target.exists() and not force:
        raise UserError(f"{path} exists; use --force to overwrite it")
    if not target.parent.exists():
        raise UserError(f"folder {target.parent} does not exist")
    target.write_text(_leetgpu_starter(spec) if getattr(spec, "shipped", False) else starter_source(spec),
                      encoding="utf-8")
    click.echo(f"wrote {path}: a starter for '{spec.name}' with {spec.signature_text()}")
    click.echo(f"judge it with: judge run {challenge} {path}")


def _leetgpu_starter(spec) -> str:
    """The folder's own ``starter/starter.triton.py`` (LeetGPU's), read from the user's checkout."""
    starter = Path(spec.source) / "starter" / "starter.triton.py"
    if not starter.is_file():
        raise UserError(f"{spec.source} has no starter/starter.triton.py")
    return starter.read_text(encoding="utf-8")
