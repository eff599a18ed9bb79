"""One ``judge run``: spec -> cases -> worker -> checks -> timing -> verdict.

``Runner`` owns the worker process for one solution and turns everything that
can happen to a call (a wrong output, an exception, a crash, a hang) into a
``CaseResult``.  Reporting is left to the caller through ``Events``.
"""

from __future__ import annotations

import contextlib
import math
import platform
import random
import re
import time
from dataclasses import dataclass, field

import torch

from judge import __version__
from judge.challenge.cases import Case, benchmark_cases, call_seed, case_elements, describe, generate_cases, \
    limits_for, parse_sizes, select_case, shrink, shrink_case, sized_case, skipped_explicit
from judge.judging.bench_context import BenchContext, BenchSettings, CallContext
from judge.judging.bench_result import BenchOutcome, CaseTiming
from judge.judging.reference import BadReply, JudgeOutOfMemory, Reference, ReferenceError_
from judge.challenge.spec import Spec
from judge.judging.checks import failed_alike
from judge.judging.failures import NONDETERMINISTIC, headline
from judge.judging.hints import add_grid_hint, precision_hint
from judge.judging.verdict import CaseResult, Verdict, overall_verdict
from judge.base.trace import mark
from judge.worker.arguments import CallArguments
from judge.worker.client import SubmissionInvalid, Worker, WorkerCrashed, WorkerTimeout
from judge.worker.cpu_device import STAND_IN_NAMES, stand_ins_note
from judge.defence.limits import Limits

__all__ = ["Options", "RunResult", "Runner", "Events", "detect_mode", "missing_device", "headline"]

UNINITIALISED_HINT = ("this case passes when its outputs start at zero: the kernel accumulates into (or keeps "
                      "values of) an output that starts uninitialised. Outputs are allocated with torch.empty, here "
                      "as on LeetGPU, so zero it first inside solve() (output.zero_()) before adding to it")
NO_KERNEL = ("solve() launched no Triton kernel of its own in this call (a @triton.jit function of the solution's "
             "files): the rule that the answer come from the solution's own kernel (--require-kernel, or the "
             "challenge's require_kernel: true) rejects an answer that torch computed alone")
REQUIRE_KERNEL_NOTE = ("rule: every solve() call must launch a Triton kernel of the solution's own (--require-kernel, "
                       "or the challenge's require_kernel); a call that launches none is invalid_submission. The "
                       "launches are counted inside the solution's process, which the judge cannot see from outside: "
                       "its own word, a rule against honest mistakes, not a defence (a solution can count a launch "
                       "it never made; docs/security.md)")
CUDA_ON_CPU_NOTE = ("solve() put tensors on 'cuda' by name; in CPU mode the judge's device is this CPU, so they "
                    "were made there (on a GPU they go to the judged GPU)")

# After this many deaths of the worker (crash, signal, memory kill) the rest of
# the cases are skipped: each death costs a new process (seconds), and the
# verdict is already decided.
MAX_WORKER_DEATHS = 3


@dataclass
class Options:
    """How to judge; defaults match the CLI's (README.md, `judge run --help`)."""

    seed: int | None = None
    interpret: bool = False
    device: str | None = None  # "cuda:0"...; None picks cuda:0, or cpu in interpret mode
    timeout: float | None = None  # per call; None: 30 s on GPU, 60 s in interpret mode
    # Loading the solution, and the most any call may take with its compiles: a call's own
    # time is bounded by ``timeout``, the compiles and autotuning it reports are not counted
    # against that (judge/worker/deadline.py), and all of it together by this.
    compile_timeout: float = 180.0
    shrink_budget: int | None = None  # calls spent searching a smaller failing size
    benchmark: bool = True
    bench_budget_s: float = 2.0  # per benchmark case (judge/timing)
    remeasure_peaks: bool = False
    worker_env: dict = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)  # output, host and GPU memory of the worker
    # CPU mode, the largest test in tensor elements (--cpu-elements): YAML specs scale their caps to it (None:
    # the spec's interpret.max), LeetGPU folders skip larger tests (None: CPU_ELEMENT_BUDGET)
    cpu_elements: int | None = None
    untrusted: bool = False  # judge grade: the strict sandbox and a private Triton cache (worker/client.py)
    wait_for_gpu_s: float = 0.0  # before timing, wait this long at most for other processes to leave the GPU
    require_kernel: bool = False  # every call must launch a kernel of the solution's own (besides the spec's rule)
    torch_compile: bool = False  # a KernelBench problem: also time its Model under torch.compile (--torch-compile)
    sanitize: tuple = ()  # afterwards, the failing case under these compute-sanitizer tools (judging/sanitize.py)
    only_case: str | None = None  # --case NAME: judge this case of the run alone
    sizes: str | None = None  # --sizes rows=32,cols=1: judge these sizes alone (a YAML spec's; cases.parse_sizes)

    def call_timeout(self, interpret: bool | None = None) -> float:
        """``timeout``, else the default of the mode: ``interpret`` is the mode the run
        detected (CPU mode without a GPU even when ``--interpret`` was not given)."""
        interpret = self.interpret if interpret is None else interpret
        return self.timeout if self.timeout is not None else (60.0 if interpret else 30.0)


