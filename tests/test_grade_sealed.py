"""What a graded submission may read, write and show (docs/security.md), end to end: one folder
of hostile submissions graded once, as a subprocess, the way a course grades students' repositories.
Before the defences each of these leaked the grader's files or environment, or rewrote a classmate's.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from judge.defence import sandbox
from conftest import ROOT, SOLUTIONS, SPECS

pytestmark = pytest.mark.slow
LANDLOCK = sandbox.available()["landlock"].startswith("on")
SECRET_TEXT = "SECRET_TOKEN=hunter2"
TOKEN = "ghp_leaked0123456789"

REWRITES = """
def solve(input, output, rows, cols):
    with open({target!r}, "w") as f:
        f.write("def solve(*args):\\n    pass\\n")
    raise RuntimeError("rewrote it")
"""
READS = """
def solve(input, output, rows, cols):
    raise RuntimeError("found: " + open({target!r}).read())
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("sealed")
    subs = base / "submissions"
    alice = subs / "alice" / "tiny_transpose.py"
    hidden = base / "hidden_tests.txt"
    hidden.write_text(SECRET_TEXT)
    sources = {
        "alice": (SOLUTIONS / "transpose_ok.py").read_text(),
        "grace": REWRITES.format(target=str(alice)),  # a classmate's file
        "heidi": READS.format(target=str(hidden)),  # the grader's hidden tests
        "ivan": (SOLUTIONS / "hostile_environment.py").read_text(),  # the CI job's tokens
    }
    for who, source in sources.items():
        (subs / who).mkdir(parents=True)
        (subs / who / "tiny_transpose.py").write_text(source)
    (subs / "frank").mkdir()
    (subs / "frank" / "tiny_transpose.py").symlink_to(hidden)  # git keeps links
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JUDGE_CHALLENGES_PATH": str(SPECS), "GITHUB_TOKEN": TOKEN}
    proc = subprocess.run([sys.executable, "-m", "judge", "grade", "--dir", str(subs), "--seed", "4", "--jobs", "2",
                           "--json", str(base / "r.json"), "--junit", str(base / "r.xml")],
                          capture_output=True, text=True, env=env, timeout=300, cwd=base)
    return {"proc": proc, "doc": json.loads((base / "r.json").read_text()), "xml": (base / "r.xml").read_text(),
            "alice": alice, "alice_source": sources["alice"]}


def test_a_link_to_a_file_outside_the_submission_is_invalid_and_never_read(graded):
    frank = next(r for r in graded["doc"]["results"] if r["submission"] == "frank")
    assert frank["verdict"] == "invalid_submission" and "symbolic link" in frank["message"]
    for text in (graded["xml"], json.dumps(graded["doc"]), graded["proc"].stdout, graded["proc"].stderr):
        assert "hunter2" not in text


def test_every_judged_file_is_recorded_with_the_hash_of_what_was_judged(graded):
    alice = next(r for r in graded["doc"]["results"] if r["submission"] == "alice")
    assert alice["verdict"] == "accepted"
    assert alice["sha256"] == hashlib.sha256(graded["alice_source"].encode()).hexdigest()
    assert alice["file"] == str(graded["alice"])


@pytest.mark.skipif(not LANDLOCK, reason="this kernel or installation has no Landlock")
def test_a_submission_can_neither_rewrite_a_classmates_file_nor_read_the_graders(graded):
    results = {r["submission"]: r for r in graded["doc"]["results"]}
    assert results["alice"]["verdict"] == "accepted"
    assert graded["alice"].read_text() == graded["alice_source"]  # the original is untouched
    # the worker's read-only mounts refuse the write first (EROFS); Landlock would too (EACCES)
    assert results["grace"]["verdict"] == "runtime_error"
    assert "Read-only file system" in results["grace"]["message"] or "Permission denied" in results["grace"]["message"]
    assert results["heidi"]["verdict"] == "runtime_error" and "Permission denied" in results["heidi"]["message"]
    assert "hunter2" not in json.dumps(graded["doc"])
    assert "judge-submission-" not in json.dumps(graded["doc"])  # tracebacks name the file where it came from
    assert str(graded["alice"].parent.parent / "grace" / "tiny_transpose.py") in results["grace"]["tests"][0]["message"]


def test_a_submission_sees_none_of_the_ci_jobs_tokens(graded):
    ivan = next(r for r in graded["doc"]["results"] if r["submission"] == "ivan")
    assert ivan["verdict"] == "runtime_error" and "PATH=" in json.dumps(ivan)
    assert TOKEN not in json.dumps(graded["doc"]) and TOKEN not in graded["xml"]
