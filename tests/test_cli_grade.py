"""``judge grade`` end to end: real workers, Triton's interpreter, CPU.

One folder of submissions (correct, wrong, crashing, hanging, one that tries
to leak the secret seed, one with an unknown challenge) is graded once, as a
subprocess with a secret seed, and most tests read its outputs; the resume and
--min-pass tests re-use its JSON, so they judge nothing again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.grading.records import combine_seed, problem_record
from judge.grading.submissions import Entry
from conftest import ROOT, SOLUTIONS, SPECS

pytestmark = pytest.mark.slow
SECRET = "s3cr3t-Zq81x"
SEED = 5

# The runner gives a solution's first call the compile timeout (JIT), so a
# solution that hangs at once takes --compile-timeout to fail; this one hangs
# on its second call, where --timeout 2 applies.
HANGS_LATER = """
import time
calls = 0

def solve(input, output, rows, cols):
    global calls
    calls += 1
    if calls > 1:
        while True:
            time.sleep(0.05)
    output.copy_(input.T)
"""

# Tries every way a submission could find the secret seed, prints what it found
# and fails, so its output ends up in the report.
LEAKY = """
import os

def solve(input, output, rows, cols):
    found = [os.environ.get("JUDGE_SECRET_SEED", "not in my environment")]
    try:
        found.append(open(f"/proc/{os.getppid()}/environ", "rb").read().decode(errors="replace"))
    except OSError as exc:
        found.append(f"parent environ: {exc}")
    print("leak:", *found, flush=True)
    raise RuntimeError("leak: " + " ".join(found))
"""

SUBMISSIONS = {
    ("alice", "tiny_transpose"): (SOLUTIONS / "transpose_ok.py").read_text(),
    ("bob", "tiny_transpose"): (SOLUTIONS / "transpose_wrong_value.py").read_text(),
    ("carol", "tiny_transpose"): (SOLUTIONS / "transpose_crash.py").read_text(),
    ("carol", "transpos"): (SOLUTIONS / "transpose_ok.py").read_text(),  # a typo in the challenge's name
    ("dave", "tiny_transpose"): HANGS_LATER,
    ("eve", "tiny_transpose"): LEAKY,
}
EXPECTED = {("alice", "tiny_transpose"): "accepted", ("bob", "tiny_transpose"): "wrong_answer",
            ("carol", "tiny_transpose"): "runtime_error", ("carol", "transpos"): "invalid_submission",
            ("dave", "tiny_transpose"): "time_limit_exceeded", ("eve", "tiny_transpose"): "runtime_error"}
COMMON = ["--seed", str(SEED), "--timeout", "2"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The folder graded once: exit code, stdout, stderr and the output files."""
    base = tmp_path_factory.mktemp("grade")
    for (who, challenge), source in SUBMISSIONS.items():
        (base / "submissions" / who).mkdir(parents=True, exist_ok=True)
        (base / "submissions" / who / f"{challenge}.py").write_text(source)
    step_summary = base / "step_summary.md"
    step_summary.write_text("earlier step\n")
    env = {**os.environ, "JUDGE_SECRET_SEED": SECRET, "GITHUB_STEP_SUMMARY": str(step_summary),
           "PYTHONPATH": str(ROOT), "JUDGE_CHALLENGES_PATH": str(SPECS)}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "grade", "--dir", str(base / "submissions"), *COMMON, "--jobs", "2",
         "--json", str(base / "r.json"), "--junit", str(base / "out" / "reports" / "r.xml"),  # folders made
         "--summary", str(base / "r.md")],
        capture_output=True, text=True, env=env, timeout=300, cwd=base)
    return {"base": base, "proc": proc, "seconds": time.monotonic() - started,
            "json": json.loads((base / "r.json").read_text()), "xml": (base / "out" / "reports" / "r.xml").read_text(),
            "md": (base / "r.md").read_text(), "step": step_summary.read_text()}