SANDBOX_KEYS = ("namespaces", "read_only", "capabilities", "no_new_privs", "landlock", "seccomp")


@dataclass
class RunResult:
    """Everything a report needs; ``as_dict`` is the documented JSON shape."""

    challenge: str
    solution: str
    mode: str
    seed: int
    device: str
    verdict: Verdict = Verdict.ACCEPTED
    message: str = ""
    tests: list = field(default_factory=list)
    benchmarks: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    environment: dict = field(default_factory=dict)
    phases_s: dict = field(default_factory=dict)
    sanitizer: list | None = None  # --sanitize: each tool's run (sanitize.SanitizerRun.as_dict)
    kernelbench_check: dict | None = None  # a KernelBench problem: KernelBench's own verdict (kernelbench_verdict.py)
    rules: list | None = None  # a KernelBench problem: the reward-hack rules that fired (judging/reward_hacks.py)

    @property
    def sealed(self) -> bool | None:
        """Whether the worker ran sealed (judge/defence/policy.sealed); None when no worker started."""
        from judge.defence.policy import sealed

        protections = self.environment.get("protections")
        return None if not protections else sealed(protections)

    def as_dict(self) -> dict:
        protections = self.environment.get("protections") or {}
        out = {
            "verdict": self.verdict.value, "sealed": self.sealed,
            "sandbox": {name: protections[name] for name in SANDBOX_KEYS if name in protections},
            "challenge": self.challenge, "solution": self.solution,
            "mode": self.mode, "seed": self.seed, "device": self.device, "message": self.message,
            "tests": [t.as_dict() for t in self.tests], "benchmarks": list(self.benchmarks),
            "notes": list(self.notes), "environment": dict(self.environment),
            "phases_s": {k: round(v, 3) for k, v in self.phases_s.items()},
        }
        if self.sanitizer is not None:
            out["sanitizer"] = list(self.sanitizer)
        if self.kernelbench_check is not None:
            out["kernelbench_check"], out["rules"] = dict(self.kernelbench_check), list(self.rules or [])
        return out


class Events:
    """Progress callbacks; the CLI subclasses this to draw a progress display."""

    def started(self, result: RunResult, total_cases: int) -> None: ...
    def case_started(self, case: Case) -> None: ...
    def case_finished(self, result: CaseResult) -> None: ...
    def status(self, text: str) -> None: ...


def detect_mode(options: Options) -> tuple[bool, str]:
    """(interpret, device): CPU interpreter when asked or when there is no CUDA device."""
    if options.interpret or not torch.cuda.is_available():
        return True, "cpu"
    return False, options.device or "cuda:0"


def missing_device(device: str | None, interpret: bool) -> str | None:
    """Why the device the user named (``--device``) cannot be judged on; None when it can, or none was
    named.  A named GPU that is not there used to fall back to CPU mode and say ACCEPTED (issue 29)."""
    if interpret or not device:
        return None
    try:
        wanted = torch.device(device)
    except (RuntimeError, ValueError):
        return f"--device {device}: not a device name (e.g. cuda:1)"
    if wanted.type != "cuda":
        return f"--device {device}: the judge runs on CUDA devices; --interpret is CPU mode"
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        return (f"--device {device}: this machine has no CUDA device torch can use; leave --device out (or "
                "pass --interpret) to judge in CPU mode")
    index = wanted.index if wanted.index is not None else 0
    if index >= count:
        there = ", ".join(f"cuda:{i} ({torch.cuda.get_device_name(i)})" for i in range(count))
        return f"--device {device}: no such device here; this machine has {count}: {there}"
    return None


def environment(device: str) -> dict:
    env = {"judge": __version__, "torch": torch.__version__, "triton": _triton_version(),
           "python": platform.python_version(), "host": platform.node()}
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(torch.device(device))
        env.update(gpu=props.name, cuda=torch.version.cuda, sm_count=props.multi_processor_count,
                   driver=_driver_version(), l2_bytes=int(getattr(props, "L2_cache_size", 0) or 0),
                   gpu_uuid=str(getattr(props, "uuid", "") or ""))
    return env


