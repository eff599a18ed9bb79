"""Judging a KernelBench problem (docs/kernelbench.md): five correctness trials on inputs the
problem's own ``get_inputs`` draws from independent seeds, then the benchmark stage.

The judge draws each call's inputs here with the problem's get_inputs under the call's seed and places them in
the memory it shares with the solution's process, which calls the solution's ``ModelNew`` on them
(judge/worker/kernelbench_model.py); after the call the judge draws them again, runs the
problem's ``Model`` (built under the same seed, so with the same weights) and compares:
inputs bit for bit, outputs with KernelBench's tolerance for their dtype.  On top of
KernelBench's checks: every verified timed call too, and an output that stays bit-identical
while the reference's changes with its inputs (a constant, or a result kept from another
call) is a wrong answer.

The reference runs in this process and only after the solution's call has returned: no
memory of the solution's process ever holds the answer before its own call computed it, so
the "150x" of a kernel that read the reference's freed output (Sakana's AI CUDA Engineer)
cannot happen here; the reference's outputs are zeroed once compared, all the same.
"""

from __future__ import annotations

import copy
import hashlib
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from judge.challenge.cases import Case, call_seed
from judge.challenge.exact_math import exact_math
from judge.challenge.kernelbench import OWN_TRIALS, TRIALS, KernelBenchError, sized, with_signature
from judge.challenge.kernelbench_format import uses_load_inline
from judge.challenge.kernelbench_inputs import describe_distribution
from judge.challenge.kernelbench_problem import ProblemError, seeded
from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET
from judge.challenge.seeds import case_seed
from judge.challenge.spec_model import ReferenceError_, Tensor, Tolerance
from judge.challenge.tensors import TORCH_DTYPES, poison_
from judge.judging.checks import Mismatch, compare_input, cut_input, precision_explains
from judge.judging.kernelbench_checks import CHUNK_ELEMENTS, ConstantOutput, FallbackRan, as_accurate, \
    compare_chunked, equal_input, judge_output, largest_magnitude
from judge.judging.kernelbench_verdict import fired_rules, is_kernelbench_trial, kernelbench_check, \
    kernelbench_state, rules_notes, verdicts_note
from judge.judging.reward_hacks import Finding, defines_triton_kernel, rule_note, rule_of_message, static_findings
from judge.judging.reference import within_memory
from judge.judging.runner import Runner
from judge.judging.verdict import CaseResult, Verdict
from judge.worker.arguments import CallArguments
from judge.worker.kernelbench_model import forward_seed

__all__ = ["KernelBenchRunner", "KernelBenchReference", "ConstantOutput", "compare_chunked", "CHUNK_ELEMENTS"]

WEIGHTS_HINT = ("Model has weights, drawn under the run's seed as KernelBench draws them: ModelNew gets the same "
                "values only where its constructor makes the same parameters (same shapes) in the same order")


@dataclass
class _Seen:
    label: str
    expected: dict = field(default_factory=dict)  # name -> digest
    got: dict = field(default_factory=dict)


