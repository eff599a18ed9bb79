"""The package's shape, as docs/architecture.md promises it: judge/'s folders
form layers that only import downwards (a DAG read bottom-up as the pipeline),
no import cycles between modules, pure modules that stay pure (no I/O, no GPU,
no clock, nothing impure reached through another judge module), and timing's
method never importing the worker.

Read from the source with ``ast`` (imports inside functions count too), so
nothing here imports torch.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "judge"

# Modules of pure computation: tested directly, no I/O, no GPU, no processes.
PURE = [
    "judge.base.text", "judge.base.suggest", "judge.challenge.expr", "judge.challenge.cases", "judge.challenge.spec_model",
    "judge.challenge.spec_signature", "judge.challenge.spec_parser", "judge.authoring.starter",
    "judge.challenge.conventions", "judge.challenge.c_signature",
    "judge.judging.verdict", "judge.judging.failures", "judge.judging.hints", "judge.judging.profile_needs", "judge.judging.error_order", "judge.judging.sanitizer_report",
    "judge.timing.stats", "judge.timing.audit", "judge.timing.kernel_profile", "judge.timer.fills", "judge.timer.guard", "judge.challenge.seeds", "judge.timing.speed",
    "judge.ranking.ranking_math", "judge.history.leaderboard", "judge.watch.run_changes",
    "judge.worker.deadline", "judge.worker.nvcc",
    "judge.report.json_export", "judge.report.junit", "judge.grading.schedule", "judge.grading.breakdown",
    "judge.ui.guard", "judge.ui.statement", "judge.doctor.diagnosis",
    "judge.challenge.kernelbench_format", "judge.grading.fast_p", "judge.authoring.kernelbench_starter",
    "judge.judging.reward_hacks", "judge.judging.kernelbench_verdict", "judge.grading.kernelbench_runs",
]  # the table renderers (report/*_tables, benchmark_table, markdown) draw through rich's console: not listed
IMPURE_IMPORTS = {"torch", "triton", "os", "sys", "subprocess", "sqlite3", "socket", "threading", "multiprocessing",
                  "shutil", "tempfile", "io", "pathlib", "glob", "time", "datetime", "yaml", "importlib", "ctypes",
                  "signal", "select", "pickle", "asyncio", "urllib", "http"}
IMPURE_CALLS = {"open", "input", "print", "exec", "eval", "__import__", "breakpoint"}  # builtins that do I/O or run code

# judge/'s folders bottom-up: a folder may import only folders of lower layers (imports inside
# functions count); folders of one layer are siblings that never import each other.  The root
# package (``judge``: its version) may be imported from anywhere.
LAYERS = [
    ("base", "challenges"),      # paths, wire format, exit codes, bytecode, profiling; the built-in challenges' data
    ("challenge",),              # the spec model, loader and cases, inputs, LeetGPU folders
    ("defence",),                # the worker's confinement: namespaces, sandbox, limits, its process tree; one interface
    ("timer",),                  # the worker-side timed loop: guard, flush, one measured call
    ("worker", "timing"),        # the solution's process and its client; judge-side timing method and peaks
    ("judging",),                # checks, reference, verdicts, the runner and its benchmark stage
    ("authoring", "report"),     # validate, scaffold, example, starter; tables and exporters
    ("ranking", "grading"),      # rank and sweep; grading many submissions
    ("history", "watch"),        # SQLite history and leaderboard; watch's run changes and file watching
    ("server",),                 # the judge server's client side: what `judge run` calls
    ("ui", "doctor"),            # judge ui's web app (its judgements' workers from the judge server); judge doctor
    ("cli",),                    # thin click commands
    ("daemon",),                 # the judge server itself, which runs cli commands
    ("launch",),                 # the entry point: a served command goes to the server, the rest to cli
    ("__main__",),               # python -m judge
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    return _imports_of(path.read_text())


def _imports_of(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
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
    assert "judge.timer.timed_loop" in inner["judge.worker.session"]
    reached = _reach(inner, "judge.timer.timed_loop")
    assert not {m for m in reached if m.startswith("judge.worker")}


def _folder(module: str) -> str:
    """judge.timing.stats -> timing; judge.launch -> launch; judge -> judge."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _layer_breaks(edges: dict[str, set[str]], layers: list[tuple[str, ...]]) -> list[str]:
    """Every folder-to-folder import that does not go strictly downwards in ``layers``."""
    rank = {folder: i for i, layer in enumerate(layers) for folder in layer}
    breaks = []
    for module, imported in sorted(edges.items()):
        for target in sorted(imported):
            src, dst = _folder(module), _folder(target)
            if src == dst or dst == "judge":
                continue
            if src not in rank or dst not in rank:
                breaks.append(f"{module} -> {target}: folder {src if src not in rank else dst} has no layer")
            elif rank[dst] >= rank[src]:
                breaks.append(f"{module} -> {target}: {src} may not import {dst}")
    return breaks


