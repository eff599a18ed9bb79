"""What the catalogue and a challenge's page show, as JSON-ready dicts: the challenges of the
search path and of the LeetGPU folders given, each with its best result in the history."""

from __future__ import annotations

import inspect
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from judge.challenge.catalog import SearchPath, _find_entry, list_entries, load_challenge
from judge.report.challenge_views import challenge_facts, size_ranges
from judge.ui.statement import example_block, leetgpu_statement_html, statement_html

__all__ = ["Catalogue", "CatalogueItem", "LANGUAGES", "best_results", "challenge_page", "language_of", "starter_text"]


@dataclass(frozen=True)
class CatalogueItem:
    ref: str  # what the page asks for: a challenge's name, or a LeetGPU folder's path
    name: str
    title: str
    difficulty: str
    source: str  # "built-in", "user" or "LeetGPU"
    signature: str
    sizes: str
    tags: tuple
    where: str


class Catalogue:
    """The challenges the page may open; nothing else is ever loaded from what a page asks for."""

    def __init__(self, search: SearchPath, leetgpu_dirs=(), kernelbench_dirs=(), cache_dir: Path | None = None):
        self.search, self.leetgpu_dirs = search, tuple(Path(d) for d in leetgpu_dirs)
        self.kernelbench_dirs = tuple(Path(d) for d in kernelbench_dirs)
        self._refs: frozenset = frozenset()
        self._folders: frozenset = frozenset()  # the refs that are LeetGPU folders' paths
        self._short: dict[str, str] = {}  # a LeetGPU folder's name, where one folder has it: its ref
        self.cache = FolderCache(cache_dir)
        self.progress: dict = {}  # while a folder is listed: {"folder", "done", "total"} (the page shows it)

    def items(self) -> list[CatalogueItem]:
        """Listed afresh each time: a spec added to a folder appears on the next visit.  A LeetGPU or
        KernelBench folder is listed again only when one of its files changed (``FolderCache``): importing
        every challenge.py of a LeetGPU checkout took 1.5-1.8 s each visit, 24 s on a first start."""
        items = [_yaml_item(e) for e in list_entries(self.search) if e.spec is not None and e.status == "ok"]
        folders = []
        for root in self.leetgpu_dirs:
            folders += self.cache.items(root, lambda r: _leetgpu_items(r, self._progress_of(r)))
        for root in self.kernelbench_dirs:
            folders += self.cache.items(root, _kernelbench_items)
        self.progress = {}
        named: dict[str, list[str]] = {}
        for item in folders:
            named.setdefault(item.name, []).append(item.ref)
        self._short = {name: refs[0] for name, refs in named.items() if len(refs) == 1}
        self._folders = frozenset(item.ref for item in folders) - {item.ref for item in items}
        items += folders
        self._refs = frozenset(item.ref for item in items)
        return items

    def _progress_of(self, root: Path):
        def progress(done: int, total: int) -> None:
            self.progress = {"folder": str(root), "done": done, "total": total}
        return progress

    def resolve(self, ref: str) -> str:
        """``ref`` as listed: a LeetGPU or KernelBench folder's name (``#/c/3_matrix_transpose``) stands for
        its path where no other challenge has that name."""
        if ref not in self._refs:
            self.items()
        return ref if ref in self._refs else self._short.get(ref, ref)

    def load(self, ref: str):
        """The spec of a listed challenge; LookupError for anything else (a path the page made up)."""
        ref = self.resolve(ref)
        if ref not in self._refs:
            raise LookupError(f"no challenge {ref!r} in this workspace's catalogue")
        if ref in self._folders:
            return load_challenge(ref, self.search)  # a LeetGPU folder's absolute path, as listed
        # A name, looked up on the search path only: load_challenge would first take it as a path, and a folder
        # of the current directory named like a challenge (./transpose of judge ui --workspace ., or a cloned
        # repository's ./transpose/challenge.py) would stand in for it.
        entry = _find_entry(ref, self.search)
        if entry.error is not None:
            raise entry.error
        return entry.spec


def _yaml_item(entry) -> CatalogueItem:
    spec = entry.spec
    tags = tuple(t for t in (spec.bound and f"{spec.bound}-bound", spec.variant_of and "variant",
                             spec.require_kernel and "own kernel") if t)
    return CatalogueItem(spec.name, spec.name, spec.title, spec.difficulty, "built-in" if entry.is_builtin else "user",
                         spec.signature_text(), size_ranges(spec), tags, entry.origin if entry.is_builtin else str(entry.path))