def digest(t: torch.Tensor) -> tuple:
    """A fingerprint of a tensor's bytes, on its device: shape, and sums of its 32-bit words (all, every second,
    every third) and of its tail bytes; equal bytes give equal fingerprints."""
    raw = t.detach().contiguous().reshape(-1).view(torch.uint8)
    cut = 4 * (raw.numel() // 4)
    words = raw[:cut].view(torch.int32)
    sums = torch.stack([words.sum(dtype=torch.int64), words[::2].sum(dtype=torch.int64),
                        words[::3].sum(dtype=torch.int64), raw[cut:].sum(dtype=torch.int64)])
    return (tuple(t.shape), str(t.dtype), *sums.tolist())


class KernelBenchReference:
    """The problem's Model and the checks of every call, on the judge's device.  ``params`` (the size constants,
    for the labels) is accepted and unused: the problem's sizes are the spec's."""

    def __init__(self, spec, device: str):
        self.spec, self.device = spec, device
        try:
            self.problem = spec.problem()
            self.model = self.problem.reference_model(spec.init_seed, device)
        except (ProblemError, KernelBenchError) as exc:
            raise ReferenceError_(str(exc)) from None
        self.seen: list[_Seen] = []
        self.last_kernelbench: bool | None = None  # the last check: whether KernelBench's own check passed it
        self.last_inapplicable: str | None = None  # the last check: why its trial does not apply to the problem
        self.model64 = None  # the model in float64, made when a check first needs the float64 answer
        self.weighted = isinstance(self.model, torch.nn.Module) and any(True for _ in self.model.parameters())

    def call_arguments(self, params: dict, seed: int, case=None) -> CallArguments:
        """A call's arguments: the problem's inputs drawn from ``seed`` by its own get_inputs (the draw ``check``
        makes again), the outputs' slots poisoned (forward's results are copied into them), and the seed torch
        holds when forward runs (``forward_seed``: randoms a forward draws are the reference's too)."""
        try:
            inputs = self.problem.inputs(seed, self.device)
        except ProblemError as exc:
            raise ReferenceError_(str(exc)) from None
        values, drawn = [], iter(inputs)
        for p in self.spec.parameters:
            if getattr(p, "role", "in") == "out":
                values.append(poison_(torch.empty(tuple(p.shape), dtype=TORCH_DTYPES[p.dtype], device=self.device)))
            else:
                value = next(drawn)
                values.append(value.detach() if isinstance(value, torch.Tensor) else value)
        return CallArguments(values, extra={"forward_seed": forward_seed(seed)})

    def check(self, params: dict, seed: int, got: dict[str, torch.Tensor]) -> list[Mismatch]:
        """Every tensor in ``got`` against the judge's own values for ``seed`` (``within_memory``)."""
        return within_memory(self._check, seed, got)

    def expected(self, inputs: list, seed: int, model=None) -> list[torch.Tensor]:
        """The reference's outputs on ``inputs``: forward under the seed the worker's forward saw."""
        cuda = [torch.device(self.device).index or 0] if str(self.device).startswith("cuda") else []
        try:
            with torch.no_grad(), exact_math(), seeded(forward_seed(seed), cuda):  # no TF32 (docs/accuracy.md)
                result = (model or self.model)(*inputs)
        except BaseException as exc:  # noqa: BLE001 - the problem's bug, reported as such
            from judge.challenge.kernelbench_problem import _stop_passes

            _stop_passes(exc)
            raise ReferenceError_(f"Model.forward of {self.spec.source} failed: {type(exc).__name__}: {exc}") from exc
        return list(result) if isinstance(result, (tuple, list)) else [result]

    def _check(self, seed: int, got: dict[str, torch.Tensor]) -> list[Mismatch]:
        try:
            inputs = self.problem.inputs(seed, self.device)
        except ProblemError as exc:
            raise ReferenceError_(str(exc)) from None
        distribution = self.problem.distribution(seed)
        self.last_kernelbench, self.last_inapplicable = None, None
        results, tensors = [], [p for p in self.spec.parameters if isinstance(p, Tensor)]
        named = {}
        for p, value in zip([p for p in self.spec.parameters if getattr(p, "role", "in") == "in"], inputs):
            named[p.name] = value
            if isinstance(p, Tensor) and p.name in got:  # a test's reply; a timed call sends outputs only
                results.append(compare_input(p.name, got[p.name].to(self.device), value))
        expected = self.expected(inputs, seed)
        if distribution is not None and not all(_finite(ref) for ref in expected):
            self.last_inapplicable = (f"the reference is not finite on {describe_distribution(distribution)}: this "
                                      "trial does not apply to the problem")
            for ref in expected:
                ref.zero_()
            return []
        seen, kernelbench = _Seen("a timed call"), []
        truth = self.truth_of(inputs, seed)
        for index, (p, ref) in enumerate(zip([p for p in tensors if p.role == "out"], expected)):
            returned = got[p.name].to(self.device)
            kind, tol = _tolerance(p.dtype)
            found = judge_output(p.name, returned, ref, Tolerance(kind, tol, tol), own_trial=distribution is not None,
                                 truth=lambda index=index: truth(index))
            kernelbench.append(found[0].ok)
            same = equal_input(returned, named) if not found[0].ok and distribution is not None else None
            if same:
                found[0].notes.append(f"it equals input '{same}' unchanged")
            seen.expected[p.name], seen.got[p.name] = digest(ref), digest(returned)
            earlier = self._earlier(p.name, seen) if all(m.ok for m in found) else None  # what the tolerance let through
            if earlier is not None and not as_accurate(returned, ref, truth(index)):
                found.append(ConstantOutput(p.name, False, total=1, bad=1, earlier=earlier))
            results += found
            ref.zero_()  # scrubbed before it is freed: no memory of this process holds an answer afterwards
        self.seen.append(seen)
        self.last_kernelbench = all(kernelbench) if distribution is None else None
        return results

    def _earlier(self, name: str, now: _Seen) -> str | None:
        """The label of an earlier call whose output ``name`` was bit-identical while the reference's differed."""
        for earlier in self.seen:
            if earlier.got.get(name) == now.got[name] and earlier.expected.get(name) != now.expected[name]:
                return earlier.label
        return None

    def truth_of(self, inputs: list, seed: int):
        """``truth(i)``: output ``i`` of the problem's Model run in float64 on these inputs in float64, computed
        once, when first asked (kernelbench_checks.as_accurate); None where the model cannot run in float64."""
        computed: list = []

        def truth(index: int):
            if not computed:
                computed.append(self._float64(inputs, seed))
            outputs = computed[0]
            return outputs[index] if outputs is not None and index < len(outputs) else None

        return truth

    def _float64(self, inputs: list, seed: int) -> list | None:
        try:
            if self.model64 is None:
                self.model64 = copy.deepcopy(self.model).double() if isinstance(self.model, torch.nn.Module) \
                    else self.model
            wide = [v.double() if isinstance(v, torch.Tensor) and v.dtype.is_floating_point else v for v in inputs]
            return self.expected(wide, seed, self.model64)
        except Exception:  # noqa: BLE001 - a model that cannot run in float64: no truth to compare with
            return None

    def label(self, label: str) -> None:
        """Name the last check (``trial-2``) for later messages."""
        if self.seen:
            self.seen[-1].label = label

    def precision_of(self, params: dict, seed: int, got: dict, names: list[str]) -> str | None:
        """The narrower precision the failed outputs match: Model on the float32 inputs cut (checks.py)."""
        from judge.judging.hints import matmul_like

        inputs = self.problem.inputs(seed, self.device)
        outputs = [p.name for p in self.spec.parameters if getattr(p, "role", "") == "out"]
        exact = dict(zip(outputs, self.expected(inputs, seed)))

        def on_cut_inputs(cut):
            try:
                return dict(zip(outputs, self.expected([cut_input(v, "in", cut) for v in inputs], seed)))
            except Exception:  # noqa: BLE001 - only a hint
                return None

        return precision_explains(got, exact, names, on_cut_inputs, matmul_like(self.problem.source))


def _finite(t: torch.Tensor) -> bool:
    return largest_magnitude(t)[1]


def _tolerance(dtype: str) -> tuple[str, float]:
    from judge.challenge.kernelbench_format import tolerance_for

    return tolerance_for(dtype)


class KernelBenchRunner(Runner):
    """``Runner`` for a KernelBench problem file (``spec`` is a ``KernelBenchSpec``)."""

    def prepare(self) -> list[Case]:
        self.events.status("reading the KernelBench problem")
        budget = (self.options.cpu_elements or CPU_ELEMENT_BUDGET) if self.interpret else None
        draws = {call_seed(self.seed, name, 0): name for name in OWN_TRIALS}  # the judge's own trials' seeds
        spec = replace(sized(self.spec, budget), init_seed=case_seed(self.seed, "model"), draws=draws)
        if not spec.outputs:  # its forward does not run on the meta device: sized by a real call here
            spec = with_signature(spec, spec.problem(), self.device)
        self.spec = spec
        self.result.challenge = spec.name
        if self.interpret:
            self.result.notes.append(cpu_note(spec, budget, self.options.cpu_elements is not None))
        self.note_rules()
        self.findings = self.read_findings()
        self.reference = KernelBenchReference(spec, self.device)
        return [Case(t.name, "functional", dict(t.params)) for t in spec.tests]

    def read_findings(self) -> list[Finding]:
        """The source rules' findings in the solution (reward_hacks.py); the fallback's only where its calls can
        be seen to launch the solution's kernels (Triton's: load_inline's are not counted)."""
        try:
            text = Path(self.solution).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        findings = static_findings(text)
        if not defines_triton_kernel(text) or uses_load_inline(text):
            findings = [f for f in findings if f.rule != "fallback-to-reference"]
        for rule in ("side-stream", "timing-patch", "thread-injection"):  # noted: they cannot fool the judge
            found = [f.text() for f in findings if f.rule == rule]
            if found:
                self.result.notes.append(rule_note(rule, "; ".join(found)))
        return findings

    def benchmark_cases(self) -> list[Case]:
        return [Case(b.name, "benchmark", dict(b.params)) for b in self.spec.benchmarks]

    def check_reply(self, case: Case, seed: int, header: dict, got: dict) -> list:
        problems = super().check_reply(case, seed, header, got)
        self.reference.label(case.name)
        fallback = next((f for f in self.findings if f.rule == "fallback-to-reference"), None)
        if fallback is not None and header.get("own_launches") == 0:
            problems.append(FallbackRan("forward", False, total=1, bad=1, where=fallback.text()))
        if self.reference.weighted:
            for m in problems:
                if not m.ok and not m.modified_input and not getattr(m, "rule", "") and WEIGHTS_HINT not in m.notes:
                    m.notes.append(WEIGHTS_HINT)
        return problems

    def run_case(self, case: Case, call_index: int = 0) -> CaseResult:
        """One call, then what it means here: the inputs it was drawn from, KernelBench's own check of it (its
        trials), the rules its failure is an instance of; a trial of the judge's whose reference is not finite
        is skipped, and a call the fallback answered is an invalid submission."""
        self.reference.last_kernelbench = self.reference.last_inapplicable = None
        outcome = super().run_case(case, call_index)
        distribution = self.reference.problem.distribution(call_seed(self.seed, case.name, call_index))
        outcome.details["inputs"] = distribution or "kernelbench"
        if distribution is not None and self.reference.last_inapplicable:
            return CaseResult(case.name, case.kind, case.params, Verdict.SKIPPED, self.reference.last_inapplicable,
                              outcome.time_ms, details={"inputs": distribution})
        if distribution is not None and outcome.verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED):
            outcome.message = f"on {describe_distribution(distribution)}: {outcome.message}"
        rules = [m.rule for m in self.last_problems if getattr(m, "rule", "")]
        rules += [r for r in [rule_of_message(outcome.message)] if r and outcome.verdict != Verdict.ACCEPTED]
        if rules:
            outcome.details["rules"] = list(dict.fromkeys(rules))
            outcome.message = f"[{', '.join(outcome.details['rules'])}] {outcome.message}"
        if "fallback-to-reference" in rules:
            outcome.verdict = Verdict.INVALID_SUBMISSION
        if is_kernelbench_trial(case.name):
            state = kernelbench_state(outcome, self.reference.last_kernelbench)
            outcome.details["kernelbench_check"] = {True: "pass", False: "fail", None: "unknown"}[state]
        return outcome

    def run(self):
        """The run, then KernelBench's verdict beside the judge's and the rules that fired (kernelbench_verdict.py)."""
        result = super().run()
        if result.tests:
            check = kernelbench_check(result.tests, TRIALS)
            result.kernelbench_check = check
            result.rules = fired_rules(result.tests)
            result.notes.append(verdicts_note(check, result.verdict, result.message))
            result.notes.extend(rules_notes(result.rules))
        return result

    def run_benchmarks(self) -> None:
        """The benchmark stage (the solution, then the problem's Model eager as the torch baseline); with
        --torch-compile, then its Model under torch.compile, timed the same way."""
        super().run_benchmarks()
        if self.interpret or not self.options.benchmark or not self.options.torch_compile:
            return
        if self.timings and all(entry.accepted for entry in self.timings):
            self.events.status("timing the torch.compile baseline")
            self.result.notes.extend(time_compile_baseline(self))

    def diagnose_uninitialised(self, case: Case, outcome) -> None:
        """Nothing to diagnose: forward returns its outputs, none starts poisoned."""

    def search_smaller(self, case: Case, outcome) -> None:
        """No search: a problem's sizes are its file's constants."""

    def sized_case(self, sizes: str) -> Case:
        """None to make: a problem's sizes are its file's constants."""
        from judge.challenge.cases import CaseSelectionError

        raise CaseSelectionError(f"--sizes {sizes}: a KernelBench problem's sizes are its file's constants; "
                                 "--case NAME judges one of its trials alone (the run lists their names)")

    def start_worker(self) -> bool:
        why = self.cannot_build()
        if why:
            self.result.verdict, self.result.message = Verdict.INVALID_SUBMISSION, why
            return False
        return super().start_worker()

    def cannot_build(self) -> str | None:
        """Why a solution that builds CUDA with load_inline cannot be judged here (CPU mode, no nvcc), or None."""
        try:
            text = Path(self.solution).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if not uses_load_inline(text):
            return None
        if self.interpret:
            return (f"{Path(self.solution).name} builds CUDA C++ with torch.utils.cpp_extension.load_inline, which "
                    "needs a GPU and nvcc; CPU mode (Triton's interpreter) cannot run it. Judge it on a machine "
                    "with a CUDA GPU, or check a Triton or PyTorch version of it here")
        from judge.worker.cuda_build import NVCC_HINT, find_nvcc

        if find_nvcc() is None:
            return f"{Path(self.solution).name} builds CUDA C++ with load_inline, and no nvcc was found: {NVCC_HINT}"
        return None

    def take_early_worker(self):
        early = super().take_early_worker()
        if early is not None:
            early.spec = self.spec  # sized and seeded for this run (prepare), after the early spawn
            self.prepare_worker(early)
        return early

    def new_worker(self, solution: str | None = None, readable: tuple[str, ...] = ()):
        worker = super().new_worker(solution, readable)
        self.prepare_worker(worker)
        return worker

    def prepare_worker(self, worker) -> None:
        """load_inline's build folder (writable to the worker) in CPU and GPU mode alike (a C++-only extension
        builds with ninja and g++ anywhere), and on a GPU CUDA's toolkit (readable)."""
        from judge.worker.cuda_build import find_nvcc, toolkit_root

        folder = extensions_folder(worker.solution, self.options.untrusted)
        nvcc = None if self.interpret else find_nvcc()
        toolkit = toolkit_root(nvcc) if nvcc else None
        worker.writable = (folder,)
        worker.solution_extra_env = {"TORCH_EXTENSIONS_DIR": folder, **({"CUDA_HOME": toolkit} if toolkit else {}),
                                     "TORCHINDUCTOR_COMPILE_THREADS": "1"}
        # The problem file, whose text the worker has: torch.compile hashes the file of the code it traces (dynamo's
        # profile cache), and the torch.compile baseline traces the problem's Model (PermissionError before).
        worker.readable = (*worker.readable, str(Path(self.spec.source).resolve()), *((toolkit,) if toolkit else ()))