def _triton_version() -> str:
    """Triton's version from its package metadata: the judge's own process never
    needs triton itself, and importing it only for this costs a third of a second."""
    from importlib import metadata

    for name in ("triton", "pytorch-triton", "pytorch-triton-rocm"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    import triton

    return triton.__version__


def _driver_version() -> str:
    """The NVIDIA driver's version, as ``nvidia-smi`` prints it (a peaks cache key):
    read from /proc where the kernel module says it, which costs no process."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8", errors="replace") as f:
            found = _DRIVER_VERSION.search(f.readline())
        if found:
            return found.group(1)
    except OSError:
        pass
    return _driver_version_from_smi()


_DRIVER_VERSION = re.compile(r"\s(\d+\.\d+(?:\.\d+)?)\s")


def _driver_version_from_smi() -> str:
    try:
        import subprocess

        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


class Runner:
    def __init__(self, spec: Spec, solution: str, options: Options, events: Events):
        self.spec, self.solution, self.options, self.events = spec, solution, options, events
        self.interpret, self.device = detect_mode(options)
        self.seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
        self.worker: Worker | None = None
        self.early_worker: Worker | None = None  # spawned before torch was imported (judge_solution)
        self.baseline = None  # the torch baseline's worker when it will be timed (benchmark_stage.BaselineWorker)
        self.peaks: dict | None = None  # measured before the worker started (measure_peaks_first), else later
        self.timings: list[CaseTiming] = []  # the benchmark stage's entries (record_benchmarks)
        self.reference: Reference | None = None
        self.first_call = True
        self.zero_outputs = False  # the next calls' outputs start at zero, not poison (diagnose_uninitialised)
        self.rerun = False  # the next call repeats the failed one's inputs (diagnose_nondeterminism)
        self.calls = 0  # solve() calls requested so far (call_what)
        self.last_got: dict | None = None  # the last reply's tensors (check_reply)
        self.last_problems: list = []  # the last checked call's failed outputs (diagnose_nondeterminism)
        self.shrunk = False
        self.worker_deaths = 0
        self.cuda_calls: set[str] = set()  # CPU mode: the torch.cuda functions the solution called (its note)
        self.require_kernel = options.require_kernel or bool(getattr(spec, "require_kernel", False))
        self.result = RunResult(
            challenge=spec.name, solution=str(solution), mode="interpret" if self.interpret else "gpu",
            seed=self.seed, device=self.device)

    # -- the pipeline ----------------------------------------------------------
    def run(self) -> RunResult:
        result, started = self.result, time.perf_counter()
        mark("judging starts")
        result.environment = environment(self.device)
        result.device = result.environment.get("gpu", "cpu (Triton interpreter)")
        cases = self.selected(self.prepare())
        size_notes = list(result.notes)  # CPU mode's caps, the rules: about calls that may never be made
        self.events.started(result, len(cases))
        self.spawn_baseline()
        if not self.start_worker():  # the file never ran: no size was judged, no rule applied (issue 49 item 4)
            result.notes = [note for note in result.notes if note not in size_notes]
            result.phases_s["total"] = time.perf_counter() - started
            return result
        result.phases_s["start_worker"] = time.perf_counter() - started
        with self.gpu_turn():
            tests_started = time.perf_counter()
            self.run_tests(cases)
            add_grid_hint(result.tests)  # a hint that needs every case's outcome (hints.py)
            result.phases_s["tests"] = time.perf_counter() - tests_started
            result.verdict = overall_verdict(result.tests)
            if result.verdict == Verdict.ACCEPTED and not self.alone:
                self.run_benchmarks()
                result.verdict = overall_verdict(result.tests + self.benchmark_failures())
        result.message = self.summary_message()
        if self.options.sanitize and not self.interpret:
            self.sanitize(cases)
        mark("judging ends")
        result.phases_s["total"] = time.perf_counter() - started
        return result

    def sanitize(self, cases: list) -> None:
        """The failing case (or the largest test) under each compute-sanitizer tool (judging/sanitize.py)."""
        from judge.judging.sanitize import sanitize_run, user_files

        started = time.perf_counter()
        runs = sanitize_run(self, cases, self.options.sanitize)
        self.result.sanitizer = [run.as_dict(user_files(self.solution)) for run in runs]
        self.result.phases_s["sanitize"] = time.perf_counter() - started

    def gpu_turn(self):
        """This GPU's lock while the run uses it (timing/contention.py): two judges of this host on one GPU
        go one after the other.  Nothing to take in CPU mode, or where nothing is timed."""
        if self.interpret or not self.options.benchmark:
            return contextlib.nullcontext()
        from judge.timing.contention import gpu_turn

        return gpu_turn(self.result.environment, self.device, self.events.status)

    def prepare(self) -> list[Case]:
        """The functional tests, the CPU-mode notes and the reference (ShippedRunner has its own)."""
        cases = generate_cases(self.spec, self.seed, self.interpret, self.options.cpu_elements)
        if not cases:
            raise ReferenceError_(f"{self.spec.source}: no test size satisfies the ranges, the constraints "
                                  "and the size limits")
        self.note_caps()
        self.note_rules()
        self.reference = Reference(self.spec, self.device)
        return cases

    @property
    def alone(self) -> bool:
        """Whether one case is judged alone (--case, --sizes): no benchmarks, a verdict of that case only."""
        return self.options.only_case is not None or self.options.sizes is not None

    def selected(self, cases: list[Case]) -> list[Case]:
        """The one case --case or --sizes asks for (CaseSelectionError if there is none), else ``cases``."""
        if not self.alone:
            return cases
        case = self.sized_case(self.options.sizes) if self.options.sizes is not None else \
            select_case(cases, self.options.only_case)
        what = case.name if case.name == case.label() else f"{case.name}: {case.label() or 'its shipped inputs'}"
        self.result.notes.append(f"one case judged alone ({what}): the verdict is this case's, not the challenge's; "
                                 "no benchmarks")
        return [case]

    def sized_case(self, sizes: str) -> Case:
        """--sizes: a case of those sizes, within the spec's ranges (ShippedRunner, KernelBenchRunner: none)."""
        return sized_case(parse_sizes(sizes, self.spec))

    def note_rules(self) -> None:
        if self.require_kernel:
            self.result.notes.append(REQUIRE_KERNEL_NOTE)

    def note_caps(self) -> None:
        """CPU mode's notes: the caps (and the option that moves them), the explicit sizes they leave out
        and the exact option that runs them."""
        if not self.interpret or self.alone:  # one case alone: the caps chose no size of it
            return
        budget = self.options.cpu_elements
        self.result.notes.append(cpu_caps_note(self.spec, budget))
        skipped = skipped_explicit(self.spec, True, budget)
        if skipped:
            self.result.notes.append(skipped_note(self.spec, skipped))

    def start_worker(self) -> bool:
        self.events.status("starting the worker and importing the solution")
        self.worker = self.take_early_worker() or self.new_worker()
        self.measure_peaks_first()
        try:
            self.worker.start(self.options.compile_timeout)
            self.note_protections(getattr(self.worker, "protections", {}), getattr(self.worker, "kernel", None))
            self.note_build(getattr(self.worker, "build", {}))
            return True
        except SubmissionInvalid as exc:  # invalid_submission, or compile_error for a .cu nvcc rejected
            self.result.verdict, self.result.message = Verdict(exc.verdict), str(exc)
        except WorkerTimeout as exc:
            self.result.verdict = Verdict.TIME_LIMIT_EXCEEDED
            self.result.message = f"importing the solution timed out: {exc}"
        except WorkerCrashed as exc:
            self.result.verdict = Verdict.RUNTIME_ERROR
            self.result.message = f"{exc}\n{self.worker.output_tail()}".strip()
        self.worker.stop()
        self.worker = None
        return False

    def note_build(self, build: dict) -> None:
        """A CUDA C++ solution's build (``environment.cuda_build``, and a note): nvcc, or the cache."""
        if not build or "cuda_build" in self.result.environment:
            return
        self.result.environment["cuda_build"] = dict(build)
        how = "found in the build cache" if build.get("cached") else f"built with nvcc in {build.get('seconds', 0):.1f} s"
        headers = f", with the CUTLASS {build['cutlass']} headers" if isinstance(build.get("cutlass"), str) else ""
        self.result.notes.append(f"CUDA C++: {how} for {build.get('arch', '?')}{headers}")

    def note_protections(self, applied: dict, kernel: dict | None = None) -> None:
        """The run's protections (``environment.protections``: the worker's namespaces, capabilities and
        sandbox layers as the kernel and the judge saw them, and the judge's own) and a note for each that
        is off (docs/security.md)."""
        from judge.defence.policy import protections

        judged = protections(applied, kernel)
        self.result.environment["protections"] = {
            **judged.layers, "guard_zones": "on", "argument_seal": "on", "environment": "allow-listed",
            "judge_undumpable": judge_undumpable()}
        if judged.note:
            self.result.notes.append(judged.note)

    def measure_peaks_first(self) -> None:
        """On a GPU whose peaks are not cached (a fresh machine), measure them now, while the
        early worker is still importing torch and has loaded nothing of the solution: no
        code of the user's can run until the init message is sent, and the workers only
        make their CUDA contexts meanwhile (a moment's GPU work against 2 s of measuring).
        Later they would be measured between the tests and the benchmarks (1.7 s on an H100)."""
        if self.interpret or not self.options.benchmark or self.worker.process is None:
            return
        from judge.timing.peaks import cached_peaks, get_peaks

        if cached_peaks(self.result.environment) is not None and not self.options.remeasure_peaks:
            return
        self.events.status("measuring the device's peaks (once per device)")
        started = time.perf_counter()
        try:
            self.peaks = get_peaks(self.device, self.result.environment, self.options.remeasure_peaks)
        except Exception:  # noqa: BLE001 - e.g. out of memory: measured (or reported) at the benchmarks, as before
            self.peaks = None
            return
        self.result.phases_s["peaks"] = time.perf_counter() - started

    def take_early_worker(self) -> Worker | None:
        """The early worker if it was spawned as this run's would be (else it is stopped)."""
        early, self.early_worker = self.early_worker, None
        if early is None:
            return None
        if early.spawned_for != self.new_worker().spawned_for or not early.alive:
            early.stop()
            return None
        early.device = self.device  # sent with the init message, not fixed at spawn
        return early

    def new_worker(self, solution: str | None = None, readable: tuple[str, ...] = ()) -> Worker:
        return Worker(solution or self.solution, self.spec, self.device, self.interpret,
                      self.options.worker_env, self.options.limits, self.options.untrusted, readable)

    def ensure_worker(self) -> None:
        if self.worker is None or not self.worker.alive:
            if self.worker is not None:
                self.worker.stop()
            self.worker = self.new_worker()
            self.worker.start(self.options.compile_timeout)
            self.first_call = True  # a fresh process compiles (or loads from cache) again

    def spawn_baseline(self) -> None:
        """On a GPU, when the torch baseline is not cached: its worker imports while the tests run."""
        if self.interpret or not self.options.benchmark:
            return
        from judge.judging.benchmark_stage import BaselineWorker, baseline_needed

        context = self.bench_context()
        if baseline_needed(context, benchmark_cases(self.spec)):
            try:
                self.baseline = BaselineWorker(context)
            except OSError:
                self.baseline = None  # made again when it is needed, as before

    def own_pids(self) -> set[int]:
        """This run's worker processes (they use the GPU too: no contention of theirs)."""
        workers = [self.worker, self.early_worker, self.baseline.worker if self.baseline is not None else None]
        return {w.process.pid for w in workers if w is not None and w.process is not None}

    def close(self) -> None:
        if self.baseline is not None:
            self.baseline.stop()
            self.baseline = None
        if self.early_worker is not None:  # never taken: the run ended before it started a worker
            self.early_worker.stop()
            self.early_worker = None
        self.stop_worker()

    def stop_worker(self) -> None:
        """Stop the solution's worker, if any (a later call starts a fresh one: ensure_worker)."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None

    def started_worker(self) -> Worker:
        """The solution's worker, started (a dead one replaced): what the benchmark stage times in."""
        self.ensure_worker()
        return self.worker

    def release_baseline(self) -> None:
        """The benchmark stage took the torch baseline's worker over: it stops it, and this run
        no longer counts it among its own processes (own_pids) nor stops it at close."""
        self.baseline = None

    # -- functional tests --------------------------------------------------------
    def run_tests(self, cases: list[Case]) -> None:
        for index, case in enumerate(cases):
            self.events.case_started(case)
            outcome = self.run_case(case)
            if outcome.verdict in (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR) and not self.shrunk:
                self.shrunk = True  # one search per run: the first failure is the one reported
                if outcome.verdict == Verdict.WRONG_ANSWER:
                    self.diagnose_nondeterminism(case, outcome)
                    self.diagnose_uninitialised(case, outcome)
                if not outcome.details.get("nondeterministic"):  # a size that fails by chance is no smaller example
                    self.search_smaller(case, outcome)
            self.result.tests.append(outcome)
            self.events.case_finished(outcome)
            if outcome.verdict == Verdict.TIME_LIMIT_EXCEEDED:
                self.skip_rest(cases[index + 1:], "not run after a time-out")
                return
            if self.worker_deaths >= MAX_WORKER_DEATHS:
                self.skip_rest(cases[index + 1:], f"not run after {self.worker_deaths} deaths of the solution's process")
                return

    def diagnose_nondeterminism(self, case: Case, outcome: CaseResult) -> None:
        """Run the failed case again on the same inputs (the same seed, or the same shipped tensors): an answer
        that passes, or fails in other elements, names a race or undefined behaviour.  The verdict stays."""
        first = self.last_problems
        if not first:  # not a failed check (a verdict the worker reported): nothing to compare with
            return
        self.rerun = True
        try:
            again = self.run_case(case)
        finally:
            self.rerun = False
        if again.verdict == Verdict.WRONG_ANSWER and failed_alike(first, self.last_problems):
            return
        if again.verdict in (Verdict.ACCEPTED, Verdict.WRONG_ANSWER):  # a crash or a time-out says nothing here
            outcome.message = f"{NONDETERMINISTIC}\n{outcome.message}"
            outcome.details["nondeterministic"] = True

    def diagnose_uninitialised(self, case: Case, outcome: CaseResult) -> None:
        """Does the failed case pass when its outputs start at zero instead of poison?  Then the kernel
        accumulates into (or relies on) an output it never initialises: say so.  The verdict stays."""
        self.zero_outputs = True
        try:
            again = self.run_case(case)
        finally:
            self.zero_outputs = False
        if again.verdict == Verdict.ACCEPTED:
            outcome.message = f"{UNINITIALISED_HINT}\n{outcome.message}"
            outcome.details["passes_with_zeroed_outputs"] = True

    def skip_rest(self, cases: list[Case], why: str) -> None:
        for case in cases:
            skipped = CaseResult(case.name, case.kind, case.params, Verdict.SKIPPED, why)
            self.result.tests.append(skipped)
            self.events.case_finished(skipped)

    def run_case(self, case: Case, call_index: int = 0) -> CaseResult:
        """Run solve() once on ``case`` and check everything it returned."""
        seed = call_seed(self.seed, case.name, call_index)
        first, started = self.first_call, time.perf_counter()
        self.last_problems = []
        try:
            self.ensure_worker()
            header, got = self.call_worker(case, seed)
            if first:  # the first call compiles (JIT) and autotunes
                self.result.phases_s.setdefault("first_call", time.perf_counter() - started)
        except SubmissionInvalid as exc:
            return CaseResult(case.name, case.kind, case.params, Verdict(exc.verdict), str(exc))
        except WorkerTimeout as exc:
            return self.failed(case, Verdict.TIME_LIMIT_EXCEEDED, f"{exc} ({self.call_where(case)})")
        except WorkerCrashed as exc:
            return self.failed(case, Verdict.RUNTIME_ERROR, str(exc))
        if header.get("ok") and not _is_time(header.get("time_ms")):
            return self.failed(case, Verdict.RUNTIME_ERROR, "malformed reply from the solution's process: its call "
                                                            f"time is {str(header.get('time_ms'))[:40]}, not a time")
        if not header.get("ok"):
            outcome = self.failed(case, _verdict_of(header), str(header.get("message", "")))
            if header.get("fatal") and self.worker is not None:
                self.worker.stop()  # its GPU context is gone: the death counts, a fresh worker follows
                self.worker, self.worker_deaths = None, self.worker_deaths + 1
            return outcome
        outside = self.worker.stores_outside()
        if outside:
            return self.failed(case, Verdict.RUNTIME_ERROR, "\n".join(outside))
        if self.require_kernel and not _launched_own_kernel(header):
            return CaseResult(case.name, case.kind, case.params, Verdict.INVALID_SUBMISSION, NO_KERNEL,
                              header.get("time_ms"))
        try:
            problems = [m for m in self.check_reply(case, seed, header, got) if not m.ok]
            self.last_problems = problems
        except BadReply as exc:
            return self.failed(case, Verdict.RUNTIME_ERROR, f"malformed reply from the solution's process: {exc}")
        except JudgeOutOfMemory as exc:
            self.stop_worker_for_memory()
            return self.failed(case, Verdict.RUNTIME_ERROR, str(exc))
        if problems:
            message, cause = " | ".join(p.message() for p in problems), " | ".join(p.cause() for p in problems)
            precision = self.precision_hint(case, seed, problems)
            if precision:
                message, cause = f"{precision_hint(precision)}\n{message}", f"{cause} (matches {precision})"
            return CaseResult(case.name, case.kind, case.params, Verdict.WRONG_ANSWER, message,
                              header.get("time_ms"), cause=f"wrong_answer: {cause}")
        return CaseResult(case.name, case.kind, case.params, Verdict.ACCEPTED, "", header.get("time_ms"))

    def precision_hint(self, case: Case, seed: int, problems: list) -> str | None:
        """The narrower precision the failed outputs match (reference.precision_of), or None."""
        outputs = [p.name for p in problems if not p.modified_input]
        if not outputs or self.last_got is None:
            return None
        try:
            return self.precision_of(case, seed, outputs)
        except Exception:  # noqa: BLE001 - a hint must never cost the verdict
            return None

    def precision_of(self, case: Case, seed: int, names: list[str]) -> str | None:
        """The reference's answer (ShippedRunner asks its own, per shipped case)."""
        return self.reference.precision_of(case.params, seed, self.last_got, names)

    def call_worker(self, case: Case, seed: int) -> tuple[dict, dict]:
        """One call: its arguments drawn here from ``seed`` and placed in the shared memory; the reply, and the
        tensors as the shared memory holds them after the call (judge/worker/arguments.py)."""
        header = self.request_call({"op": "call", **self.place_call(case, seed)}, f"solve() on {case.label()}")
        return header, self.worker.results()

    def place_call(self, case: Case, seed: int) -> dict:
        """The request fields of a call on ``case``'s inputs from ``seed`` (a LeetGPU test's own), placed: outputs
        poisoned, or zeroed for the diagnosis of an output never initialised."""
        return self.worker.place(self.spec.parameters, self.outputs_zeroed(self.call_arguments(case, seed)))

    def call_arguments(self, case: Case, seed: int) -> CallArguments:
        return self.reference.call_arguments(case.params, seed)

    def call_where(self, case: Case) -> str:
        """Which call a time-out stopped: the case (or why a call beyond the case's own was made) and its number
        in the run; a time-out said only the sizes (issue 49 item 5).  Only a time-out's message gets it: the
        cause failures are grouped by, and the search for a smaller size compares, stays free of case names."""
        name = "a smaller size the search for the smallest failing one tried" if case.kind == "shrink" else \
            f"case {case.name}"
        why = (", run again on the same inputs to tell a race from an error at this size" if self.rerun else
               ", run with its outputs zeroed to tell an output never initialised" if self.zero_outputs else "")
        before = self.calls - 1
        ordinal = f"call {self.calls} of this run; the {before} before it finished" if before > 0 else \
            "the run's first call"
        return f"{name}{why}, {ordinal}"

    def outputs_zeroed(self, call: CallArguments) -> CallArguments:
        """``call`` with the out tensors zeroed instead of poisoned while ``zero_outputs`` is on (the ones that
        start from a challenge's values stay as they are)."""
        if self.zero_outputs:
            for value, p in zip(call.values, self.spec.parameters):
                if getattr(p, "role", None) == "out" and p.name not in call.kept and isinstance(value, torch.Tensor):
                    value.zero_()
        return call

    def request_call(self, header: dict, what: str) -> dict:
        """A ``call`` with its deadline: the per-call timeout; the first call on new sizes may compile, up to
        ``--compile-timeout`` (worker/client.Worker.request)."""
        self.first_call = False
        self.calls += 1
        reply, _ = self.worker.request(header, self.options.call_timeout(self.interpret), what,
                                       cap=self.options.compile_timeout)
        self.note_cuda_on_cpu(reply)
        return reply

    def note_cuda_on_cpu(self, reply: dict) -> None:
        """In CPU mode, once a run: the solution named the GPU and got the CPU; and which torch.cuda functions
        it called, which answered for the CPU (worker/cpu_device.py), one note kept up to date."""
        if not self.interpret:
            return
        if CUDA_ON_CPU_NOTE not in self.result.notes and type(reply.get("cuda_on_cpu")) is int:
            self.result.notes.append(CUDA_ON_CPU_NOTE)
        names = reply.get("cuda_calls_on_cpu")
        called = self.cuda_calls | {n for n in (names if isinstance(names, list) else []) if n in STAND_IN_NAMES}
        if called != self.cuda_calls:  # only names the judge knows: the worker's strings are not trusted
            notes = self.result.notes
            if self.cuda_calls:
                notes.remove(stand_ins_note(self.cuda_calls))
            self.cuda_calls = called
            notes.append(stand_ins_note(called))

    def check_reply(self, case: Case, seed: int, header: dict, got: dict) -> list:
        """Every tensor of a call, as the shared memory holds it after the call, against the judge's own values."""
        self.last_got = got  # for a hint if the check fails (precision_hint)
        return self.reference.check(case.params, seed, got)

    def stop_worker_for_memory(self) -> None:
        """Stop the worker, whose GPU memory the judge needs, and count it as a death (a fresh one follows)."""
        if self.worker is not None:
            self.worker.stop()
            self.worker, self.worker_deaths = None, self.worker_deaths + 1
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def failed(self, case: Case, verdict: Verdict, message: str) -> CaseResult:
        """A failed call: add what the solution printed, and replace a dead worker."""
        tail = self.worker.output_tail() if self.worker is not None else ""
        if self.interpret and "SIGSEGV" in message:
            message += (" (under Triton's interpreter this is usually an out-of-bounds tl.load or"
                        " tl.store: check the masks)")
        if tail:
            message = f"{message}\n{tail}"
        if self.worker is not None and not self.worker.alive:
            self.worker_deaths += 1
            self.worker.stop()
            self.worker = None
        return CaseResult(case.name, case.kind, case.params, verdict, message)

    def search_smaller(self, case: Case, outcome: CaseResult) -> None:
        """Look for the smallest size that still fails, and say so in the message."""
        budget = self.options.shrink_budget
        if budget is None:
            budget = 30 if self.interpret else 60
        if outcome.verdict == Verdict.RUNTIME_ERROR and (self.worker is None or not self.worker.alive):
            budget = min(budget, 6)  # each crash costs a worker restart
        if budget <= 0:
            return
        self.events.status(f"searching for a smaller failing size than {case.label()}")

        def fails(params: dict) -> bool:
            """Whether ``params`` fails in the same way: a smaller case that fails otherwise (another
            verdict, another cause) is no smaller example of this failure (a cap on all calls' output
            once made every later call fail, and rows=1, cols=1 was named although it had passed)."""
            if self.worker_deaths >= MAX_WORKER_DEATHS:
                return False  # each death costs a new worker: stop searching
            probe = self.run_case(shrink_case(params))
            return probe.verdict == outcome.verdict and probe.cause == outcome.cause

        limits = limits_for(self.spec, self.interpret, self.options.cpu_elements)
        smallest, calls = shrink(self.spec, case.params, fails, budget, limits)
        outcome.details["smallest_failing"] = smallest
        outcome.details["shrink_calls"] = calls
        if smallest != case.params:
            outcome.message = f"fails at {describe(smallest)} (smallest found in {calls} tries)\n{outcome.message}"

    # -- benchmarks --------------------------------------------------------------
    def run_benchmarks(self) -> None:
        if self.interpret:
            self.result.notes.append("benchmarks are not run in CPU mode: interpreter times say nothing about GPUs")
            return
        if not self.options.benchmark:
            return
        from judge.judging.benchmark_stage import run_benchmarks  # GPU only

        started = time.perf_counter()
        self.record_benchmarks(run_benchmarks(self.bench_context(), self.benchmark_cases()))
        self.result.phases_s["benchmarks"] = time.perf_counter() - started

    def call_context(self) -> CallContext:
        """What timing one case's calls in this run's worker reads (benchmark_stage.bench_case)."""
        # The peaks the stage recorded, else those measured before the worker started: their
        # host-clock latencies calibrate the audit of every timed call.
        return CallContext(seed=self.seed, settings=BenchSettings.of(self.options), reference=self.reference,
                           peaks=self.result.environment.get("peaks") or self.peaks,
                           free_gpu_memory=self.stop_worker_for_memory)

    def bench_context(self) -> BenchContext:
        """What the benchmark stage reads from this run, and the callbacks through which it acts on it."""
        return BenchContext(spec=self.spec, device=self.device, environment=self.result.environment,
                            calls=self.call_context(), peaks=self.peaks, baseline=self.baseline,
                            status=self.events.status, own_pids=self.own_pids, solution_worker=self.started_worker,
                            stop_solution_worker=self.stop_worker, release_baseline=self.release_baseline,
                            new_worker=self.new_worker)

    def record_benchmarks(self, outcome: BenchOutcome) -> None:
        """The benchmark stage's outcome into this run: the typed entries stay here (for the verdict and
        the message), their JSON shape goes into ``result.benchmarks``, which the reports read."""
        result = self.result
        result.environment["peaks"] = outcome.peaks
        result.phases_s.update(outcome.phases_s)
        result.notes.extend(outcome.notes)
        self.timings = list(outcome.entries)
        result.benchmarks = [entry.to_dict() for entry in self.timings]

    def benchmark_cases(self) -> list[Case]:
        """The cases to time: the spec's benchmarks (ShippedRunner builds its performance test)."""
        return benchmark_cases(self.spec)

    def benchmark_failures(self) -> list[CaseResult]:
        return [entry.failure() for entry in self.timings if not entry.accepted]

    def summary_message(self) -> str:
        if self.result.verdict == Verdict.ACCEPTED:
            ran = sum(1 for t in self.result.tests if t.verdict == Verdict.ACCEPTED)
            return f"all {ran} tests passed"
        first = next((t for t in self.result.tests + self.benchmark_failures()
                      if t.verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED)), None)
        if first is None:
            return self.result.message
        sizes = f" ({describe(first.params)})" if first.params and first.name != describe(first.params) else ""  # none: no scalars (LeetGPU), or named by them (--sizes)
        return f"{first.verdict.value} on {first.name}{sizes}: {headline(first.message)}"


