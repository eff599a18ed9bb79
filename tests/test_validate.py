"""Authoring: ``judge new``, ``judge validate`` and user challenge folders."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from click.testing import CliRunner

from judge.challenge.catalog import ChallengeConflict, SearchPath, list_entries, load_challenge
from judge.cli import main
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.authoring.scaffold import scaffold_files
from judge.challenge.spec import load_spec, parse_spec
from judge.authoring.validate import validate_spec
from judge.judging.verdict import Verdict

from conftest import CHALLENGES, ROOT

REDUCE = yaml.safe_load((CHALLENGES / "reduce_sum.yaml").read_text())


def run(*args, env=None, cwd=None):
    env = {"JUDGE_CHALLENGES_PATH": "", **(env or {})}
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def write_spec(folder, data: dict, name: str | None = None):
    path = folder / f"{name or data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def reduce_with(**changes) -> dict:
    data = {**REDUCE, "name": "my_sum", **changes}
    return {k: v for k, v in data.items() if v is not None}


# -- judge new -------------------------------------------------------------------------
def test_new_writes_a_spec_and_a_solution_that_validate_and_pass(tmp_path):
    result = run("new", "my_op", "--dir", tmp_path)
    assert result.exit_code == 0, result.output
    spec_path, solution = tmp_path / "my_op.yaml", tmp_path / "my_op.py"
    assert spec_path.is_file() and solution.is_file()
    assert "judge validate" in result.output and "judge run" in result.output
    spec = load_spec(spec_path)
    assert spec.name == "my_op" and spec.signature_text() == "solve(input, output, N)"
    assert validate_spec(spec).ok
    verdict = judge_solution(spec, str(solution), Options(seed=1, interpret=True)).verdict
    assert verdict == Verdict.ACCEPTED


def test_new_never_overwrites(tmp_path):
    (tmp_path / "my_op.py").write_text("# mine\n")
    result = run("new", "my_op", "--dir", tmp_path)
    assert result.exit_code == 2
    assert "my_op.py already exists" in result.output and "overwrites nothing" in result.output
    assert (tmp_path / "my_op.py").read_text() == "# mine\n" and not (tmp_path / "my_op.yaml").exists()


@pytest.mark.parametrize("args, words", [
    (["new", "bad name"], "letters, digits"),
    (["new", "x", "--dir", "/nonexistent/folder"], "does not exist"),
])
def test_new_usage_errors(args, words):
    result = run(*args)
    assert result.exit_code == 2 and words in result.output


def test_new_in_the_current_folder_and_a_builtin_name_notes_the_conflict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "transpose")
    assert result.exit_code == 0 and (tmp_path / "transpose.yaml").exists()
    assert "also a built-in challenge" in result.output


def test_scaffold_is_pure_text():
    files = scaffold_files("abc")
    assert set(files) == {"abc.yaml", "abc.py"}
    assert parse_spec(files["abc.yaml"]).name == "abc" and "def solve(" in files["abc.py"]


# -- judge validate ------------------------------------------------------------------------
def test_validate_reports_each_check_and_exits_0(tmp_path):
    result = run("validate", CHALLENGES / "transpose.yaml")
    assert result.exit_code == 0, result.output
    for name in ("transpose", "transpose_fp16", "transpose_bf16"):  # every variant of the file
        assert f"{name}  (" in result.output
    for check in ("formulas", "sizes", "reference runs", "accepts float64", "rejects zeros", "rejects shifted"):
        assert f"✓ {check}" in result.output
    assert "3 spec(s)" in result.output and "all passed" in result.output


def test_validate_by_name_and_json():
    result = run("validate", "reduce_sum", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ok"] and data["specs"][0]["name"] == "reduce_sum"
    statuses = {c["name"]: c["status"] for c in data["specs"][0]["checks"]}
    assert statuses["accepts working precision"] == "passed" and statuses["rejects shifted"] == "skipped"


@pytest.mark.parametrize("changes, check, words", [
    # too loose: zeros are within rtol * sum|x|
    ({"tolerance": {"kind": "summation", "rtol": 1.0}}, "rejects zeros", "accepted at"),
    # too tight for fp32 arithmetic against a float64 reference
    ({"tolerance": {"kind": "summation", "rtol": 1.0e-12}}, "accepts working precision", "rejected at"),
    ({"tolerance": {"kind": "exact"}}, "accepts float64", "rejected at"),
    # bf16 inputs pass a 1 % tolerance
    ({"tolerance": {"kind": "summation", "rtol": 0.01}}, "rejects bf16 inputs", "accepted at"),
    # a reference that forgets its output
    ({"reference": "def reference(input, output, N):\n    pass\n"}, "reference runs", "unwritten"),
    ({"reference": "def reference(input, output, N):\n    output[0] = input.sum() / 0 * 0\n"},
     "reference runs", "unwritten (or NaN)"),
    ({"reference": "def reference(input, output, N):\n    output[0] = torch.rand(1)\n"}, "reference runs",
     "differs between two runs"),
    ({"reference": "def reference(input, output, N):\n    raise ValueError('oops')\n"}, "reference runs", "oops"),
    # shapes that are not whole numbers at some corner
    ({"parameters": [{"name": "input", "tensor": "float32", "shape": ["N / 2"], "role": "in"},
                     {"name": "output", "tensor": "float32", "shape": [1], "role": "out"},
                     {"name": "N", "scalar": "int"}]}, "formulas", "whole number"),
    # an explicit size that breaks a constraint
    ({"constraints": ["N % 2 == 0"], "tests": {"sizes": [{"N": 3}]}, "example": {"N": 2}}, "sizes",
     "breaks a constraint"),
    # a reference that only works in fp32: reported as a failed check, not a crash
    ({"reference_dtype": None, "reference": "def reference(input, output, N):\n"
      "    assert input.dtype == torch.float32\n    output[0] = input.sum()\n"},
     "accepts float64", "raised AssertionError"),
    # a baseline that is no solution
    ({"baseline": "def baseline(input, output, N):\n    output.zero_()\n"}, "accepts baseline", "rejected at"),
    # summation tolerance on something that is not a sum
    ({"reference": "def reference(input, output, N):\n    output[0] = -input.abs().max()\n"},
     "summation scale", "use kind: close"),
])
def test_validate_catches_a_bad_spec_and_exits_1(tmp_path, changes, check, words):
    path = write_spec(tmp_path, reduce_with(**changes))
    result = run("validate", path)
    assert result.exit_code == 1, result.output
    line = next(line for line in result.output.splitlines() if f" {check} " in line)
    assert "✗" in line and words in line, line
    assert "failed" in result.output.splitlines()[-1]


@pytest.mark.parametrize("target, words", [
    ("missing.yaml", "no such spec file"),
    ("nonexistent_challenge", "unknown challenge"),
    ("broken.yaml", "invalid YAML"),
    ("invalid.yaml", "field 'sizes'"),
])
def test_validate_unreadable_specs_exit_2(tmp_path, monkeypatch, target, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    (tmp_path / "invalid.yaml").write_text("name: x\nsizes: 3\n")
    result = run("validate", target)
    assert result.exit_code == 2 and words in result.output, result.output


def test_validate_needs_a_spec():
    result = run("validate")
    assert result.exit_code == 2 and "--all" in result.output


# -- user challenge folders ------------------------------------------------------------------------
@pytest.fixture
def user_dir(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    write_spec(folder, reduce_with(title="My own sum"))
    return folder


def test_challenges_dir_flag_adds_challenges_and_list_shows_the_source(user_dir):
    result = run("--challenges-dir", user_dir, "list")
    assert result.exit_code == 0, result.output
    assert "my_sum" in result.output and "My own sum" in result.output
    assert "my_sum.yaml" in result.output  # the source column: the file, for a user challenge
    shown = run("--challenges-dir", user_dir, "show", "my_sum")
    assert shown.exit_code == 0 and "My own sum" in shown.output


def test_env_var_adds_several_folders(user_dir, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    write_spec(other, reduce_with(name="their_sum"))
    env = {"JUDGE_CHALLENGES_PATH": os.pathsep.join([str(user_dir), str(other)])}
    result = run("validate", "my_sum", "their_sum", env=env)
    assert result.exit_code == 0, result.output
    assert "my_sum  (" in result.output and "their_sum  (" in result.output


def test_a_user_challenge_named_like_a_builtin_is_an_error_unless_preferred(user_dir):
    write_spec(user_dir, reduce_with(name="copy", title="My copy"))
    result = run("--challenges-dir", user_dir, "show", "copy")
    assert result.exit_code == 2
    assert "defined more than once" in result.output and "--prefer-user" in result.output
    listed = run("--challenges-dir", user_dir, "list")
    assert listed.exit_code == 0 and "name conflict" in listed.output
    preferred = run("--challenges-dir", user_dir, "--prefer-user", "show", "copy")
    assert preferred.exit_code == 0 and "My copy" in preferred.output
    assert "replaced by" in run("--challenges-dir", user_dir, "--prefer-user", "list").output
    assert load_challenge("transpose", SearchPath((user_dir,))).name == "transpose"  # others unaffected


def test_two_user_challenges_of_one_name_conflict_even_when_preferred(user_dir, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    write_spec(other, reduce_with())
    search = SearchPath((user_dir, other), prefer_user=True)
    with pytest.raises(ChallengeConflict, match="rename one of them"):
        load_challenge("my_sum", search)
    assert [e.status for e in list_entries(search) if e.name == "my_sum"] == ["conflict", "conflict"]


@pytest.mark.parametrize("args, env, words", [
    (["--challenges-dir", "/nonexistent/dir", "list"], {}, "does not exist"),
    (["list"], {"JUDGE_CHALLENGES_PATH": "/nonexistent/dir"}, "JUDGE_CHALLENGES_PATH names /nonexistent/dir"),
    (["show", "no_such_challenge"], {}, "unknown challenge 'no_such_challenge'"),
])
def test_search_path_usage_errors_exit_2(args, env, words):
    result = run(*args, env=env)
    assert result.exit_code == 2 and words in result.output, result.output


def test_an_invalid_user_spec_is_listed_and_reported_by_name(user_dir):
    (user_dir / "broken.yaml").write_text("name: broken\nsizes: 3\n")
    listed = run("--challenges-dir", user_dir, "list")
    assert listed.exit_code == 0 and "invalid spec" in listed.output
    shown = run("--challenges-dir", user_dir, "show", "broken")
    assert shown.exit_code == 2 and "field 'sizes'" in shown.output


# -- the worked example of docs/writing-a-challenge.md ----------------------------------------
def doc_files() -> dict[str, str]:
    """The code blocks that follow a '<!-- file: NAME -->' line in the guide."""
    text = (ROOT / "docs" / "writing-a-challenge.md").read_text()
    files = {}
    for chunk in text.split("<!-- file: ")[1:]:
        name, rest = chunk.split(" -->", 1)
        files[name] = rest.split("```", 2)[1].split("\n", 1)[1]
    return files


def test_the_guides_worked_example_validates_and_its_solution_passes_both_variants(tmp_path):
    files = doc_files()
    assert set(files) == {"dot.yaml", "dot.py"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run("validate", tmp_path / "dot.yaml")
    assert result.exit_code == 0, result.output
    assert "2 spec(s)" in result.output
    for spec in (load_spec(tmp_path / "dot.yaml"), load_challenge("dot_fp16", SearchPath((tmp_path,)))):
        verdict = judge_solution(spec, str(tmp_path / "dot.py"), Options(seed=1, interpret=True))
        assert verdict.verdict == Verdict.ACCEPTED, verdict.message
