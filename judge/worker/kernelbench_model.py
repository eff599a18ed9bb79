"""The worker's side of a KernelBench problem: the solution's ``ModelNew``, built with the
problem's init inputs under the judge's seed, called as ``solve()`` on the inputs the judge drew with the
problem's own ``get_inputs`` and placed in the memory both processes map (judge/worker/arguments.py); and what
``forward`` returns checked and copied into the outputs' slots, which the judge reads (docs/kernelbench.md).

``forward`` returns its outputs instead of writing into tensors the judge allocated, so after the call's end
event and outside its timed region (inside the judge's own clock), ``place_results`` checks what came back
(plain tensors, the reference's count, dtypes and shapes, on the judged device, sharing no memory with an
input or with what the previous call returned, which is held so that the allocator cannot hand its memory out
again) and copies it into the output slots.  These checks give an honest mistake its message; the judge's own
checks of the slots decide (a tampered worker that skipped them only changes what the judge reads there).

torch is seeded before forward with the seed the judge derived for the call (``forward_seed``): randoms a
forward draws (level 3's LSTMs draw their h0) are the reference's too, where ModelNew draws as Model does.
"""

from __future__ import annotations

import torch

from judge.challenge.kernelbench_problem import Problem
from judge.challenge.spec_model import Tensor
from judge.challenge.tensors import TORCH_DTYPES
from judge.worker.loader import SubmissionError, format_error, load_module

__all__ = ["KernelBenchCall", "WrongReturn", "load", "forward_seed"]

_PLAIN = torch.Tensor
_copy = torch.Tensor.copy_
_manual_seed = torch.manual_seed  # bound before the solution loads: torch._dynamo wraps it later
BASELINE_MARK = "KERNELBENCH_BASELINE"  # the judge's torch baseline file (kernelbench.baseline_source)


class WrongReturn(Exception):
    """What forward() returned cannot be the answer (the message says why): a wrong answer."""

    verdict = "wrong_answer"


def forward_seed(seed: int) -> int:
    """The seed torch's generators hold when forward() is called: randoms a forward draws (level 3's LSTMs
    draw their h0) are the reference's too, where ModelNew draws as Model does."""
    return (int(seed) * 0x9E3779B97F4A7C15 + 1) % 2**63


class KernelBenchCall:
    """``solve`` for the session: the model's forward on a call's inputs, and its returned outputs."""

    def __init__(self, model, spec, problem: Problem, device: str):
        self.model, self.spec, self.problem, self.device = model, spec, problem, torch.device(device)
        self.inputs = [i for i, p in enumerate(spec.parameters) if getattr(p, "role", "in") == "in"]
        self.outputs = [(i, p) for i, p in enumerate(spec.parameters) if getattr(p, "role", "") == "out"]
        self.result = None
        self.previous: list[torch.Tensor] = []  # held: its memory cannot be handed out again while it is

    def seed_forward(self, seed) -> None:
        """torch's generators seeded as the reference's are for this call's forward (``forward_seed``)."""
        if type(seed) is int:
            _manual_seed(seed)

    # -- the call -------------------------------------------------------------------------
    def __call__(self, *args):
        self.result = None
        self.result = self.model(*[args[i] for i in self.inputs])

    def place_results(self, args: list) -> None:
        """What forward() returned, checked, copied into the output slots of ``args`` (raises WrongReturn)."""
        if self.result is None and not self.outputs:
            return
        results = self._as_tensors(self.result)
        self.result = None
        inputs = [args[i] for i in self.inputs if isinstance(args[i], torch.Tensor)]
        for (index, p), value in zip(self.outputs, results):
            self._check(p, value, inputs)
            _copy(args[index], value)
        self.previous = results

    def _as_tensors(self, result) -> list[torch.Tensor]:
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(values) != len(self.outputs):
            raise WrongReturn(f"forward() returned {_what(result)}; the reference returns {len(self.outputs)} "
                              f"tensor{'s' if len(self.outputs) != 1 else ''}")
        for (_, p), value in zip(self.outputs, values):
            if type(value) is not _PLAIN:
                raise WrongReturn(f"forward() returned {_what(value)} as '{p.name}'; return a plain torch.Tensor "
                                  "(a subclass or a Parameter can run code when its values are read)")
        return values

    def _check(self, p: Tensor, value: torch.Tensor, inputs: list) -> None:
        shape, dtype = tuple(p.shape), TORCH_DTYPES[p.dtype]
        if tuple(value.shape) != shape:
            raise WrongReturn(f"Output shape mismatch: expected {list(shape)}, got {list(value.shape)} ('{p.name}')")
        if value.dtype != dtype:
            raise WrongReturn(f"'{p.name}' is {str(value.dtype).removeprefix('torch.')}; the reference's is "
                              f"{p.dtype} (a lower precision is no speed-up of the same answer)")
        if value.device != self.device and not (self.device.type == value.device.type == "cuda"
                                                and value.device.index in (None, self.device.index)):
            raise WrongReturn(f"'{p.name}' is on {value.device}; the inputs are on {self.device}")
        for other, what in [*((t, "an input") for t in inputs), *((t, "the previous call's output")
                                                                  for t in self.previous)]:
            if _numel(value) and _numel(other) and _overlap(value, other):
                raise WrongReturn(f"'{p.name}' shares memory with {what}: forward() must return a tensor of its "
                                  "own, computed in this call" + (" (an output kept and returned again is a "
                                                                   "cached result)" if "previous" in what else ""))


# torch's own methods, called through the class: an attribute forward() set on the tensor it returned (shadowing
# ``numel``, ``untyped_storage``) is never what runs (the red team's ran the answer's work there, after the clock).
_numel, _storage = torch.Tensor.numel, torch.Tensor.untyped_storage


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the storages of ``a`` and ``b`` share any byte (by address: a tensor made over another's
    pointer has a storage of its own)."""
    sa, sb = _storage(a), _storage(b)
    start_a, start_b = sa.data_ptr(), sb.data_ptr()
    return start_a < start_b + sb.nbytes() and start_b < start_a + sa.nbytes()


def _what(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__module__}.{type(value).__qualname__}" if not isinstance(value, torch.Tensor) \
        else f"a {type(value).__qualname__} (a subclass of torch.Tensor)" if type(value) is not _PLAIN else "a tensor"


def load(solution: str, spec, device: str) -> KernelBenchCall:
    """Import the solution (or take the judge's baseline: the problem's Model, or it under torch.compile), build
    its ModelNew under the run's seed as Model is built, and return the call; raises SubmissionError."""
    problem = spec.problem()
    call = KernelBenchCall(None, spec, problem, device)
    module = load_module(solution)
    mode = getattr(module, BASELINE_MARK, None)
    cls = problem.Model if mode in ("eager", "compile") else getattr(module, "ModelNew", None)
    if cls is None:
        raise SubmissionError(f"{solution.rsplit('/', 1)[-1]} defines no class ModelNew: a KernelBench solution "
                              "defines class ModelNew(nn.Module), built with Model's constructor arguments "
                              "(get_init_inputs()) and called like Model.forward")
    try:
        model = problem.build(cls, spec.init_seed, device)
    except BaseException as exc:  # noqa: BLE001 - the solution's constructor
        raise SubmissionError("ModelNew(*get_init_inputs()) failed:\n" + format_error(exc, solution)) from None
    if not callable(model):
        raise SubmissionError(f"ModelNew(*get_init_inputs()) is a {type(model).__name__}, which cannot be called")
    call.model = torch.compile(model) if mode == "compile" else model
    return call

