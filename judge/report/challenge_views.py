"""What ``judge list`` and ``judge show`` print: the catalogue, the LeetGPU folders
found under a folder, and one challenge's statement, signature, sizes and example."""

from __future__ import annotations

from typing import Callable

from rich.markup import escape
from rich.table import Table

from judge.challenge.conventions import CONVENTIONS
from judge.challenge.spec import Scalar, Tensor
from judge.report.console import table_box

__all__ = ["catalogue_table", "challenge_facts", "leetgpu_table", "kernelbench_table", "render_challenge",
           "render_kernelbench", "size_ranges"]


def size_ranges(spec) -> str:
    return ", ".join(f"{lo} ≤ {n} ≤ {hi}" for n, (lo, hi) in spec.sizes.items())


def _tolerance_text(spec) -> str:
    """The tolerance as ``judge show`` and the page state it (a LeetGPU folder's: its check's formula)."""
    tol = spec.tolerance
    if getattr(spec, "kernelbench", False):
        return ("exact" if tol.kind == "exact" else f"atol = rtol = {tol.atol:g} (|got - ref| <= atol + rtol * |ref|)") \
            + " for its output's dtype, KernelBench's (float32 1e-4, float16 and bfloat16 1e-2); NaN never passes"
    if getattr(spec, "shipped", False):
        return f"atol={tol.atol:g}, rtol={tol.rtol:g} (|got - ref| <= atol + rtol * |ref|)"
    return tol.kind + ("" if tol.kind == "exact" else f" (atol={tol.atol:g}, rtol={tol.rtol:g})")


def _benchmark_labels(spec) -> list[str]:
    return [f"{b.name} ({', '.join(f'{k}={v}' for k, v in b.params.items())})" for b in spec.benchmarks]


def _shape_text(p) -> str:
    return f"[{', '.join(map(str, p.shape))}]"


def catalogue_table(console, entries) -> Table:
    """The challenges of the search path (catalog.list_entries), invalid and conflicting ones marked."""
    table = Table(box=table_box(console))
    for header in ("name", "title", "difficulty", "signature", "sizes", "source"):
        table.add_column(header)
    for entry in entries:
        source = escape(entry.origin if entry.is_builtin else str(entry.path))
        if entry.error is not None:
            table.add_row(entry.name, f"[red]invalid spec: {escape(entry.error.problem)}[/]", "", "", "", source)
            continue
        spec, title = entry.spec, escape(entry.spec.title)
        if entry.status == "conflict":
            title = f"[red]name conflict with {escape(', '.join(str(o.path) for o in entry.others))}[/]"
        elif entry.status == "shadowed":
            title = f"[dim]replaced by {escape(str(entry.others[0].path))} (--prefer-user)[/]"
        table.add_row(spec.name, title, spec.difficulty, spec.signature_text(), size_ranges(spec), source)
    return table


# How a listing's columns share what is left of its width (report/console.LIST_WIDTH in a pipe): the long
# signatures and sizes wrap inside their cells instead of making the table 377 columns wide.
_LIST_RATIOS = {"title": 2, "signature": 3, "performance test": 2, "status": 2, "one call": 1}


def leetgpu_table(console, listed) -> Table:
    """The LeetGPU challenge folders found (leetgpu.list_folder), with their performance test
    and why one cannot run."""
    titled = not console.no_color  # in a pipe the name says it: the title's column goes (LIST_WIDTH)
    table = Table(box=table_box(console))
    headers = ["name"] + (["title"] if titled else []) + ["difficulty", "signature", "performance test", "status"]
    for header in headers:
        table.add_column(header, no_wrap=header in ("name", "difficulty"), ratio=_LIST_RATIOS.get(header),
                         overflow="fold")
    for item in listed:
        spec = item.spec
        size = item.performance + (f" ({item.performance_bytes / 1e6:.1f} MB)" if item.performance_bytes else "")
        status = f"[red]cannot run: {escape(item.problem)}[/]" if item.problem else "ok"
        difficulty = spec.difficulty if spec else item.folder.parent.name
        title = [escape(spec.title) if spec else ""] if titled else []
        table.add_row(item.folder.name, *title, difficulty, spec.signature_text() if spec else "", escape(size), status)
    return table