def test_every_submission_gets_its_verdict_and_the_exit_code_is_1(graded):
    proc, doc = graded["proc"], graded["json"]
    assert proc.returncode == 1, proc.stderr
    assert {(r["submission"], r["challenge"]): r["verdict"] for r in doc["results"]} == EXPECTED
    assert doc["complete"] and doc["summary"]["accepted"] == 1 and doc["summary"]["total"] == 6
    assert "1 of 6 accepted: FAIL" in proc.stdout


def test_json_has_the_cases_and_the_public_seed_only(graded):
    results = {(r["submission"], r["challenge"]): r for r in graded["json"]["results"]}
    assert graded["json"]["seed"] == {"public": SEED, "secret": True, "label": f"{SEED} + secret"}
    wrong = results["bob", "tiny_transpose"]
    assert wrong["seed"] == SEED and wrong["secret_seed"] is True and len(wrong["key"]) == 64
    assert wrong["tests"][0]["verdict"] == "wrong_answer" and wrong["tests"][0]["params"]
    hang = results["dave", "tiny_transpose"]
    assert [t["verdict"] for t in hang["tests"]][:2] == ["accepted", "time_limit_exceeded"]
    assert "2" in hang["message"] and hang["wall_s"] < 60
    assert "unknown challenge 'transpos'" in results["carol", "transpos"]["message"]


def test_junit_parses_with_a_suite_per_submission(graded):
    root = ET.fromstring(graded["xml"])
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["alice", "bob", "carol", "dave", "eve"]
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "2", "3")
    assert [c.get("name") for c in suites["carol"].findall("testcase")] == ["tiny_transpose", "transpos"]
    failure = suites["bob"].find("testcase/failure")
    assert failure.get("type") == "wrong_answer" and failure.get("message").startswith("wrong_answer on edge-1 (rows=1")
    assert "wrong_answer on edge-1 (rows=1, cols=1):\n'output'" in failure.text
    assert suites["carol"].find("testcase[@name='tiny_transpose']/error").get("type") == "runtime_error"
    assert "IndexError" in suites["carol"].find("testcase/error").text
    assert suites["dave"].find("testcase/failure").get("type") == "time_limit_exceeded"


def test_markdown_summary_and_github_step_summary(graded):
    md = graded["md"]
    assert md.startswith("### ❌ judge grade: 1 of 6 accepted\n")
    assert re.search(r"\| alice \| tiny_transpose \| ✅ accepted \| (\d+)/\1 \|", md)
    assert "| dave | tiny_transpose | ❌ time_limit_exceeded |" in md
    assert graded["step"] == "earlier step\n" + md + "\n"  # appended once, earlier content kept


def test_the_secret_seed_is_never_printed(graded):
    effective = str(combine_seed(SEED, SECRET))
    leaky = next(r for r in graded["json"]["results"] if r["submission"] == "eve")
    assert "leak:" in leaky["message"] or "leak:" in leaky["tests"][0]["message"]  # it did try
    found = leaky["tests"][0]["message"]
    # Not in its environment; the judge is not in the worker's PID namespace (no /proc/0), its /proc environ is
    # denied to a non-root user (non-dumpable), and what root can read there is redacted.
    assert "not in my environment" in found
    assert any(seen in found for seen in ("JUDGE_SECRET_SEED=<secret>", "Permission denied", "No such file"))
    for name in ("json", "xml", "md", "step"):
        assert SECRET not in graded[name] and effective not in graded[name], name
    for stream in (graded["proc"].stdout, graded["proc"].stderr):
        assert SECRET not in stream and effective not in stream
    assert f"seed {SEED} + secret" in graded["proc"].stdout


def invoke(args, env=None):
    """judge grade in this process, with the secret and the tests' challenge folder."""
    return CliRunner().invoke(main, ["--challenges-dir", str(SPECS), "grade", *args],
                              env={"JUDGE_SECRET_SEED": SECRET, **(env or {})})


def resume_copy(graded, tmp_path) -> Path:
    copy = tmp_path / "r.json"
    shutil.copy(graded["base"] / "r.json", copy)
    return copy