class FolderCache:
    """A folder's catalogue items, kept while none of its files changed: in memory, and as JSON under the
    judge's cache folder for the next ``judge ui`` (the key: every file's path, size and modification time
    under the folder, and the judge's own code, whose reading of a folder may change)."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder
        self.memory: dict[str, tuple[str, list[CatalogueItem]]] = {}

    def items(self, root: Path, list_items) -> list[CatalogueItem]:
        key = folder_key(root)
        held = self.memory.get(str(root))
        if held is not None and held[0] == key:
            return held[1]
        items = self._read(root, key)
        if items is None:
            items = list_items(root)
            self._write(root, key, items)
        self.memory[str(root)] = (key, items)
        return items

    def _file(self, root: Path) -> Path | None:
        import hashlib

        if self.folder is None:
            return None
        return self.folder / f"catalogue-{hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]}.json"

    def _read(self, root: Path, key: str) -> list[CatalogueItem] | None:
        import json

        file = self._file(root)
        try:
            data = json.loads(file.read_text()) if file is not None else None
            if not isinstance(data, dict) or data.get("key") != key:
                return None
            return [CatalogueItem(**{**item, "tags": tuple(item["tags"])}) for item in data["items"]]
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def _write(self, root: Path, key: str, items: list[CatalogueItem]) -> None:
        import json
        from dataclasses import asdict

        from judge.grading.outputs import write_atomically

        file = self._file(root)
        if file is None:
            return
        try:
            write_atomically(file, json.dumps({"key": key, "items": [asdict(i) for i in items]}), 0o600)
        except OSError:
            pass  # a cache: the next start lists the folder again


def folder_key(root: Path) -> str:
    """Every file under ``root`` (path, size, modification time; ``__pycache__`` left out) and the judge's
    code, hashed: another key when a challenge is added, edited or removed."""
    import hashlib
    import os

    from judge.server.compat import fingerprint

    parts = [fingerprint()]
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            parts.append(f"{os.path.relpath(os.path.join(folder, name), root)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _leetgpu_items(root: Path, progress=None) -> list[CatalogueItem]:
    from judge.challenge.leetgpu import list_folder

    out = []
    for listed in list_folder(root, progress):
        if listed.problem or listed.spec is None:  # judge list FOLDER says why; the page lists what runs
            continue
        spec = listed.spec
        out.append(CatalogueItem(str(listed.folder.resolve()), listed.folder.name, spec.title, spec.difficulty,
                                 "LeetGPU", spec.signature_text(), listed.performance, ("leetgpu",),
                                 str(listed.folder)))
    return out


def _kernelbench_items(root: Path) -> list[CatalogueItem]:
    """The KernelBench problems under ``root`` that load (judge list FOLDER says why one does not)."""
    from judge.challenge.kernelbench import list_problems

    out = []
    for listed in list_problems(root):
        if listed.spec is None:
            continue
        spec = listed.spec
        out.append(CatalogueItem(str(listed.path.resolve()), spec.name, spec.title, spec.level, "KernelBench",
                                 spec.signature_text(), f"{spec.bytes_formula / 1e6:,.1f} MB a call", ("kernelbench",),
                                 str(listed.path)))
    return out


def best_results(conn: sqlite3.Connection | None, names: list[str]) -> dict[str, dict]:
    """Per challenge name: the best GPU score (ms) of an accepted run, how many runs were accepted in CPU
    mode, and the latest verdict; names never run are left out."""
    if conn is None:
        return {}
    out = {}
    for name in names:
        row = conn.execute("SELECT MIN(score_ms) AS best, SUM(verdict = 'accepted' AND score_ms IS NULL) AS cpu, "
                           "COUNT(*) AS runs FROM runs WHERE challenge = ?", (name,)).fetchone()
        if not row["runs"]:
            continue
        last = conn.execute("SELECT verdict FROM runs WHERE challenge = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()
        out[name] = {"best_ms": row["best"], "cpu_accepted": row["cpu"] or 0, "runs": row["runs"],
                     "last_verdict": last["verdict"]}
    return out


def challenge_page(spec) -> dict:
    """The statement as HTML (math for KaTeX): a spec's markdown, or a LeetGPU folder's own
    ``challenge.html`` (sanitized: statement.leetgpu_statement_html), else its ``challenge.py``'s
    docstring; the worked example as LeetGPU writes one (not for a ``challenge.html``, which has its own);
    the languages and their draft files; and what ``judge show`` prints besides."""
    leetgpu = bool(getattr(spec, "shipped", False))
    page = Path(spec.source) / "challenge.html" if leetgpu else None
    example = None
    if page is not None and page.is_file():
        statement, kind = leetgpu_statement_html(page.read_text(encoding="utf-8", errors="replace")), "html"
    elif getattr(spec, "kernelbench", False):  # a KernelBench problem is its code
        statement, kind = statement_html(f"```python\n{spec.statement}\n```"), "markdown"
    else:
        statement, kind = statement_html(spec.statement or _fallback_statement(spec)), "markdown"
        example = _example(spec)
    return {"name": spec.name, "title": spec.title, "difficulty": spec.difficulty, "source": str(spec.source),
            "statement_html": statement, "statement_kind": kind, "leetgpu": leetgpu, "example": example,
            "languages": [{"id": key, "label": label, "file": file} for key, (label, file) in LANGUAGES.items()],
            **challenge_facts(spec)}


def _fallback_statement(spec) -> str:
    """A LeetGPU folder without challenge.html: its Challenge class's docstring, said to be that."""
    doc = inspect.getdoc(getattr(spec, "challenge_class", None)) or ""
    where = f"{Path(spec.source).name} has no challenge.html (LeetGPU's statement)"
    if doc:
        return f"*{where}: this is its challenge.py's description.*\n\n{doc}"
    return f"*{where} and its challenge.py no description: the signature, the parameters and the example below " \
           "are what this folder says.*"