def kernelbench_table(console, listed) -> Table:
    """The KernelBench problems found (kernelbench.list_problems): forward's signature, one call's bytes at
    the file's sizes, and why one cannot run."""
    table = Table(box=table_box(console))
    for header in ("name", "title", "level", "signature", "one call", "status"):
        table.add_column(header, no_wrap=header in ("name", "level"), ratio=_LIST_RATIOS.get(header))
    for item in listed:
        spec = item.spec
        size = _megabytes(spec.bytes_formula) if spec is not None and spec.outputs else "?"
        status = f"[red]cannot run: {escape(item.problem)}[/]" if item.problem and not (spec and not spec.outputs) \
            else (f"[yellow]{escape(item.problem)}[/]" if item.problem else "ok")
        table.add_row(item.path.stem, escape(spec.title) if spec else "", spec.level if spec else "",
                      escape(spec.signature_text()) if spec else "", size, status)
    return table


def _megabytes(nbytes: float) -> str:
    return f"{nbytes / 1e6:,.1f} MB" if nbytes >= 1e5 else f"{nbytes / 1e3:,.1f} kB"


def render_kernelbench(console, spec) -> None:
    """``judge show`` of a KernelBench problem: its source (the problem is its code), forward's signature, the
    tensors at the file's sizes and at CPU mode's, KernelBench's tolerance, the trials and the benchmark."""
    from judge.challenge.kernelbench import OWN_TRIALS, TRIALS, sized
    from judge.challenge.kernelbench_format import DISTRIBUTIONS
    from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET

    console.print(spec.statement, markup=False, highlight=False)
    console.print(f"signature: {spec.signature_text()}", markup=False, highlight=False)
    small = sized(spec, CPU_ELEMENT_BUDGET)
    table = Table(box=table_box(console))
    for header in ("parameter", "kind", "dtype", "shape / value", "CPU mode", "role"):
        table.add_column(header)
    cpu = {p.name: p for p in small.parameters}
    for p in spec.parameters:
        shown = (lambda q: escape(_shape_text(q)) if isinstance(q, Tensor) else str(q.value))
        table.add_row(p.name, p.kind, p.dtype, shown(p), shown(cpu[p.name]) if p.name in cpu else "?",
                      getattr(p, "role", "in"))
    console.print(table)
    if small.shrunk_from:
        console.print("CPU mode halves: " + ", ".join(f"{n} {small.shrunk_from[n]} -> {v}"
                                                      for n, v in small.sizes_used.items()), markup=False)
    console.print(f"tolerance: {_tolerance_text(spec)}", markup=False)
    console.print(f"tests: KernelBench's {TRIALS} trials, each on inputs get_inputs() draws from its own seed, then the "
                  f"judge's own: {'; '.join(f'{name} ({DISTRIBUTIONS[name]})' for name in OWN_TRIALS)}; the "
                  "benchmark: one more draw for every timed call", markup=False)
    console.print("a solution defines class ModelNew(nn.Module): ModelNew(*get_init_inputs()), built under the "
                  "run's seed as Model is (the same weights where it makes the same parameters in the same order), "
                  "returns forward's outputs as new tensors (docs/kernelbench.md)", markup=False, highlight=False)