def test_resume_grades_nothing_again(graded, tmp_path):
    copy = resume_copy(graded, tmp_path)
    started = time.monotonic()
    result = invoke(["--dir", str(graded["base"] / "submissions"), *COMMON, "--resume", "--json", str(copy)])
    assert result.exit_code == 1, result.output
    assert time.monotonic() - started < 5  # a judged submission costs seconds
    doc = json.loads(copy.read_text())
    before = {(r["submission"], r["challenge"]): r for r in graded["json"]["results"]}
    for r in doc["results"]:
        if r["challenge"] == "transpos":
            continue  # cannot be judged, so it has no key: re-checked, instantly
        assert r["carried_over"] and r["graded_at"] == before[r["submission"], r["challenge"]]["graded_at"]
    assert doc["summary"]["carried_over"] == 5 and result.output.count("[resumed]") == 5


def test_resume_re_grades_a_changed_submission_only(graded, tmp_path):
    submissions = tmp_path / "submissions"
    shutil.copytree(graded["base"] / "submissions", submissions)
    (submissions / "bob" / "tiny_transpose.py").write_text((SOLUTIONS / "transpose_ok.py").read_text())
    copy = resume_copy(graded, tmp_path)
    result = invoke(["--dir", str(submissions), *COMMON, "--resume", "--json", str(copy)])
    doc = json.loads(copy.read_text())
    fresh = [r for r in doc["results"] if not r.get("carried_over") and r["challenge"] != "transpos"]
    assert [(r["submission"], r["verdict"]) for r in fresh] == [("bob", "accepted")], result.output
    assert doc["summary"]["accepted"] == 2


def test_resume_with_another_secret_carries_nothing_over(graded, tmp_path):
    manifest = graded["base"] / "carol.yaml"  # one quick submission (it crashes at once)
    manifest.write_text("submissions: {carol: {tiny_transpose: submissions/carol/tiny_transpose.py}}")
    copy = resume_copy(graded, tmp_path)
    result = invoke(["--manifest", str(manifest), *COMMON, "--resume", "--json", str(copy)],
                    env={"JUDGE_SECRET_SEED": "another"})
    doc = json.loads(copy.read_text())
    assert result.exit_code == 1 and doc["summary"]["carried_over"] == 0 and doc["summary"]["graded"] == 1


@pytest.mark.parametrize("min_pass, code", [("1", 0), ("2", 1), ("0.16", 0), ("17%", 1), ("0", 0)])
def test_min_pass_relaxes_the_exit_code(graded, tmp_path, min_pass, code):
    copy = resume_copy(graded, tmp_path)
    result = invoke(["--dir", str(graded["base"] / "submissions"), *COMMON, "--resume", "--json", str(copy),
                     "--min-pass", min_pass])
    assert result.exit_code == code, result.output
    assert "--min-pass" in result.output


def test_manifest_names_the_same_submissions(graded, tmp_path):
    manifest = graded["base"] / "grading.yaml"
    manifest.write_text(
        f"challenges:\n  tiny_transpose: {SPECS / 'tiny_transpose.yaml'}\n"
        "submissions:\n"
        + "".join(f"  {who}:\n    tiny_transpose: submissions/{who}/tiny_transpose.py\n"
                  for who in ("alice", "bob", "carol", "dave", "eve")))
    copy = resume_copy(graded, tmp_path)
    result = invoke(["--manifest", str(manifest), *COMMON, "--resume", "--json", str(copy)])
    doc = json.loads(copy.read_text())
    assert result.exit_code == 1 and doc["summary"] == {**doc["summary"], "total": 5, "carried_over": 5}