def test_every_folder_of_the_judge_has_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists() or
               p.is_dir() and any(p.glob("*.py"))} | {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    listed = {folder for layer in LAYERS for folder in layer} - {"challenges"}
    assert folders == listed


def test_the_folders_import_only_downwards():
    """spec/cases -> defence -> timer -> worker, timing -> judging -> report, authoring -> ranking, grading ->
    history, watch -> server -> cli -> daemon: no folder imports one of its own layer or above."""
    inner, _ = _graph()
    assert _layer_breaks(inner, LAYERS) == []


def test_the_layer_check_finds_an_upward_or_sideways_import():
    layers = [("base",), ("worker", "timing"), ("judging",)]
    assert _layer_breaks({"judge.worker.client": {"judge.timing.peaks"}}, layers) == [
        "judge.worker.client -> judge.timing.peaks: worker may not import timing"]
    assert _layer_breaks({"judge.base.paths": {"judge.judging.verdict"}}, layers) == [
        "judge.base.paths -> judge.judging.verdict: base may not import judging"]
    assert _layer_breaks({"judge.judging.runner": {"judge.base.paths", "judge.judging.verdict", "judge"}}, layers) == []
    assert "has no layer" in _layer_breaks({"judge.extra.x": {"judge.base.paths"}}, layers)[0]


def _impurities(source: str) -> list[str]:
    """What in one module's source does I/O or reads the clock: impure imports, I/O builtins called."""
    found = sorted({m.split(".")[0] for m in _imports_of(source)} & IMPURE_IMPORTS)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IMPURE_CALLS:
            found.append(f"{node.func.id}()")
    return found


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_call_no_io_builtin(module):
    inner, _ = _graph()
    for name in {module} | _reach(inner, module):
        path = PACKAGE.parent / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = PACKAGE.parent / name.replace(".", "/") / "__init__.py"
        assert not _impurities(path.read_text()), f"{module} reaches {name}: {_impurities(path.read_text())}"


def test_the_purity_check_finds_clocks_files_and_yaml():
    assert _impurities("import time\ndef f():\n    return time.time()\n") == ["time"]
    assert _impurities("from pathlib import Path\ndef f():\n    return Path('x').read_text()\n") == ["pathlib"]
    assert _impurities("def f():\n    import yaml\n    return yaml.safe_load('a: 1')\n") == ["yaml"]
    assert _impurities("def f(p):\n    return open(p).read()\n") == ["open()"]
    assert _impurities("import math\ndef f(x):\n    return math.sqrt(x)\n") == []


def _literal_exits(source: str) -> list[str]:
    """sys.exit(<number>) calls and EXIT_* = <number> constants: statuses that bypass ExitCode."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "exit"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int)):
            found.append(f"exit({node.args[0].value})")
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            found += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.startswith("EXIT_")]
    return found


def test_exit_statuses_come_from_one_enum():
    """One table of exit statuses (judge/base/exit_codes.py): no command exits with a bare number."""
    offenders = {str(p.relative_to(PACKAGE)): found for p in PACKAGE.rglob("*.py")
                 if p.name != "exit_codes.py" and (found := _literal_exits(p.read_text()))}
    assert offenders == {}
    assert _literal_exits("import sys\nEXIT_INTERRUPTED = 130\nsys.exit(1)\n") == ["EXIT_INTERRUPTED", "exit(1)"]


# Test files of pure logic: they must run where torch and triton are not installed at all.
PURE_TESTS = ["test_cases.py", "test_expr.py", "test_history.py", "test_ranking.py", "test_run_changes.py",
              "test_spec.py", "test_stats.py", "test_schedule.py", "test_reward_hacks.py",
              "test_kernelbench_runs.py", "test_hints.py"]


def test_pure_tests_need_no_torch(tmp_path):
    """The pure tests pass with torch and triton unimportable (conftest imports torch only for GPU tests)."""
    for name in ("torch", "triton"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('{name} is not installed here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    tests = [str(Path(__file__).parent / name) for name in PURE_TESTS]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *tests],
                          capture_output=True, text=True, env=env, cwd=PACKAGE.parent, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "error" not in done.stdout.splitlines()[-1]


def test_the_defence_room_imports_nothing_of_the_judge_outside_itself():
    """judge/defence/ is one room with one interface (policy.py): a red-team fix lands there, and what it
    confines with cannot depend on the code it confines."""
    inner, _ = _graph()
    outside = sorted(f"{module} -> {target}" for module, targets in inner.items() if module.startswith("judge.defence")
                     for target in targets if not target.startswith("judge.defence"))
    assert outside == []


def _switch_reads(source: str) -> list[int]:
    """Lines of a module that name a defence switch's variable by itself (a string equal to it)."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and node.value in ("JUDGE_SANDBOX", "JUDGE_NAMESPACES")]


def test_the_defence_switches_are_read_in_one_place():
    """JUDGE_SANDBOX and JUDGE_NAMESPACES were read in five modules in four folders; now only
    judge/defence/switches.py names them, and everything else asks it (or judge/defence/policy.py)."""
    found = {str(path.relative_to(PACKAGE.parent)): lines for path in sorted(PACKAGE.rglob("*.py"))
             if (lines := _switch_reads(path.read_text()))}
    assert list(found) == ["judge/defence/switches.py"], found
    assert _switch_reads('import os\nos.environ.get("JUDGE_SANDBOX")\n') == [2]