def _example(spec) -> str | None:
    """The example block, or None where the example cannot be computed (a generator that fails on the CPU)."""
    from judge.authoring.example import example_values

    try:
        return example_block(example_values(spec))
    except Exception:  # noqa: BLE001 - someone else's generator or reference: the page shows no example
        return None


# The editor's languages and their drafts (files: judge run and watch in a terminal judge the same ones).
LANGUAGES = {"triton": ("Triton", "solution.py"), "pytorch": ("PyTorch", "solution_pytorch.py"),
             "cuda": ("CUDA", "solution.cu")}
LEETGPU_STARTERS = {"triton": "starter.triton.py", "pytorch": "starter.pytorch.py", "cuda": "starter.cu"}


def language_of(file: str) -> str:
    """A draft's language by its name: ``.cu`` CUDA, ``solution_pytorch.py`` PyTorch, any other ``.py`` Triton."""
    if file.endswith(".cu"):
        return "cuda"
    return "pytorch" if file == LANGUAGES["pytorch"][1] else "triton"


def starter_text(spec, file: str) -> str:
    """What a new draft starts as: a LeetGPU folder's own starter for the language, else (``judge init``'s)
    one made from the signature."""
    from judge.authoring.starter import cuda_starter_source, pytorch_starter_source, starter_source
    from judge.challenge.c_signature import UnsupportedCType

    language = language_of(file)
    if getattr(spec, "kernelbench", False):  # the problem's Model renamed ModelNew; always a .py file
        from judge.authoring.kernelbench_starter import kernelbench_starter

        if language == "cuda":
            return "// a KernelBench solution is a .py file: CUDA C++ goes through torch's load_inline in it\n"
        return kernelbench_starter(spec.text, spec.name, language)
    if getattr(spec, "shipped", False):
        starter = Path(spec.source) / "starter" / LEETGPU_STARTERS[language]
        if starter.is_file():
            return starter.read_text(encoding="utf-8")
    if language == "cuda":
        try:
            return cuda_starter_source(spec)
        except UnsupportedCType as exc:
            return f"// A CUDA C++ solve() cannot take this challenge's arguments: {exc}\n"
    return pytorch_starter_source(spec) if language == "pytorch" else starter_source(spec)


def own_versions(runs: list[dict]) -> list[dict]:
    """Each version (by content hash) of one's solutions, newest first: its file, runs (how many were
    Runs and Submits), verdicts, the most tests it passed out of that run's total; the GPU-timed ranking
    of the accepted ones is the leaderboard's (history/leaderboard.py)."""
    by_hash: dict[str, dict] = {}
    for run in sorted(runs, key=lambda r: r["id"]):
        version = by_hash.setdefault(run["solution_hash"], {
            "solution_hash": run["solution_hash"], "solution": run["solution_path"], "runs": 0, "accepted": 0,
            "kinds": {}, "best_passed": 0, "tests_total": 0, "best_ms": None, "first_at": run["created_at"]})
        version["runs"] += 1
        version["accepted"] += run["verdict"] == "accepted"
        kind = run.get("kind") or ("rank" if run.get("command") == "rank" else "terminal")
        version["kinds"][kind] = version["kinds"].get(kind, 0) + 1
        passed, total = run["tests_passed"] or 0, run["tests_total"] or 0
        # the best run's own total, not the first run's (a compile error's 0 made "18/0")
        if version["runs"] == 1 or (passed, passed - total) > \
                (version["best_passed"], version["best_passed"] - version["tests_total"]):
            version["best_passed"], version["tests_total"] = passed, total
        version.update(last_verdict=run["verdict"], last_at=run["created_at"], solution=run["solution_path"])
        if run["score_ms"] is not None and (version["best_ms"] is None or run["score_ms"] < version["best_ms"]):
            version["best_ms"] = run["score_ms"]
    return sorted(by_hash.values(), key=lambda v: v["last_at"], reverse=True)
