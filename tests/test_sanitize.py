"""``judge run --sanitize`` without a GPU (issue 39): compute-sanitizer's reports parsed and cut to the
user's files (recorded and hand-written samples in tests/sanitizer/), the paragraph that says how to get
it, and the plumbing (a sanitized worker started by a stand-in for the sanitizer, which writes a report
and starts the worker as the real one starts its target).  The real sanitizer: tests/test_sanitize_gpu.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.challenge.spec import load_spec
from judge.cli import main
from judge.judging.runner import Events, Options, Runner
from judge.judging.sanitize import find_sanitizer, pick_case, sanitize_problem, sanitize_run
from judge.judging.sanitizer_report import format_findings, parse_report
from judge.judging.verdict import Verdict

from conftest import ROOT, SOLUTIONS, SPECS

SAMPLES = ROOT / "tests" / "sanitizer"


def sample(name: str, solution: str = "/home/me/solution.cu", tool: str = "memcheck") -> str:
    return (SAMPLES / name).read_text().replace("{solution}", solution).replace("{tool}", tool)


def test_a_memcheck_report_is_cut_to_the_users_file_and_line():
    findings, summaries = parse_report(sample("synthetic_memcheck.txt"))
    assert [f.headline for f in findings] == ["Invalid __global__ read of size 4 bytes"] * 2
    mine, torch_s = findings
    assert (mine.locations[0].file, mine.locations[0].line) == ("/home/me/solution.cu", 11)
    assert "by thread (255,0,0) in block (3,0,0)" in mine.details and not any("Host Frame" in d for d in mine.details)
    assert summaries == ["ERROR SUMMARY: 2 errors"]
    text = format_findings("memcheck", findings, ("/home/me/solution.cu",))
    assert text.splitlines()[0] == "memcheck: 1 finding(s) in your files, 1 elsewhere"
    assert "solution.cu:11 (copy_past_end): Invalid __global__ read of size 4 bytes" in text
    assert "Loops.cuh" not in text  # torch's kernel is counted, not shown


def test_an_older_racecheck_report_names_both_accesses_and_their_lines():
    findings, _ = parse_report(sample("synthetic_racecheck_old.txt"))
    (race,) = findings
    assert race.headline == "Error: Race reported between Write access and Read access" and race.hazards == 2048
    assert [(loc.line, loc.function.split("(")[0]) for loc in race.locations] == [(31, "matmul_tiled"), (24, "matmul_tiled")]
    text = format_findings("racecheck", findings, ("solution.cu",))  # a CUDA source compiled from a copy: by name
    assert "solution.cu:31 (matmul_tiled), solution.cu:24 (matmul_tiled): Error: Race reported" in text


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("recorded_*.txt")))
def test_every_recorded_report_parses_to_findings_with_locations(name):
    """Reports compute-sanitizer wrote on the GPU for our racy and out-of-bounds test solutions."""
    findings, summaries = parse_report((SAMPLES / name).read_text())
    assert summaries, "no summary line"
    assert findings and all(f.locations for f in findings), [f.headline for f in findings]


def test_recorded_memcheck_of_a_cuda_read_past_the_end_names_the_line_and_drops_what_followed():
    """The H200's report: one invalid read at copy_reads_past.cu:9, then the CUDA calls that failed after memcheck
    stopped the kernel ("Program hit cudaErrorLaunchFailure ..."), which are no findings of their own."""
    findings, summaries = parse_report((SAMPLES / "recorded_memcheck_copy_reads_past.txt").read_text())
    (read,) = findings
    assert (read.locations[0].file, read.locations[0].line) == ("copy_reads_past.cu", 9)
    assert "is 1 bytes after the nearest allocation" in read.text() and summaries == ["ERROR SUMMARY: 11 errors"]
    assert format_findings("memcheck", findings, ("copy_reads_past.cu",)).startswith(
        "memcheck: 1 finding(s) in your files\ncopy_reads_past.cu:9 (copy_reads_past): Invalid __global__ read")


def test_recorded_memcheck_of_a_triton_kernel_counts_the_threads_alike_once():
    findings, _ = parse_report((SAMPLES / "recorded_memcheck_vector_add_unmasked.txt").read_text())
    assert len(findings) == 60 and {(f.locations[0].file, f.locations[0].line) for f in findings} == {
        ("vector_add_unmasked.py", 11)}
    text = format_findings("memcheck", findings, ("/somewhere/vector_add_unmasked.py", "vector_add_unmasked.py"))
    assert "vector_add_unmasked.py:11 (add_unmasked): Invalid __global__ read of size 16 bytes" in text
    assert "... and 59 more alike (other threads)" in text and text.count("Invalid __global__") == 1


def test_recorded_racecheck_names_the_write_and_the_read_and_adds_up_the_hazards():
    findings, summaries = parse_report((SAMPLES / "recorded_racecheck_matmul_racy.txt").read_text())
    error, warning = findings
    assert error.headline == "Error: Race reported between Write access and Read access" and error.hazards == 2081024
    assert {loc.line for loc in error.locations} == {17, 19} and warning.headline.startswith("Warning: Race")
    assert summaries == ["RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)"]
    assert "matmul_racy.cu:17 (matmul_racy), matmul_racy.cu:19 (matmul_racy): Error: Race reported between Write " \
           "access and Read access [2081024 hazards]" in format_findings("racecheck", findings, ("matmul_racy.cu",))


def test_a_clean_report_says_no_errors_and_other_text_is_ignored():
    findings, summaries = parse_report("some output of the program\n========= COMPUTE-SANITIZER\n"
                                       "========= ERROR SUMMARY: 0 errors\n")
    assert findings == [] and summaries == ["ERROR SUMMARY: 0 errors"]
    assert format_findings("memcheck", findings, ("x.cu",)) == "memcheck: no errors"


def test_without_a_gpu_or_the_sanitizer_the_user_is_told_how_to_get_it():
    assert "CPU mode" in sanitize_problem(True) and "ships with NVIDIA's CUDA toolkit" in sanitize_problem(True)
    missing = sanitize_problem(False, environ={"PATH": "/nonexistent"})
    if find_sanitizer({"PATH": "/nonexistent"}) is None:  # a machine with /usr/local/cuda has one there
        assert "was not found" in missing and "CUDA_HOME" in missing


def test_run_sanitize_in_cpu_mode_is_a_usage_error():
    result = CliRunner().invoke(main, ["run", "vector_add", str(ROOT / "solutions" / "vector_add" / "blocked.py"),
                                       "--interpret", "--sanitize"])
    assert result.exit_code == 2 and "compute-sanitizer" in result.output and "CPU mode" in result.output


def fake_sanitizer(monkeypatch, tmp_path: Path, report: str, solution: Path) -> dict:
    """The stand-in found as $CUDA_HOME/bin/compute-sanitizer; the worker's variables that tell it what to write
    (the worker starts with an allow-listed environment: they go in Options.worker_env)."""
    bin_dir = tmp_path / "toolkit" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "compute-sanitizer").symlink_to(SAMPLES / "fake-compute-sanitizer")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "toolkit"))
    return {"FAKE_SANITIZER_REPORT": str(SAMPLES / report), "FAKE_SANITIZER_SOLUTION": str(solution)}


@pytest.mark.slow
def test_the_failing_case_runs_in_a_worker_the_sanitizer_started(monkeypatch, tmp_path):
    """The plumbing, with a stand-in for compute-sanitizer: the picked case (the smallest failing size) runs
    in a worker it started, the report it wrote is read from the judge's folder and cut to the solution."""
    spec = load_spec(SPECS / "tiny_transpose.yaml")
    solution = SOLUTIONS / "transpose_wrong_edge.py"
    env = fake_sanitizer(monkeypatch, tmp_path, "synthetic_memcheck.txt", solution)
    runner = Runner(spec, str(solution), Options(seed=5, interpret=True, worker_env=env), Events())
    try:
        result = runner.run()
        assert result.verdict == Verdict.WRONG_ANSWER
        cases = runner.prepare()
        picked = pick_case(runner, cases)
        assert picked.params == {"rows": 17, "cols": 1}  # the smallest failing size the search found
        runs = sanitize_run(runner, cases, tools=("memcheck", "racecheck"))
    finally:
        runner.close()
    assert [r.tool for r in runs] == ["memcheck", "racecheck"]
    for run in runs:
        assert run.case == "rows=17, cols=1" and run.verdict == "wrong_answer" and not run.problem
        assert "transpose_wrong_edge.py:11 (copy_past_end): Invalid __global__ read" in run.report
        assert run.summary == "ERROR SUMMARY: 2 errors"


def test_a_case_too_large_for_the_sanitizer_gives_way_to_the_largest_test_that_fits():
    spec = load_spec(SPECS / "tiny_transpose.yaml")
    runner = Runner(spec, str(SOLUTIONS / "transpose_ok.py"), Options(seed=5, interpret=True), Events())
    from judge.challenge.cases import Case
    from judge.judging.verdict import CaseResult

    small, large = Case("a", "edge", {"rows": 2, "cols": 3}), Case("b", "edge", {"rows": 4096, "cols": 4096})
    runner.result.tests = [CaseResult("a", "edge", small.params, Verdict.ACCEPTED),
                           CaseResult("b", "edge", large.params, Verdict.WRONG_ANSWER, "x")]
    assert pick_case(runner, [small, large]) is small
    runner.result.tests[1].details["smallest_failing"] = {"rows": 9, "cols": 3}
    assert pick_case(runner, [small, large]).params == {"rows": 9, "cols": 3}