def test_files_of_one_challenge_with_json_on_stdout(tmp_path):
    """CHALLENGE FILE...; --json - leaves nothing else on stdout; an
    empty secret (a CI secret not passed on) is a warning, and no secret."""
    result = CliRunner().invoke(main, ["grade", str(SPECS / "tiny_transpose.yaml"),
                                       str(SOLUTIONS / "transpose_ok.py"), str(SOLUTIONS / "transpose_crash.py"),
                                       "--seed", "3", "--json", "-", "--min-pass", "50%", "--jobs", "2"],
                                env={"JUDGE_SECRET_SEED": ""})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(r["submission"], r["verdict"]) for r in doc["results"]] == [
        (str(SOLUTIONS / "transpose_ok.py"), "accepted"), (str(SOLUTIONS / "transpose_crash.py"), "runtime_error")]
    assert doc["seed"] == {"public": 3, "secret": False, "label": "3"} and "1 of 2 accepted" in result.stderr
    assert "$JUDGE_SECRET_SEED is set but empty" in result.stderr


@pytest.mark.parametrize("args, words", [
    ([], "exactly one of"),
    (["tiny_transpose"], "give the solution files"),
    (["tiny_transpose", "x.py", "--dir", "."], "exactly one of"),
    (["nope", str(SOLUTIONS / "transpose_ok.py")], "unknown challenge 'nope'"),
    (["transpose", "missing.py"], "solution file not found: missing.py"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py")] * 1 + [str(SOLUTIONS / "transpose_ok.py")], "given twice"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py"), "--gpus", "all"], "--gpus needs CUDA GPUs"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py"), "--min-pass", "lots"], "--min-pass: 'lots'"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py"), "--resume", "--json", "-"], "--resume reads the results"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py"), "--json", "a.json", "--junit", "a.json"], "different files"),
    (["transpose", str(SOLUTIONS / "transpose_ok.py"), "--junit", "/dev/null/r.xml"], "cannot write"),
])
def test_usage_errors_exit_2(args, words):
    result = CliRunner().invoke(main, ["grade", *args])
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_a_bad_manifest_exits_2_with_every_problem(tmp_path):
    manifest = tmp_path / "grading.yaml"
    manifest.write_text("submissions:\n  a: {transpos: a.py}\n  b: {copy: 7}\n")
    result = CliRunner().invoke(main, ["grade", "--manifest", str(manifest)])
    assert result.exit_code == 2
    assert "submissions.a.transpos: unknown challenge" in result.output and "submissions.b.copy" in result.output


