"""judge grade's pure parts: discovery, manifests, seeds, resume keys, the
grade document, thresholds, the parallel driver and the JUnit/Markdown views.
No worker runs here; tests/test_cli_grade.py grades through real workers.
"""

from __future__ import annotations

import json
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from judge.grading.pool import Cancelled, grade_entries, judge_entry, parse_gpus
from judge.grading.records import GradeSettings, PassRule, carried_over, combine_seed, grade_document, load_previous, parse_min_pass, problem_record, public_record, redact, resume_key
from judge.grading.submissions import ChallengeResolver, Entry, ManifestError, discover, entries_for, missing_entries, \
    parse_manifest
from judge.challenge.catalog import SearchPath
from judge.report.junit import grade_to_junit
from judge.report.markdown import cell, grade_to_markdown

from conftest import SOLUTIONS, SPECS

SETTINGS = GradeSettings(public_seed=5, interpret=True)
SEARCH = SearchPath(user_dirs=(SPECS,))
RESOLVER = ChallengeResolver(search=SEARCH)


def write(path: Path, text: str = "def solve(*a):\n    pass\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- discovery ----------------------------------------------------------------------

def test_discover_finds_who_and_challenge_and_skips_helpers(tmp_path):
    write(tmp_path / "bob" / "transpose.py")
    write(tmp_path / "alice" / "matmul.py")
    write(tmp_path / "alice" / "transpose.py")
    write(tmp_path / "alice" / "_helpers.py")
    write(tmp_path / ".git" / "x.py")
    write(tmp_path / "__pycache__" / "y.py")
    write(tmp_path / "alice" / "notes.txt")
    write(tmp_path / "stray.py")
    (tmp_path / "carol").mkdir()  # handed nothing in
    write(tmp_path / "dave" / "transpose.txt")  # nothing judge takes for a solution (SOLUTION_SUFFIXES)
    items, warnings, empty = discover(tmp_path)
    assert [(who, ch) for who, ch, _ in items] == [("alice", "matmul"), ("alice", "transpose"), ("bob", "transpose")]
    assert items[0][2] == str(tmp_path / "alice" / "matmul.py")
    assert len(warnings) == 1 and "stray.py" in warnings[0]
    assert empty == ["carol", "dave"]


def test_cpu_elements_reaches_the_runs_and_the_resume_key_only_when_given():
    """Issue 29 item 7: judge grade --cpu-elements N, as judge run's; earlier grades' keys stay valid."""
    assert "cpu_elements" not in SETTINGS.key_fields() and SETTINGS.options(None).cpu_elements is None
    raised = GradeSettings(public_seed=5, interpret=True, cpu_elements=20_000)
    assert raised.options(None).cpu_elements == 20_000 and raised.key_fields()["cpu_elements"] == 20_000
    entry = Entry("a", "tiny", str(SOLUTIONS / "transpose_ok.py"), str(SPECS / "tiny_transpose.yaml"))
    assert resume_key(entry, raised) != resume_key(entry, SETTINGS)


def test_an_empty_submission_folder_is_no_submission_for_each_challenge_the_others_handed_in(tmp_path):
    """Issue 29 item 11: an empty folder was skipped without a word (10 folders, 9 results)."""
    entries = [Entry("alice", "tiny_transpose", "a.py", "t.yaml"), Entry("alice", "transpos", "b.py", None, "unknown"),
               Entry("bob", "tiny_transpose", "c.py", "t.yaml"), Entry("bob", "matmul", "d.py", "m.yaml")]
    missing = missing_entries(["carol"], entries, tmp_path)
    assert [(e.submission, e.challenge, e.spec_path, e.missing) for e in missing] == [
        ("carol", "tiny_transpose", "t.yaml", True), ("carol", "matmul", "m.yaml", True)]
    assert missing[0].problem == f"no submission: {tmp_path / 'carol'} holds no solution file (.py, .cu)"
    record = problem_record(missing[0], resume_key(missing[0], SETTINGS), SETTINGS)
    assert record["verdict"] == "no_submission" and record["key"] is None  # re-checked by --resume
    assert [e.challenge for e in missing_entries(["carol"], entries[1:2], tmp_path)] == ["-"]  # none known


def test_unknown_challenge_becomes_an_invalid_entry_not_an_error(tmp_path):
    ok = write(tmp_path / "a" / "tiny_transpose.py")
    typo = write(tmp_path / "a" / "transpos.py")
    entries = entries_for([("a", "tiny_transpose", str(ok)), ("a", "transpos", str(typo))], RESOLVER,
                          check_file=lambda path: "")
    assert entries[0].spec_path == str(SPECS / "tiny_transpose.yaml") and not entries[0].problem
    assert entries[1].spec_path is None
    assert "unknown challenge 'transpos'" in entries[1].problem and "transpose" in entries[1].problem


def test_resolver_order_aliases_then_search_path_then_paths(tmp_path):
    resolver = ChallengeResolver(aliases={"t": str(SPECS / "tiny_transpose.yaml")}, search=SEARCH)
    assert resolver.resolve("t") == str(SPECS / "tiny_transpose.yaml")
    assert resolver.resolve("tiny_transpose") == str(SPECS / "tiny_transpose.yaml")
    assert Path(resolver.resolve("matmul")).name == "matmul.yaml"
    assert resolver.resolve("specs/tiny_transpose.yaml", SPECS.parent) == str(SPECS / "tiny_transpose.yaml")
    with pytest.raises(LookupError, match="no such spec file"):
        resolver.resolve("missing.yaml", tmp_path)
    with pytest.raises(LookupError, match="unknown challenge 'tiny_transpose'"):
        ChallengeResolver(search=SearchPath()).resolve("tiny_transpose")


def test_variant_specs_resolve_and_key_by_file_and_variant(tmp_path):
    from judge.challenge.catalog import builtin_dir

    base = builtin_dir() / "transpose.yaml"
    if "variants:" not in base.read_text():
        pytest.skip("the built-in transpose has no variants")
    variant = ChallengeResolver(search=SearchPath()).resolve("transpose_fp16")
    assert variant == f"{base}#transpose_fp16"
    solution = write(tmp_path / "a.py")
    keys = {resume_key(Entry("a", n, str(solution), p), SETTINGS) for n, p in
            [("transpose", str(base)), ("transpose_fp16", variant)]}
    assert len(keys) == 2


# -- manifests ----------------------------------------------------------------------

GOOD_MANIFEST = """
version: 1
challenges:
  tiny: specs/tiny_transpose.yaml
submissions:
  alice:
    tiny: alice/t.py
    matmul: alice/mm.py
  12345:                      # a student number is a name too
    transpose: s/12345.py
"""


def test_manifest_maps_submissions_to_challenges_relative_to_its_folder(tmp_path):
    resolver, items = parse_manifest(GOOD_MANIFEST, "grading.yaml", SPECS.parent, SEARCH)
    assert items == [("alice", "tiny", str(SPECS.parent / "alice/t.py")),
                     ("alice", "matmul", str(SPECS.parent / "alice/mm.py")),
                     ("12345", "transpose", str(SPECS.parent / "s/12345.py"))]
    assert resolver.resolve("tiny") == str(SPECS / "tiny_transpose.yaml")


def test_missing_solution_file_in_a_manifest_is_graded_as_missing(tmp_path):
    resolver, items = parse_manifest("submissions: {bob: {transpose: gone.py}}", "m.yaml", tmp_path)
    entry = entries_for(items, resolver, check_file=lambda p: "" if Path(p).exists() else "missing")[0]
    assert entry.problem == "missing" and entry.spec_path


@pytest.mark.parametrize("text, words", [
    ("submissions: [", "not valid YAML"),
    ("- a\n- b", "expected a mapping with a 'submissions' key"),
    ("submissions: {}", "non-empty mapping"),
    ("submisions: {a: {transpose: a.py}}", "'submissions' key"),
    ("submissions: {a: {transpose: a.py}}\nextra: 1", "unknown key 'extra'; allowed: version, challenges"),
    ("version: 2\nsubmissions: {a: {transpose: a.py}}", "version: 2 is not supported"),
    ("submissions:\n  a: {transpose: a.py}\n  a: {copy: b.py}", "key 'a' is given twice"),
    ("submissions: {a: {transpos: a.py}}", "submissions.a.transpos: unknown challenge 'transpos'"),
    ("submissions: {a: transpose.py}", "submissions.a: expected a non-empty mapping of challenge"),
    ("submissions: {a: {transpose: 3}}", "submissions.a.transpose: expected the path of a .py file"),
    ("challenges: {t: nope.yaml}\nsubmissions: {a: {t: a.py}}", "challenges.t: no such spec file"),
    ("challenges: [x]\nsubmissions: {a: {transpose: a.py}}", "challenges: expected a mapping"),
])
def test_manifest_errors_name_the_field(tmp_path, text, words):
    with pytest.raises(ManifestError) as info:
        parse_manifest(text, "grading.yaml", tmp_path)
    assert words in str(info.value) and str(info.value).startswith("grading.yaml: ")


def test_manifest_reports_every_problem_at_once(tmp_path):
    text = "oops: 1\nsubmissions: {a: {transpos: a.py}, b: {copy: 7}}"
    with pytest.raises(ManifestError) as info:
        parse_manifest(text, "m.yaml", tmp_path)
    assert len(info.value.problems) == 3


# -- seeds and keys -------------------------------------------------------------------

def test_secret_seed_is_mixed_in_deterministically():
    assert combine_seed(5, "") == 5
    mixed = combine_seed(5, "s3cret")
    assert mixed == combine_seed(5, "s3cret") and 0 <= mixed < 2**31
    assert mixed != 5 and mixed != combine_seed(6, "s3cret") and mixed != combine_seed(5, "other")


def test_settings_never_show_the_secret():
    settings = GradeSettings(public_seed=5, secret="s3cret", interpret=True)
    assert "s3cret" not in repr(settings) and "s3cret" not in json.dumps(settings.public_dict())
    assert settings.seed_label == "5 + secret" and settings.options(None).seed == combine_seed(5, "s3cret")
    assert settings.key_fields()["secret_seed"] is True


def test_resume_key_follows_content_spec_and_settings(tmp_path):
    path = write(tmp_path / "a.py")
    entry = Entry("a", "tiny_transpose", str(path), str(SPECS / "tiny_transpose.yaml"))
    key = resume_key(entry, SETTINGS)
    assert key == resume_key(entry, SETTINGS) and len(key) == 64
    assert resume_key(entry, GradeSettings(public_seed=6, interpret=True)) != key
    assert resume_key(entry, GradeSettings(public_seed=5, interpret=True, timeout=2)) != key
    with_x = resume_key(entry, GradeSettings(public_seed=5, secret="x", interpret=True))
    assert with_x != key and with_x != resume_key(entry, GradeSettings(public_seed=5, secret="y", interpret=True))
    path.write_text(path.read_text() + "# changed\n")
    assert resume_key(entry, SETTINGS) != key
    assert resume_key(Entry("a", "x", str(path), None, "unknown"), SETTINGS) is None


def test_redact_replaces_secrets_everywhere_but_numbers_only_whole():
    value = {"m": "seed 857980947 and hunter2", "l": ["rows=8579809470", "x857980947"], "n": 3}
    assert redact(value, ["hunter2", "857980947"]) == {
        "m": "seed <secret> and <secret>", "l": ["rows=8579809470", "x<secret>"], "n": 3}


def test_public_record_shows_the_public_seed_and_hides_the_effective_one():
    settings = GradeSettings(public_seed=5, secret="hunter2", interpret=True)
    effective = combine_seed(5, "hunter2")
    run = {"verdict": "runtime_error", "challenge": "tiny_transpose", "seed": effective,
           "message": f"boom hunter2 {effective}", "tests": [{"message": f"tail {effective}"}]}
    entry = Entry("alice", "tiny", "a.py", "spec.yaml")
    record = public_record(entry, "k", run, settings, 1.23456, "cuda:1")
    text = json.dumps(record)
    assert "hunter2" not in text and str(effective) not in text
    assert record["seed"] == 5 and record["secret_seed"] is True and record["gpu"] == 1
    assert record["challenge"] == "tiny" and record["spec"] == "tiny_transpose" and record["wall_s"] == 1.235


# -- the grade document and resume ------------------------------------------------------

def _entries():
    return [Entry("alice", "t", "a.py", "s.yaml"), Entry("bob", "t", "b.py", "s.yaml"),
            Entry("carol", "t", "c.py", None, "unknown challenge")]


def _record(entry, verdict, key="k"):
    return {"submission": entry.submission, "challenge": entry.challenge, "file": entry.path, "key": key,
            "verdict": verdict, "message": "" if verdict == "accepted" else f"{verdict} on edge-1 (rows=1): bad",
            "tests": [], "benchmarks": [], "notes": [], "wall_s": 1.0}


def test_document_keeps_plan_order_and_marks_pending():
    entries = _entries()
    doc = grade_document(entries, {2: problem_record(entries[2], None, SETTINGS), 0: _record(entries[0], "accepted")},
                         SETTINGS, {"started_at": "t0"})
    assert [r["submission"] for r in doc["results"]] == ["alice", "bob", "carol"]
    assert [r["verdict"] for r in doc["results"]] == ["accepted", "pending", "invalid_submission"]
    assert doc["summary"] == {"total": 3, "graded": 2, "accepted": 1, "rejected": 1, "pending": 1,
                              "carried_over": 0, "by_verdict": {"accepted": 1, "invalid_submission": 1}}
    assert doc["complete"] is False and doc["kind"] == "grade" and doc["seed"]["label"] == "5"
    assert load_previous(json.dumps(doc), "r.json") == doc


def test_carried_over_needs_same_submission_challenge_and_key():
    entries = _entries()
    previous = {"results": [_record(entries[0], "accepted", "k0"), _record(entries[1], "wrong_answer", "old"),
                            {**_record(entries[1], "accepted", "k0"), "submission": "mallory"}]}
    found = carried_over(previous, entries, ["k0", "k1", None])
    assert list(found) == [0] and found[0]["carried_over"] is True and found[0]["verdict"] == "accepted"


@pytest.mark.parametrize("text", ["[]", "{\"kind\": \"run\"}", "not json"])
def test_load_previous_rejects_what_is_not_a_grade(text):
    with pytest.raises(ValueError):
        load_previous(text, "r.json")


# -- thresholds and GPUs ----------------------------------------------------------------

@pytest.mark.parametrize("text, rule, needed_of_10", [
    ("8", PassRule(count=8), 8), ("0.8", PassRule(fraction=0.8), 8), ("80%", PassRule(fraction=0.8), 8),
    ("1.0", PassRule(fraction=1.0), 10), ("0.75", PassRule(fraction=0.75), 8), ("0", PassRule(count=0), 0),
    ("12", PassRule(count=12), 10),
])
def test_min_pass_is_a_count_or_a_fraction(text, rule, needed_of_10):
    assert parse_min_pass(text) == rule and rule.needed(10) == needed_of_10


@pytest.mark.parametrize("text", ["abc", "1.5", "-1", "150%", ""])
def test_min_pass_rejects_nonsense(text):
    with pytest.raises(ValueError):
        parse_min_pass(text)


def test_default_rule_needs_all_and_at_least_one():
    assert PassRule().passes(3, 3) and not PassRule().passes(2, 3) and not PassRule().passes(0, 0)


def test_parse_gpus():
    assert parse_gpus("all", 2) == [0, 1] and parse_gpus("1", 2) == [1] and parse_gpus("0, 1", 4) == [0, 1]
    for text, available, words in [("2", 2, "no GPU 2"), ("0,0", 2, "twice"), ("x", 2, "expected"),
                                   ("all", 0, "no CUDA GPU"), (",", 2, "expected")]:
        with pytest.raises(ValueError, match=words):
            parse_gpus(text, available)


# -- the parallel driver ------------------------------------------------------------------

def test_grade_entries_serial_runs_in_order_on_the_one_slot():
    calls = []
    grade_entries([0, 2, 3], ["cuda:0"], lambda i, slot: {"i": i, "slot": slot}, lambda i, r: calls.append(r))
    assert calls == [{"i": 0, "slot": "cuda:0"}, {"i": 2, "slot": "cuda:0"}, {"i": 3, "slot": "cuda:0"}]


def test_grade_entries_parallel_uses_each_slot_once_at_a_time():
    busy, lock, overlap, inside_done = set(), threading.Lock(), [], [0]
    done_calls = {}

    def grade_one(index, slot):
        with lock:
            assert slot not in busy  # one submission per GPU at a time
            busy.add(slot)
            overlap.append(len(busy))
        time.sleep(0.05)
        with lock:
            busy.discard(slot)
        return {"i": index, "slot": slot}

    def done(index, record):
        inside_done[0] += 1
        assert inside_done[0] == 1  # never called concurrently
        time.sleep(0.005)
        done_calls[index] = record
        inside_done[0] -= 1

    started = time.perf_counter()
    grade_entries(list(range(8)), ["cuda:0", "cuda:1"], grade_one, done)
    assert sorted(done_calls) == list(range(8)) and max(overlap) == 2
    assert {r["slot"] for r in done_calls.values()} == {"cuda:0", "cuda:1"}
    assert time.perf_counter() - started < 8 * 0.05  # ran two at a time


def test_grade_entries_stops_starting_new_work_after_a_failure():
    started = []

    def grade_one(index, slot):
        started.append(index)
        time.sleep(0.02)
        if index == 1:
            raise KeyboardInterrupt
        return {}

    with pytest.raises(KeyboardInterrupt):
        grade_entries(list(range(20)), [None, None], grade_one, lambda i, r: None)
    assert len(started) < 20


def test_an_interrupt_cancels_the_running_calls():
    """Ctrl-C in one call: the other running call sees ``cancel`` and stops early."""
    cancel, saw_cancel = threading.Event(), []

    def grade_one(index, slot):
        if index == 0:
            time.sleep(0.05)
            raise KeyboardInterrupt
        if cancel.wait(timeout=10):
            saw_cancel.append(index)
            raise Cancelled
        return {}

    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        grade_entries([0, 1, 2, 3], ["cuda:0", "cuda:1"], grade_one, lambda i, r: None, cancel)
    assert saw_cancel == [1] and time.perf_counter() - started < 5


def test_judge_entry_stops_at_once_when_cancelled(tmp_path):
    from judge.challenge.spec import load_spec

    entry = Entry("a", "tiny_transpose", str(write(tmp_path / "a.py")), str(SPECS / "tiny_transpose.yaml"))
    cancel = threading.Event()
    cancel.set()
    started = time.perf_counter()
    with pytest.raises(Cancelled):
        judge_entry(entry, load_spec(entry.spec_path), "k", SETTINGS, None, cancel)
    assert time.perf_counter() - started < 2  # before any worker started


def test_a_cancel_stops_a_judgement_blocked_in_a_hanging_call_at_once():
    """A grade cancelled (Ctrl-C, SIGTERM) while a submission hangs: its worker is killed and the
    judgement raises Cancelled within a second or so, not when the 60 s call timeout runs out, and
    the killed call is no verdict (found with scripts/grade_under_load.sh: the cut grade ran on
    until its hanging submissions timed out)."""
    from judge.challenge.spec import load_spec

    entry = Entry("a", "tiny_transpose", str(SOLUTIONS / "transpose_hang.py"), str(SPECS / "tiny_transpose.yaml"))
    settings = GradeSettings(public_seed=5, interpret=True, timeout=60.0, compile_timeout=60.0)
    cancel = threading.Event()
    threading.Timer(6.0, cancel.set).start()  # the worker has started and solve() hangs by then
    started = time.perf_counter()
    with pytest.raises(Cancelled):
        judge_entry(entry, load_spec(entry.spec_path), "k", settings, None, cancel)
    assert time.perf_counter() - started < 15


# -- JUnit and Markdown --------------------------------------------------------------------

def _doc_with_every_outcome():
    entries = [Entry("alice", "tiny", "a.py", "s"), Entry("bob", "tiny", "b.py", "s"),
               Entry("bob", "copy", "c.py", "s"), Entry("carol", "tiny", "d.py", "s"),
               Entry("dave | x", "tiny", "e.py", "s")]
    ok = {**_record(entries[0], "accepted"),
          "tests": [{"name": "edge-1", "params": {"rows": 1}, "verdict": "accepted"}]}
    wrong = {**_record(entries[1], "wrong_answer"),
             "message": "wrong_answer on edge-2 (rows=17, cols=3): 'output' differs",
             "tests": [{"name": "edge-1", "params": {"rows": 1, "cols": 1}, "verdict": "accepted"},
                       {"name": "edge-2", "params": {"rows": 17, "cols": 3}, "verdict": "wrong_answer",
                        "message": "'output': 3 of 51 elements differ\nfirst at [2, 0]"},
                       {"name": "edge-3", "params": {"rows": 2, "cols": 2}, "verdict": "skipped"}]}
    crash = {**_record(entries[2], "runtime_error"), "message": "runtime_error on edge-1 (N=1): \x1b[31mboom\x00\x07",
             "tests": [{"name": "edge-1", "params": {"N": 1}, "verdict": "runtime_error",
                        "message": "Traceback...\nIndexError: \x1b[1mboom\x1b[0m \x00"}]}
    slow = {**_record(entries[3], "time_limit_exceeded"), "notes": ["CPU mode"]}
    records = {0: ok, 1: wrong, 2: crash, 3: slow}
    return grade_document(entries, records, GradeSettings(public_seed=5, secret="hunter2", interpret=True),
                          {"started_at": "2026-01-01T00:00:00+00:00"})


def test_junit_has_a_suite_per_submission_and_a_case_per_challenge():
    root = ET.fromstring(grade_to_junit(_doc_with_every_outcome()))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("5", "2", "1", "1")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["alice", "bob", "carol", "dave | x"]
    assert [c.get("name") for c in suites["bob"].findall("testcase")] == ["tiny", "copy"]
    assert suites["alice"].find("testcase/failure") is None
    failure = suites["bob"].find("testcase[@name='tiny']/failure")
    assert failure.get("type") == "wrong_answer"
    assert failure.get("message") == "wrong_answer on edge-2 (rows=17, cols=3): 'output' differs"
    assert "wrong_answer on edge-2 (rows=17, cols=3):\n'output': 3 of 51 elements differ" in failure.text
    assert "1 of 2 tests passed" in failure.text
    error = suites["bob"].find("testcase[@name='copy']/error")
    assert error.get("type") == "runtime_error" and "\x1b" not in error.text and "boom" in error.text
    assert suites["carol"].find("testcase/failure").get("type") == "time_limit_exceeded"
    assert suites["dave | x"].find("testcase/skipped") is not None
    assert suites["bob"].find("properties/property[@name='seed']").get("value") == "5 + secret"


def test_junit_lists_at_most_five_failing_cases():
    doc = _doc_with_every_outcome()
    doc["results"][1]["tests"] = [{"name": f"edge-{i}", "params": {}, "verdict": "wrong_answer", "message": "x"}
                                  for i in range(8)]
    text = ET.fromstring(grade_to_junit(doc)).find("testsuite[@name='bob']/testcase/failure").text
    assert "edge-4" in text and "edge-5" not in text and "3 more distinct failure(s)" in text


def test_junit_tells_failures_that_share_their_cause_once():
    """The empty starter's 18 'never written' cases: the first in full, the others named (issue 29 item 4)."""
    doc = _doc_with_every_outcome()
    doc["results"][1]["tests"] = [
        {"name": f"edge-{i}", "params": {"rows": i}, "verdict": "wrong_answer", "message": f"'output' {i} never written",
         "cause": "wrong_answer: 'output': never written"} for i in range(1, 9)] + [
        {"name": "edge-9", "params": {"rows": 9}, "verdict": "runtime_error", "message": "boom", "cause": "boom"}]
    text = ET.fromstring(grade_to_junit(doc)).find("testsuite[@name='bob']/testcase/failure").text
    assert text.count("never written") == 1 and "wrong_answer on edge-1 (rows=1):" in text
    assert "the same in 7 more case(s): edge-2 (rows=2), edge-3 (rows=3)" in text and "edge-8 (rows=8)" in text
    assert "runtime_error on edge-9 (rows=9):\nboom" in text


def test_markdown_summary_table():
    text = grade_to_markdown(_doc_with_every_outcome())
    lines = text.splitlines()
    assert lines[0] == "### ❌ judge grade: 1 of 5 accepted (1 not graded yet)"
    assert "seed 5 + secret" in lines[2] and "hunter2" not in text
    assert lines[4] == "| submission | challenge | verdict | tests | time | details |"
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 5
    assert rows[0].startswith("| alice | tiny | ✅ accepted | 1/1 | 1.0 s |")
    assert "❌ wrong_answer | 1/2 |" in rows[1] and "edge-2 (rows=17, cols=3)" in rows[1]
    assert rows[4].startswith("| dave \\| x | tiny | ⏳ pending | - | - |")
    assert all(row.count(" | ") == 5 for row in rows[:4])  # no stray pipes or newlines


def test_markdown_shows_benchmarks_on_gpu():
    doc = _doc_with_every_outcome()
    doc["mode"] = "gpu"
    doc["results"][0]["benchmarks"] = [{"name": "square-2048", "median_ms": 0.1402, "pct_of_peak": 97.2,
                                        "peak_kind": "copy bandwidth"}]
    text = grade_to_markdown(doc)
    assert "| benchmarks |" in text and "square-2048 0.1402 ms (97% copy)" in text


def test_cell_escapes_and_truncates():
    assert cell("a|b\nc <x>\x00\x1b[31mred") == "a\\|b c &lt;x> red"
    assert cell("see ![x](http://evil/p.png) [click](http://evil)") == \
        "see !\\[x\\](http://evil/p.png) \\[click\\](http://evil)"  # the red team's link and image
    assert len(cell("x" * 500)) == 160


def test_write_atomically_replaces_and_leaves_no_temporaries(tmp_path):
    from judge.grading.outputs import write_atomically

    target = tmp_path / "r.json"
    write_atomically(target, "one")
    write_atomically(target, "two")
    assert target.read_text() == "two" and [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert target.stat().st_mode & 0o777 == 0o644



def test_cluster_without_dask_is_a_usage_error_and_the_rest_imports(monkeypatch):
    """Without the cluster extra the judge imports and grades locally; --cluster says what to install."""
    import sys

    from click.testing import CliRunner

    from judge.cli import main
    from judge.grading import cluster  # noqa: F401 - imports without Dask

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    result = CliRunner().invoke(main, ["grade", "transpose", str(SPECS.parent / "solutions" / "transpose_ok.py"),
                                       "--cluster", "local"])
    assert result.exit_code == 2 and "pip install 'judge[cluster]'" in result.output