def _is_time(value) -> bool:
    """A call time from the worker: a finite number of ms, >= 0 (a string or a 400-digit int crashed reports)."""
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value < 1e9


def judge_undumpable() -> bool:
    """Whether this process is non-dumpable (the CLI makes it so: worker/sandbox.set_dumpable)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE
    except (OSError, AttributeError):
        return False


def _verdict_of(header: dict) -> Verdict:
    """The failure verdict a worker reported; anything unexpected is a runtime error."""
    try:
        verdict = Verdict(header.get("verdict"))
    except ValueError:
        return Verdict.RUNTIME_ERROR
    reportable = verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED, Verdict.NO_SUBMISSION)
    return verdict if reportable else Verdict.RUNTIME_ERROR


def cpu_caps_note(spec: Spec, cpu_elements: int | None) -> str:
    """``CPU mode (Triton interpreter): sizes capped at rows=48, cols=48 (the spec allows rows=8192, ...)...``"""
    limits = limits_for(spec, True, cpu_elements)
    caps = describe({name: high for name, (_, high) in limits.items()})
    largest = case_elements(spec, {name: high for name, (_, high) in limits.items()})
    capped = [name for name, (_, high) in limits.items() if high < spec.sizes[name][1]]
    why = (f"--cpu-elements {cpu_elements}" if cpu_elements is not None else "the spec's interpret.max")
    more = (f" (by {why}; the spec allows {describe({n: spec.sizes[n][1] for n in capped})}; the largest test "
            f"holds {largest:,} tensor elements, and --cpu-elements N scales the caps to tests of N)") if capped else ""
    return (f"CPU mode (Triton interpreter): sizes capped at {caps}{more}; times are interpreter wall times, "
            "not GPU times")


def skipped_note(spec: Spec, skipped: list[Case]) -> str:
    """Which explicit sizes the CPU-mode caps left out, and the exact option that runs them."""
    sized = sorted(((case_elements(spec, c.params), c) for c in skipped), key=lambda pair: pair[0])
    listed = "; ".join(f"{c.name} ({c.label()}: {n:,} elements)" for n, c in sized[:4])
    run = (f"--cpu-elements {sized[0][0]} runs it" if len(sized) == 1 else
           f"--cpu-elements {sized[0][0]} runs the smallest, --cpu-elements {sized[-1][0]} all of them")
    return (f"{len(skipped)} explicit test size(s) above the CPU-mode caps were not run: {listed}"
            f"{' ...' if len(sized) > 4 else ''}; {run} (the interpreter takes longer with every element)")


def _launched_own_kernel(header: dict) -> bool:
    """Whether a call's reply says it launched a kernel of the solution's own (worker/launches.py)."""
    count = header.get("own_launches")
    return type(count) is int and count > 0

