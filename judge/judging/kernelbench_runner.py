"""Judging a KernelBench problem (docs/kernelbench.md): five correctness trials on inputs the
problem's own ``get_inputs`` draws from independent seeds, then the benchmark stage.

The worker draws each call's inputs from its seed and calls the solution's ``ModelNew``
(judge/worker/kernelbench_model.py); the judge draws the same inputs here, runs the
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

import hashlib
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from judge.challenge.cases import Case
from judge.challenge.exact_math import exact_math
from judge.challenge.kernelbench import KernelBenchError, sized, with_signature
from judge.challenge.kernelbench_format import uses_load_inline
from judge.challenge.kernelbench_problem import ProblemError, seeded
from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET
from judge.challenge.seeds import case_seed
from judge.challenge.spec_model import ReferenceError_, Tensor, Tolerance
from judge.challenge.tensors import TORCH_DTYPES
from judge.judging.checks import Mismatch, compare_input, compare_output, cut_input, precision_explains
from judge.judging.reference import decode_reply, within_memory
from judge.judging.runner import Runner
from judge.judging.verdict import Verdict
from judge.worker.kernelbench_model import forward_seed

__all__ = ["KernelBenchRunner", "KernelBenchReference", "ConstantOutput", "compare_chunked", "CHUNK_ELEMENTS"]

WEIGHTS_HINT = ("Model has weights, drawn under the run's seed as KernelBench draws them: ModelNew gets the same "
                "values only where its constructor makes the same parameters (same shapes) in the same order")
# Outputs are compared this many elements at a time: a 1.6 G-element output (level 1's ReLU) widened to float64
# whole would need 13 GB per copy on the judge's GPU.
CHUNK_ELEMENTS = 1 << 26


@dataclass
class ConstantOutput(Mismatch):
    """An output bit-identical to an earlier call's while the reference's differs: it ignores its inputs."""

    earlier: str = ""

    def message(self) -> str:
        return (f"'{self.name}' is bit-identical to {self.earlier}'s, while the reference's output changed with the "
                "inputs: the result does not depend on this call's inputs (a constant, or one kept from an earlier "
                "call)")

    def cause(self) -> str:
        return f"'{self.name}': the same for other inputs"


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


def compare_chunked(name: str, got: torch.Tensor, ref: torch.Tensor, tol: Tolerance,
                    chunk: int = CHUNK_ELEMENTS) -> Mismatch:
    """``checks.compare_output`` over ``chunk`` elements at a time, one result for the whole tensor."""
    if tuple(got.shape) != tuple(ref.shape) or got.numel() <= chunk:
        return compare_output(name, got, ref, tol)
    flat_got, flat_ref = got.reshape(-1), ref.reshape(-1)
    total = Mismatch(name, True, total=got.numel())
    total.max_abs_err = total.max_rel_err = -1.0  # below any error: the chunks' finite maxima replace it
    for start in range(0, got.numel(), chunk):
        part = compare_output(name, flat_got[start:start + chunk], flat_ref[start:start + chunk], tol)
        if part.ok:
            continue
        if total.ok:  # the first bad element, as an index of the whole tensor
            flat = start + part.first_bad_index[0]
            total.first_bad_index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(got.shape)))
            total.expected, total.got = part.expected, part.got
        total.ok = False
        total.bad += part.bad
        if math.isfinite(part.max_abs_err):  # a chunk of NaN alone says inf: the whole's maxima are the finite ones
            total.max_abs_err = max(total.max_abs_err, part.max_abs_err)
            total.max_rel_err = max(total.max_rel_err, part.max_rel_err)
    if total.max_abs_err < 0:
        total.max_abs_err = total.max_rel_err = float("inf") if not total.ok else 0.0
    return total


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
        self.weighted = isinstance(self.model, torch.nn.Module) and any(True for _ in self.model.parameters())

    def tensors(self, outputs_only: bool) -> list[tuple[str, str, tuple]]:
        """(name, dtype, shape) of each tensor a reply holds, in order: the inputs (a call's), then the outputs."""
        return [(p.name, p.dtype, tuple(p.shape)) for p in self.spec.parameters
                if isinstance(p, Tensor) and not (outputs_only and p.role == "in")]

    def reply_sizes(self, params: dict, outputs_only: bool = False) -> list[int]:
        return [math.prod(shape) * TORCH_DTYPES[dtype].itemsize for _, dtype, shape in self.tensors(outputs_only)]

    def decode(self, params: dict, header: dict, blobs: list, outputs_only: bool) -> dict[str, torch.Tensor]:
        return decode_reply(self.tensors(outputs_only), header, blobs)

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
        results, tensors = [], [p for p in self.spec.parameters if isinstance(p, Tensor)]
        for p, value in zip([p for p in self.spec.parameters if getattr(p, "role", "in") == "in"], inputs):
            if isinstance(p, Tensor) and p.name in got:  # a test's reply; a timed call sends outputs only
                results.append(compare_input(p.name, got[p.name].to(self.device), value))
        expected = self.expected(inputs, seed)
        seen = _Seen("a timed call")
        passed = set()
        for p, ref in zip([p for p in tensors if p.role == "out"], expected):
            returned = got[p.name].to(self.device)
            kind, tol = _tolerance(p.dtype)
            results.append(compare_chunked(p.name, returned, ref, Tolerance(kind, tol, tol)))
            passed.update([p.name] if results[-1].ok else [])
            seen.expected[p.name], seen.got[p.name] = digest(ref), digest(returned)
            ref.zero_()  # scrubbed before it is freed: no memory of this process holds an answer afterwards
        results += [m for m in self._constant(seen) if m.name in passed]  # what the tolerance let through
        self.seen.append(seen)
        return results

    def _constant(self, now: _Seen) -> list[Mismatch]:
        """An output bit-identical to an earlier call's while the reference's differs (ConstantOutput)."""
        found = []
        for name, got in now.got.items():
            for earlier in self.seen:
                if earlier.got.get(name) == got and earlier.expected.get(name) != now.expected[name]:
                    found.append(ConstantOutput(name, False, total=1, bad=1, earlier=earlier.label))
                    break
        return found

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


def _tolerance(dtype: str) -> tuple[str, float]:
    from judge.challenge.kernelbench_format import tolerance_for

    return tolerance_for(dtype)


class KernelBenchRunner(Runner):
    """``Runner`` for a KernelBench problem file (``spec`` is a ``KernelBenchSpec``)."""

    def prepare(self) -> list[Case]:
        self.events.status("reading the KernelBench problem")
        budget = (self.options.cpu_elements or CPU_ELEMENT_BUDGET) if self.interpret else None
        spec = replace(sized(self.spec, budget), init_seed=case_seed(self.seed, "model"))
        if not spec.outputs:  # its forward does not run on the meta device: sized by a real call here
            spec = with_signature(spec, spec.problem(), self.device)
        self.spec = spec
        self.result.challenge = spec.name
        if self.interpret:
            self.result.notes.append(cpu_note(spec, budget, self.options.cpu_elements is not None))
        self.note_rules()
        self.reference = KernelBenchReference(spec, self.device)
        return [Case(t.name, "functional", dict(t.params)) for t in spec.tests]

    def benchmark_cases(self) -> list[Case]:
        return [Case(b.name, "benchmark", dict(b.params)) for b in self.spec.benchmarks]

    def check_reply(self, case: Case, seed: int, header: dict, blobs: list) -> list:
        problems = super().check_reply(case, seed, header, blobs)
        self.reference.label(case.name)
        if self.reference.weighted:
            for m in problems:
                if not m.ok and not m.modified_input and not isinstance(m, ConstantOutput) and WEIGHTS_HINT not in m.notes:
                    m.notes.append(WEIGHTS_HINT)
        return problems

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
