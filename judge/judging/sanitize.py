"""``judge run --sanitize``: the failing case once more, under NVIDIA's compute-sanitizer (GPU only).

After the run, the judge picks a case (the first that failed, at the smallest failing size the search
found; else, when only a timed call failed or nothing did, the largest functional test that ran) and
calls ``solve()`` on it once in a fresh worker started under ``compute-sanitizer --tool T`` for each of
memcheck (out-of-bounds and misaligned accesses), racecheck (shared-memory hazards: a missing
``__syncthreads()``), initcheck (reads of global memory nothing wrote) and synccheck (barriers that not
every thread reaches).  Its findings in the user's files come first, cut to file and line
(judging/sanitizer_report.py).

What runs where: the compute-sanitizer front end is NVIDIA's program, started by the judge, outside the
sandbox (as nvcc is); it starts the worker, which is the judge's usual worker, sealed as usual (Landlock
and seccomp, applied by the worker itself once the sanitizer's library is loaded into it), and may also
read the sanitizer's own folder.  The report goes to a file in a folder of the judge's that the worker
cannot write, so a solution cannot forge findings.  For this call only, the worker gives every tensor an
allocation of its own, exactly its size (no guard zones, torch's caching allocator off:
PYTORCH_NO_CUDA_MEMORY_CACHING=1), so that memcheck sees a read past a tensor, and initcheck memory no
earlier kernel wrote.  The verdict is the run's; the sanitizer's findings are a diagnosis beside it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from judge.base.cuda_tools import find_cuda_tool
from judge.challenge.cases import Case, case_elements
from judge.judging.sanitizer_report import TOOLS, Finding, format_findings, parse_report, summary_line
from judge.judging.verdict import Verdict
from judge.worker.client import SubmissionInvalid, Worker, WorkerCrashed, WorkerTimeout
from judge.worker.cuda_build import find_nvcc

__all__ = ["find_sanitizer", "sanitize_problem", "sanitize_run", "SanitizerRun", "SanitizedWorker", "TOOLS",
           "SANITIZE_ELEMENTS"]

# The largest case (tensor elements) the sanitizer is given when the failing case is larger: racecheck runs
# a kernel 10-1000 times slower, and a race shows at any size with more than one tile.
SANITIZE_ELEMENTS = 1 << 20
CALL_TIMEOUT_S = 300.0  # one sanitized call, compiles included
KEEP_ENV = "JUDGE_SANITIZER_KEEP"  # a folder: each raw report is copied there
HOW_TO_GET = ("compute-sanitizer ships with NVIDIA's CUDA toolkit, beside nvcc (<toolkit>/bin/compute-sanitizer; "
              "Debian/Ubuntu: the cuda-sanitizer-<version> package of NVIDIA's CUDA repository, or conda install "
              "-c nvidia cuda-sanitizer-api); put its folder on PATH or set CUDA_HOME to the toolkit")


def find_sanitizer(environ=None) -> str | None:
    """The real compute-sanitizer (links resolved) from $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, beside nvcc
    (its bin/, then its toolkit's compute-sanitizer/), then /usr/local/cuda/bin (base/cuda_tools.py's order)."""
    nvcc = find_nvcc(environ)
    toolkit = os.path.dirname(os.path.dirname(nvcc)) if nvcc else ""
    beside = [os.path.join(os.path.dirname(nvcc), "compute-sanitizer"),
              os.path.join(toolkit, "compute-sanitizer", "compute-sanitizer")] if nvcc else []
    found = find_cuda_tool("compute-sanitizer", environ, beside=beside)
    return os.path.realpath(found) if found else None


def sanitize_problem(interpret: bool, environ=None) -> str | None:
    """Why ``--sanitize`` cannot run here (a usage error, exit 2), or None."""
    if interpret:
        return ("--sanitize runs the failing case under NVIDIA's compute-sanitizer, which checks kernels on a GPU; "
                "this run is in CPU mode (Triton's interpreter), where there is none to check. Run it on a machine "
                f"with an NVIDIA GPU and the CUDA toolkit. {HOW_TO_GET}.")
    if find_sanitizer(environ) is None:
        return ("--sanitize runs the failing case under NVIDIA's compute-sanitizer, which was not found (looked in "
                f"$CUDA_HOME/bin, $CUDA_PATH/bin, PATH, beside nvcc and /usr/local/cuda/bin). {HOW_TO_GET}.")
    return None


class SanitizedWorker(Worker):
    """A worker process started by compute-sanitizer (never forked by the judge server: the sanitizer must
    start it), its report written to ``log``."""

    def __init__(self, *args, sanitizer: str, tool: str, log: str, unsealed: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.sanitizer, self.tool, self.log, self.unsealed = sanitizer, tool, log, unsealed
        self.readable = (*self.readable, str(Path(sanitizer).resolve().parent))  # its library, loaded in the worker
        self.frozen_between_calls = False  # the sanitizer waits for its program as ncu's launcher does (client.py)

    def _policy(self) -> dict | None:
        """The usual sandbox, or none (``unsealed``: the sanitizer could not work inside it; said in the report)."""
        return None if self.unsealed else super()._policy()

    def place(self, parameters, call, zoned: bool = False) -> dict:
        """Without guard zones, and ``private``: the worker calls solve() on copies of the slots, each an
        allocation of its own, exactly its size (torch's caching allocator off too), and copies them back after,
        so that compute-sanitizer's memcheck sees a store past a tensor as one past its allocation."""
        return {**super().place(parameters, call, zoned=False), "private": True}

    def _start_process(self, fds: list[int], output):
        env = self._environment()
        env.update({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
        command = [self.sanitizer, "--tool", self.tool, "--log-file", self.log, "--print-limit", "100",
                   "--show-backtrace", "device", *_tool_flags(self.tool), sys.executable, "-m", "judge.worker",
                   *map(str, fds)]
        return subprocess.Popen(command, pass_fds=fds, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, cwd=self.workdir.name, env=env, start_new_session=True)


def _tool_flags(tool: str) -> list[str]:
    if tool == "racecheck":
        return ["--racecheck-report", "analysis"]
    return ["--leak-check", "no"] if tool == "memcheck" else []


@dataclass
class SanitizerRun:
    """One tool's run on the case: what the call gave, what the sanitizer found, the report for the user."""

    tool: str
    case: str
    verdict: str
    findings: list[Finding] = field(default_factory=list)
    summary: str = ""
    report: str = ""
    seconds: float = 0.0
    problem: str = ""  # the sanitized worker could not run the call (it says why)

    def as_dict(self, files: tuple[str, ...]) -> dict:
        return {"tool": self.tool, "case": self.case, "verdict": self.verdict, "summary": self.summary,
                "seconds": round(self.seconds, 3), "problem": self.problem, "report": self.report,
                "findings": [{"headline": f.headline, "in_your_files": f.in_files(files),
                              "locations": [dataclasses.asdict(loc) for loc in f.locations],
                              "details": list(f.details)} for f in self.findings]}


def pick_case(runner, cases: list) -> Case | None:
    """The case to sanitize: the first failed test (at its smallest failing size when the search found one
    and this runner can make it), if it is no larger than SANITIZE_ELEMENTS; else the largest test that ran
    within that many elements."""
    by_name = {c.name: c for c in cases}
    ran = [(t, by_name[t.name]) for t in runner.result.tests if t.name in by_name and t.verdict != Verdict.SKIPPED]
    failed = [(t, c) for t, c in ran if t.verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED)]
    for test, case in failed[:1]:
        smallest = test.details.get("smallest_failing")
        if smallest and smallest != case.params and not hasattr(case, "arguments"):
            from judge.challenge.cases import shrink_case

            case = shrink_case(smallest)  # the search's own name: its seed
        if _elements(runner, case) <= SANITIZE_ELEMENTS:
            return case
    fits = [c for _, c in ran if _elements(runner, c) <= SANITIZE_ELEMENTS]
    return max(fits, key=lambda c: _elements(runner, c), default=None)


def _elements(runner, case) -> int:
    return case.elements if hasattr(case, "elements") else case_elements(runner.spec, case.params)


def sanitize_run(runner, cases: list, tools=TOOLS) -> list[SanitizerRun]:
    """Each tool's run of the picked case in a sanitized worker of ``runner``'s (its reference checks the call)."""
    sanitizer = find_sanitizer()
    case = pick_case(runner, cases)
    if sanitizer is None or case is None:
        return []
    runs = []
    options, runner.options = runner.options, dataclasses.replace(runner.options, timeout=CALL_TIMEOUT_S)
    try:
        for tool in tools:
            runner.events.status(f"compute-sanitizer --tool {tool} on {case.label() or case.name}")
            runs.append(_one_tool(runner, case, sanitizer, tool))
    finally:
        runner.options = options
    return runs


def _one_tool(runner, case, sanitizer: str, tool: str) -> SanitizerRun:
    """The tool's run in the worker's sandbox; once more without it when the sanitizer wrote nothing there (its
    library could not work inside Landlock and seccomp), which the run's ``problem`` then says."""
    run = _sanitized_call(runner, case, sanitizer, tool, unsealed=False)
    if run.problem and not run.findings and not run.summary and not runner.options.untrusted:
        first = run.problem.splitlines()[0]
        run = _sanitized_call(runner, case, sanitizer, tool, unsealed=True)
        run.problem = (f"{run.problem}; " if run.problem else "") + (
            f"ran without the worker's sandbox (Landlock, seccomp): inside it, {first}")
    return run


def _sanitized_call(runner, case, sanitizer: str, tool: str, unsealed: bool) -> SanitizerRun:
    folder = tempfile.mkdtemp(prefix="judge-sanitizer-")  # the judge's: the worker cannot write here
    log = os.path.join(folder, "report.txt")
    started = time.perf_counter()
    run = SanitizerRun(tool, case.name, "")
    worker = SanitizedWorker(runner.solution, runner.spec, runner.device, runner.interpret, runner.options.worker_env,
                             runner.options.limits, runner.options.untrusted, sanitizer=sanitizer, tool=tool, log=log,
                             unsealed=unsealed)
    runner.stop_worker()
    try:
        worker.start(max(runner.options.compile_timeout, CALL_TIMEOUT_S))
        runner.worker, runner.first_call = worker, True
        outcome = runner.run_case(case)
        run.verdict = outcome.verdict.value
    except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:  # what the sanitizer said, too
        tail = worker.output_tail() if worker.process is not None else ""
        run.verdict, run.problem = Verdict.RUNTIME_ERROR.value, f"{str(exc).splitlines()[0][:300]}\n{tail}".strip()
    finally:
        worker.stop()
        runner.worker = None
    text = Path(log).read_text(errors="replace") if os.path.exists(log) else ""
    keep = os.environ.get(KEEP_ENV)
    if keep:  # the raw reports, for the tests' recorded samples (scripts/exact39_gpu.sh) or a bug report
        os.makedirs(keep, exist_ok=True)
        Path(keep, f"{tool}_{Path(runner.solution).name}.txt").write_text(text)
    shutil.rmtree(folder, ignore_errors=True)
    run.findings, summaries = parse_report(text)
    run.summary = summary_line(summaries)
    if not text.strip():
        run.problem = run.problem or "compute-sanitizer wrote no report"
    run.report = format_findings(tool, run.findings, user_files(runner.solution))
    run.seconds = time.perf_counter() - started
    return run


def user_files(solution: str) -> tuple[str, ...]:
    """The files whose findings are the user's: the solution (by path, and by name for a CUDA source the judge
    compiled from a copy) and the files beside it."""
    path = Path(solution).resolve()
    beside = [str(p) for p in path.parent.iterdir() if p.is_file() and p.suffix in (".py", ".cu", ".cuh", ".h")]
    return tuple(dict.fromkeys([str(path), path.name, *beside]))