def test_resume_from_a_file_that_is_not_a_grade_exits_2(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text('{"verdict": "accepted"}')
    result = CliRunner().invoke(main, ["grade", "transpose", str(SOLUTIONS / "transpose_ok.py"),
                                       "--resume", "--json", str(bad)])
    assert result.exit_code == 2 and "not a 'judge grade' JSON document" in result.output


def test_an_interrupted_run_keeps_what_was_graded(tmp_path, monkeypatch):
    """Ctrl-C after the first submission: the outputs hold it, the rest is pending."""
    from judge.grading import session as grade_session

    calls = []

    def interrupt_second(entry, spec, key, settings, *args):
        calls.append(entry.path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return problem_record(Entry(entry.submission, entry.challenge, entry.path, None, "x"), key, settings)

    monkeypatch.setattr(grade_session, "judge_entry", interrupt_second)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["grade", str(SPECS / "tiny_transpose.yaml"),
                                       str(SOLUTIONS / "transpose_crash.py"), str(SOLUTIONS / "transpose_ok.py"),
                                       "--json", str(out), "--junit", str(tmp_path / "r.xml")])
    assert result.exit_code == 130, result.output
    doc = json.loads(out.read_text())
    assert [r["verdict"] for r in doc["results"]] == ["invalid_submission", "pending"] and not doc["complete"]
    assert ET.parse(tmp_path / "r.xml").getroot().get("skipped") == "1"


def test_an_empty_submission_folder_is_graded_no_submission_and_fails_the_grade(tmp_path):
    """Issue 29 item 11: `judge grade --dir` skipped a folder without a solution without a word (10 folders,
    9 results).  It is its own verdict in the JSON, the JUnit, the Markdown and the table, and a failure."""
    folder = tmp_path / "submissions"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "tiny_transpose.py").write_bytes(b"\x7fELF\x00")  # refused without a worker
    (folder / "frank").mkdir()
    (folder / "frank" / "notes.txt").write_text("I will hand it in tomorrow")
    out = {name: tmp_path / name for name in ("r.json", "r.xml", "r.md")}
    result = invoke(["--dir", str(folder), "--seed", "1", "--json", str(out["r.json"]), "--junit", str(out["r.xml"]),
                     "--summary", str(out["r.md"])], env={"NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    doc = json.loads(out["r.json"].read_text())
    assert [(r["submission"], r["challenge"], r["verdict"]) for r in doc["results"]] == [
        ("alice", "tiny_transpose", "invalid_submission"), ("frank", "tiny_transpose", "no_submission")]
    assert "holds no solution file (.py, .cu)" in doc["results"][1]["message"]
    assert doc["summary"]["by_verdict"] == {"invalid_submission": 1, "no_submission": 1}
    failure = ET.fromstring(out["r.xml"].read_text()).find("testsuite[@name='frank']/testcase/failure")
    assert failure.get("type") == "no_submission"
    assert "| frank | tiny_transpose | 📭 no_submission | - |" in out["r.md"].read_text()
    assert re.search(r"frank\s*\|\s*tiny_transpose\s*\|\s*no_submission", result.output), result.output
    passing = invoke(["--dir", str(folder), "--seed", "1", "--min-pass", "0"])
    assert passing.exit_code == 0  # a failure like any other: --min-pass decides
    manifest = tmp_path / "grading.yaml"  # a manifest's file that does not exist: the same verdict
    manifest.write_text("submissions: {frank: {tiny_transpose: submissions/frank/tiny_transpose.py}}")
    missing = invoke(["--manifest", str(manifest), "--seed", "1", "--json", "-"])
    assert missing.exit_code == 1 and json.loads(missing.stdout)["results"][0]["verdict"] == "no_submission"


def test_a_submission_that_hangs_is_told_while_it_runs(monkeypatch):
    """Issue 29 item 6: a hanging submission left grade's output silent for its timeout."""
    import judge.report.progress as progress

    monkeypatch.setattr(progress, "STILL_RUNNING_AFTER_S", 0.5)
    hang = SOLUTIONS / "transpose_hang.py"
    result = CliRunner().invoke(main, ["grade", str(SPECS / "tiny_transpose.yaml"), str(hang), "--seed", "1",
                                       "--timeout", "1.5", "--compile-timeout", "60", "--json", "-"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["results"][0]["verdict"] == "time_limit_exceeded"
    assert f"{hang} · {SPECS / 'tiny_transpose.yaml'}: case edge-1 (rows=1, cols=1): still running after " \
        in result.stderr, result.stderr


def test_a_manifest_can_require_a_kernel_of_each_submissions_own(tmp_path):
    """Issue 29 item 10: a course's manifest says require_kernel: true for the whole grade."""
    manifest = tmp_path / "grading.yaml"
    for name in ("transpose_torch_copy.py", "transpose_ok.py"):  # a submission's files lie beside the manifest
        shutil.copy(SOLUTIONS / name, tmp_path / name)
    manifest.write_text(f"require_kernel: true\nchallenges: {{t: {SPECS / 'tiny_transpose.yaml'}}}\nsubmissions:\n"
                        "  torch: {t: transpose_torch_copy.py}\n  kernel: {t: transpose_ok.py}\n")
    result = CliRunner().invoke(main, ["grade", "--manifest", str(manifest), "--seed", "1", "--json", "-"])
    doc = json.loads(result.stdout)
    assert {r["submission"]: r["verdict"] for r in doc["results"]} == {"torch": "invalid_submission",
                                                                       "kernel": "accepted"}
    assert doc["settings"]["require_kernel"] is True and result.exit_code == 1
    manifest.write_text(manifest.read_text().replace("require_kernel: true", "require_kernel: 1"))
    bad = CliRunner().invoke(main, ["grade", "--manifest", str(manifest)])
    assert bad.exit_code == 2 and "require_kernel: expected true or false, got 1" in bad.output
