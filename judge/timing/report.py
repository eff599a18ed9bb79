"""Rendering benchmark results (filled in with the timing method)."""


def render_benchmarks(console, result) -> None:
    for bench in result.benchmarks:
        console.print(bench)
