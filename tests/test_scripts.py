"""scripts/ beside the package (issue 50, docs/architecture.md "Around the pipeline"): every script says in its
first lines which figure in docs/ it reproduces or what runs it, every script docs/ names is there unless the
sentence says it was removed, and the one-off probes' folder research/ does not come back.

Reads files only: nothing here runs a script."""

from __future__ import annotations

import re

from conftest import ROOT

SCRIPTS = ROOT / "scripts"
# What a kept script's first lines must say: a figure it reproduces, or who runs or sources it.
HEADER = re.compile(r"^# (Reproduces: docs/|Run by `scripts/gpu_check\.sh|Used by scripts/|Sourced by |Writes docs/|"
                    r"The project's one GPU check)")
REMOVED = "removed in issue 50"
KERNELBENCH_OWN = {"eval_from_generations.py", "benchmark_eval_analysis.py"}  # its checkout's scripts/ (docs/kernelbench.md)


def _header(path) -> list[str]:
    lines = path.read_text().splitlines()[:3]
    return lines[1:] if lines and lines[0].startswith("#!") else lines


def test_every_script_names_the_figure_it_reproduces_or_what_runs_it():
    unnamed = [p.name for p in sorted(SCRIPTS.iterdir()) if p.is_file() and not HEADER.match(_header(p)[0])]
    assert unnamed == []


def test_the_docs_a_scripts_header_names_exist():
    named = {(p.name, doc) for p in SCRIPTS.iterdir() if p.is_file()
             for doc in re.findall(r"docs/([\w.-]+\.md)", " ".join(p.read_text().splitlines()[:6]))}
    missing = sorted((script, doc) for script, doc in named
                     if not (ROOT / "docs" / doc).exists() and doc != "gpu-results.md")  # gpu_results.py writes it
    assert missing == []


def test_every_script_the_docs_name_is_kept_or_said_to_be_removed():
    """A paragraph may name a deleted script only to say where it went (git history keeps it)."""
    dangling = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for paragraph in (" ".join(p.split()) for p in re.split(r"\n\s*\n", doc.read_text())):
            for name in re.findall(r"(?:scripts|research)/([\w-]+\.(?:py|sh))", paragraph):
                if not (SCRIPTS / name).exists() and REMOVED not in paragraph and name not in KERNELBENCH_OWN:
                    dangling.append(f"{doc.name}: {name}")
    assert dangling == []


def test_research_is_gone():
    assert not (ROOT / "research").exists()