def render_challenge(console, spec, example: Callable[[], str]) -> None:
    """``judge show``: statement, signature, parameters, sizes, tolerance, benchmarks and the
    worked example (``example()``, asked for last: computing it may take seconds)."""
    console.print(f"[bold]{escape(spec.title)}[/] ({spec.name}, {spec.difficulty})  ·  {escape(spec.source)}")
    if getattr(spec, "kernelbench", False):  # a KernelBench problem file: its code is its statement
        render_kernelbench(console, spec)
        return
    if getattr(spec, "shipped", False):  # a LeetGPU folder: the statement is text from its HTML
        console.print(spec.statement, markup=False)
        _render_leetgpu(console, spec)
        console.print("\n" + CONVENTIONS, markup=False, highlight=False)
        return
    if console.no_color:
        console.print(spec.statement, markup=False)
    else:
        from rich.markdown import Markdown  # a tenth of a second to import: only where it is drawn

        console.print(Markdown(spec.statement), markup=False)
    console.print(f"\nsignature: {spec.signature_text()}")
    console.print(f"in CUDA C++: {_c_prototype(spec)}", markup=False, highlight=False)
    console.print(_parameter_table(console, spec))
    console.print(f"sizes: {size_ranges(spec)}")
    for c in spec.constraints:
        console.print(f"constraint: {c}")
    console.print(f"tolerance: {_tolerance_text(spec)}")
    console.print("benchmarks: " + ("; ".join(_benchmark_labels(spec)) or "none"))
    console.print("\nexample:", markup=False)
    console.print(example(), markup=False)
    console.print("\n" + CONVENTIONS, markup=False, highlight=False)


def challenge_facts(spec) -> dict:
    """What ``judge show`` says of a challenge besides its statement and example, as strings and rows
    (``judge ui``'s challenge page): signature, C prototype, parameters, sizes, constraints, tolerance,
    benchmarks.  A LeetGPU folder's tests are generated: it has no sizes or benchmarks here."""
    shipped = getattr(spec, "shipped", False)
    parameters = [{"name": p.name, "kind": p.kind, "dtype": p.dtype, "shape": _shape_or_value(p, shipped),
                   "role": getattr(p, "role", "in")} for p in spec.parameters]
    return {
        "signature": spec.signature_text(), "c_prototype": _c_prototype(spec), "parameters": parameters,
        "sizes": "" if shipped else size_ranges(spec), "constraints": [str(c) for c in spec.constraints],
        "tolerance": _tolerance_text(spec), "benchmarks": [] if shipped else _benchmark_labels(spec),
    }


def _shape_or_value(p, shipped: bool) -> str:
    """A tensor's shape, a scalar's formula; a LeetGPU folder's tensors and models are built by its tests."""
    if isinstance(p, Tensor):
        return "built by its tests" if shipped else _shape_text(p)
    if isinstance(p, Scalar):
        return str(p.value)
    return "built by its tests"  # a torch.nn.Module (LeetGPU folders only)


def _c_prototype(spec) -> str:
    """``solve``'s declaration in a .cu file (docs/cuda.md), or why C cannot take it."""
    from judge.challenge.c_signature import UnsupportedCType, prototype

    try:
        return prototype(spec.parameters)
    except UnsupportedCType as exc:
        return f"not possible ({exc})"


def _render_leetgpu(console, spec) -> None:
    """``judge show`` of a LeetGPU folder: its tests are generated, so their sizes are shown (built on the meta device)."""
    from judge.challenge.leetgpu import build_performance_test, build_tests

    console.print(f"\nsignature: {spec.signature_text()}", markup=False)
    console.print(f"in CUDA C++: {_c_prototype(spec)}", markup=False, highlight=False)
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
        example = _shape_text(value) if isinstance(p, Tensor) else str(value)
        table.add_row(p.name, declared.get(p.name, ""), p.dtype, getattr(p, "role", "in"), escape(example))
    console.print(table)
    console.print(f"tolerance: {_tolerance_text(spec)}", markup=False)
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
            table.add_row(p.name, "tensor", p.dtype, escape(_shape_text(p)), p.role)
        elif isinstance(p, Scalar):
            table.add_row(p.name, "scalar", p.dtype, str(p.value), "in")
    return table