def extensions_folder(solution: str, untrusted: bool) -> str:
    """Where load_inline builds: per solution source in the judge's cache (a second run loads the build), or
    for ``judge grade`` (untrusted) a fresh folder of the worker's own, so no submission's build reaches
    another's."""
    from judge.base.paths import cache_dir

    root = cache_dir() / "torch_extensions"
    root.mkdir(parents=True, exist_ok=True)
    if untrusted:
        return tempfile.mkdtemp(prefix="grade-", dir=root)
    digest_ = hashlib.sha256(Path(solution).read_bytes()).hexdigest()[:20]
    folder = root / digest_
    folder.mkdir(exist_ok=True)
    os.chmod(folder, 0o700)
    return str(folder)


def cpu_note(spec, budget: int, asked: bool) -> str:
    """CPU mode's note: the size constants it shrank (KernelBench's are a GPU's) and the option that moves them."""
    if not spec.shrunk_from:
        return "CPU mode (Triton interpreter): the problem's sizes as written; times are interpreter wall times"
    changed = ", ".join(f"{name} {spec.shrunk_from[name]} -> {value}" for name, value in spec.sizes_used.items())
    why = f"--cpu-elements {budget}" if asked else f"the CPU-mode budget of {budget:,} tensor elements a call"
    return (f"CPU mode (Triton interpreter): KernelBench's sizes are a GPU's, so its size constants were halved to "
            f"fit {why}: {changed} (--cpu-elements N to change; on a GPU they are as written); times are "
            "interpreter wall times")


