"""The package's shape, as docs/architecture.md promises it: no import cycles,
pure modules that stay pure (no I/O, no GPU, nothing impure reached through
another judge module), and timing's method never importing the worker.

Read from the source with ``ast`` (imports inside functions count too), so
nothing here imports torch.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "judge"

# Modules of pure computation: tested directly, no I/O, no GPU, no processes.
PURE = [
    "judge.challenge.expr", "judge.challenge.cases", "judge.challenge.spec_model",
    "judge.challenge.spec_signature", "judge.challenge.spec_parser", "judge.challenge.starter",
    "judge.challenge.conventions",
    "judge.judging.verdict",
    "judge.timing.stats", "judge.timing.audit", "judge.timing.fills", "judge.timing.seeds", "judge.timing.speed",
    "judge.comparing.ranking_math", "judge.comparing.leaderboard", "judge.comparing.run_changes",
    "judge.worker.deadline",
    "judge.report.json_export", "judge.report.junit",
]  # the table renderers (report/*_tables, benchmark_table, markdown) draw through rich's console: not listed
IMPURE_IMPORTS = {"torch", "triton", "os", "subprocess", "sqlite3", "socket", "threading", "multiprocessing",
                  "shutil", "tempfile", "io"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@functools.lru_cache(maxsize=1)
def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """judge module -> the judge modules it imports; judge module -> top-level outside packages."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    inner, outer = {}, {}
    for name, path in paths.items():
        imported = _imports(path)
        inner[name] = {m for m in imported if m in paths and m != name and m != "judge"}
        outer[name] = {m.split(".")[0] for m in imported if not m.startswith("judge")}
    return inner, outer


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path, or None (depth-first search with colours)."""
    state, path = {}, []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_no_module_of_the_judge_imports_itself_round_a_circle():
    inner, _ = _graph()
    assert _cycle(inner) is None, " -> ".join(_cycle(inner))


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_do_no_io_and_touch_no_gpu(module):
    inner, outer = _graph()
    assert module in inner, f"{module} is listed as pure but does not exist"
    for name in {module} | _reach(inner, module):
        impure = outer[name] & IMPURE_IMPORTS
        assert not impure, f"{module} reaches {name}, which imports {sorted(impure)}"


def test_the_timed_loop_owns_the_method_and_never_reaches_the_worker():
    """The worker's session imports the timed loop and calls it with itself; the
    loop (and everything it imports) never imports the worker back."""
    inner, _ = _graph()
    assert "judge.timing.timed_loop" in inner["judge.worker.session"]
    reached = _reach(inner, "judge.timing.timed_loop")
    assert not {m for m in reached if m.startswith("judge.worker")}