def time_compile_baseline(runner: KernelBenchRunner) -> list[str]:
    """The problem's Model under torch.compile (inductor, default mode), timed like the eager baseline in a worker
    of its own (cached per device, like it), beside each benchmark entry: ``torch_compile_median_ms``,
    ``torch_compile_ci_ms``, ``speedup_vs_torch_compile``.  Returns the run's notes."""
    from judge.challenge.kernelbench import baseline_source
    from judge.judging import benchmark_stage as stage
    from judge.timing.peaks import baseline_key, cached_baseline, store_baseline

    spec = replace(runner.spec, baseline_code=baseline_source(runner.spec.text, runner.spec.source, "compile"))
    ctx = replace(runner.bench_context(), spec=spec, baseline=None)
    budget, notes, baseline = ctx.settings.budget_s, [], None
    try:
        for entry, case in zip(runner.result.benchmarks, runner.benchmark_cases()):
            key = baseline_key(runner.result.environment, spec, case.params, budget)
            summary = None if ctx.settings.remeasure_peaks else cached_baseline(key)
            if summary is None:
                if baseline is None:
                    baseline = stage.BaselineWorker(ctx)
                    baseline.ready(ctx.settings.compile_timeout)
                if baseline.problem is not None:
                    return [f"the torch.compile baseline could not be loaded: {str(baseline.problem).splitlines()[0]}"]
                try:
                    done = stage.timing_summary(stage.bench_case(ctx.calls, baseline.worker, case, check=False))
                except stage.BenchFailure as exc:
                    return [f"the torch.compile baseline failed: {exc.message.splitlines()[0]}"]
                summary = {k: done[k] for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls")}
                store_baseline(key, summary)
            entry.update(torch_compile_median_ms=summary["median_ms"],
                         torch_compile_ci_ms=[summary["ci_low_ms"], summary["ci_high_ms"]],
                         speedup_vs_torch_compile=summary["median_ms"] / entry["median_ms"])
            notes.append(f"{case.name}: torch.compile (inductor, default mode) {summary['median_ms']:.4g} ms; "
                         f"the solution is {entry['speedup_vs_torch_compile']:.2f}x as fast")
    finally:
        if baseline is not None:
            baseline.stop()
    return notes
