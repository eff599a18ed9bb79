"""The worker's side of a KernelBench problem: the solution's ``ModelNew``, built with the
problem's init inputs under the judge's seed, called as ``solve()``; each call's inputs
drawn by the problem's own ``get_inputs``; and what ``forward`` returns checked and handed
to the judge as the outputs (docs/kernelbench.md).

``forward`` returns its outputs instead of writing into tensors the judge allocated, so
the spec's ``out`` parameters are placeholders (empty tensors) until the call returns;
then, after the call's end event and outside its timed region, ``place_results`` checks
what came back (plain tensors, the reference's count, dtypes and shapes, on the judged
device, sharing no memory with an input or with what the previous call returned, which is
held so that the allocator cannot hand its memory out again) and puts it in those places,
where the session's digest, replies and checks read outputs.

The draw runs the problem's code after the solution loaded, so first the problem's own
functions are compared with what they were before the solution was imported (torch's
functions and the builtins: the session's DrawWindow, judge/worker/draw_window.py, after
every call): a solution that patched ``torch.rand`` or ``get_inputs`` (to see, or compute
from, the inputs while they are drawn, outside any timed region) is stopped.  Every tensor the
draw made is zeroed once copied into the guarded buffers: no memory torch frees holds the
values the inputs hide during the launch guard's spin (the red team's find for seeded
draws, judge/challenge/tensors.py).
"""

from __future__ import annotations


import torch
from torch.overrides import TorchFunctionMode

from judge.challenge.kernelbench_problem import Problem, ProblemError
from judge.challenge.spec_model import Tensor
from judge.challenge.tensors import TORCH_DTYPES, placed
from judge.worker.loader import SubmissionError, format_error, load_module

__all__ = ["KernelBenchCall", "WrongReturn", "TorchTampered", "load", "forward_seed"]

_PLAIN = torch.Tensor
_empty = torch.empty
_zero = torch.Tensor.zero_
_manual_seed = torch.manual_seed  # bound before the solution loads: torch._dynamo wraps it later (draw_window.py)
BASELINE_MARK = "KERNELBENCH_BASELINE"  # the judge's torch baseline file (kernelbench.baseline_source)


class WrongReturn(Exception):
    """What forward() returned cannot be the answer (the message says why): a wrong answer."""

    verdict = "wrong_answer"


class TorchTampered(Exception):
    """The solution changed torch's functions or the problem's own code that the draw runs."""

    verdict = "runtime_error"


def forward_seed(seed: int) -> int:
    """The seed torch's generators hold when forward() is called: randoms a forward draws (level 3's LSTMs
    draw their h0) are the reference's too, where ModelNew draws as Model does."""
    return (int(seed) * 0x9E3779B97F4A7C15 + 1) % 2**63


class _Made(TorchFunctionMode):
    """Every tensor a torch function returns while get_inputs runs (in this thread), to be zeroed after."""

    def __init__(self):
        super().__init__()
        self.made: dict[int, torch.Tensor] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for value in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(value, torch.Tensor):
                self.made[id(value)] = value
        return out


class _Untouched:
    """The problem's module as it was before the solution loaded; ``changed`` names what differs now and puts
    the originals back.  (torch's callables and the builtins: the session's DrawWindow, after every call.)"""

    def __init__(self, namespace: dict):
        self.namespace, self.saved = namespace, dict(namespace)
        self.code = {name: value.__code__ for name, value in namespace.items() if hasattr(value, "__code__")}

    def changed(self) -> list[str]:
        found = []
        for name, value in self.saved.items():
            if self.namespace.get(name) is not value:
                found.append(f"the problem's {name}")
                self.namespace[name] = value
            elif name in self.code and value.__code__ is not self.code[name]:
                found.append(f"the problem's {name}.__code__")
                value.__code__ = self.code[name]
        return found


class KernelBenchCall:
    """``solve`` for the session: the model's forward on a call's inputs; its draws and its returned outputs."""

    def __init__(self, model, spec, problem: Problem, device: str):
        self.model, self.spec, self.problem, self.device = model, spec, problem, torch.device(device)
        self.inputs = [i for i, p in enumerate(spec.parameters) if getattr(p, "role", "in") == "in"]
        self.outputs = [(i, p) for i, p in enumerate(spec.parameters) if getattr(p, "role", "") == "out"]
        self.returned = frozenset(i for i, _ in self.outputs)
        self.result = None
        self.previous: list[torch.Tensor] = []  # held: its memory cannot be handed out again while it is
        self.untouched: _Untouched | None = None

    def watch(self) -> None:
        """Record the problem's functions: called just before the solution is imported.  (torch's functions, the
        builtins, the collector and the signal handlers: the session's DrawWindow.)"""
        self.untouched = _Untouched(self.problem.namespace)

    # -- the call -------------------------------------------------------------------------
    def __call__(self, *args):
        self.result = None
        self.result = self.model(*[args[i] for i in self.inputs])

    def place_results(self, args: list) -> None:
        """What forward() returned, checked, into the outputs' places of ``args`` (raises WrongReturn)."""
        results = self._as_tensors(self.result)
        self.result = None
        inputs = [args[i] for i in self.inputs if isinstance(args[i], torch.Tensor)]
        for (index, p), value in zip(self.outputs, results):
            self._check(p, value, inputs)
            # Dense in its place: what the timed loop reads and writes of an output (its digest, the guard's poison
            # before a call on the same arguments) is the span from its first element for its size in bytes.
            args[index] = value if value.is_contiguous() else value.contiguous()
        self.previous = results

    def _as_tensors(self, result) -> list[torch.Tensor]:
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(values) != len(self.outputs):
            raise WrongReturn(f"forward() returned {_what(result)}; the reference returns {len(self.outputs)} "
                              f"tensor{'s' if len(self.outputs) != 1 else ''}")
        for (_, p), value in zip(self.outputs, values):
            if type(value) is not _PLAIN:
                raise WrongReturn(f"forward() returned {_what(value)} as '{p.name}'; return a plain torch.Tensor "
                                  "(a subclass or a Parameter can run code when the judge reads it)")
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
            if value.numel() and other.numel() and _overlap(value, other):
                raise WrongReturn(f"'{p.name}' shares memory with {what}: forward() must return a tensor of its "
                                  "own, computed in this call" + (" (an output kept and returned again is a "
                                                                   "cached result)" if "previous" in what else ""))

    # -- the inputs -----------------------------------------------------------------------
    def arguments(self, seed: int, alloc=None) -> list:
        """A call's arguments: the problem's inputs drawn from ``seed`` (in ``alloc``'s guarded buffers), empty
        placeholders for the outputs; every tensor the draw made zeroed; torch then seeded for forward().  The
        session closed the window before (judge/worker/draw_window.py): no code of the solution's runs from here
        until forward does."""
        changed = self.untouched.changed() if self.untouched is not None else []
        if changed:
            raise TorchTampered(f"the solution changed {', '.join(changed[:6])}{' ...' if len(changed) > 6 else ''}, "
                                "which the judge's draw of the inputs runs: the calls' inputs cannot be trusted")
        made = _Made()
        try:
            with made:
                values = self.problem.inputs(seed, self.device)
        except ProblemError as exc:
            raise RuntimeError(str(exc)) from None
        args = [None] * len(self.spec.parameters)
        for index, value in zip(self.inputs, values):
            p = self.spec.parameters[index]
            args[index] = placed(value.detach(), alloc) if isinstance(p, Tensor) else value
        for index, p in self.outputs:
            args[index] = _empty(0, dtype=TORCH_DTYPES[p.dtype], device=self.device)
        with torch.no_grad():
            for value in [*made.made.values(), *(v for v in values if isinstance(v, torch.Tensor))]:
                if value.numel() and not any(value is a for a in args):
                    _zero(value.detach())
        _manual_seed(forward_seed(seed))
        return args


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the storages of ``a`` and ``b`` share any byte (by address: a tensor made over another's
    pointer has a storage of its own)."""
    sa, sb = a.untyped_storage(), b.untyped_storage()
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
    call.watch()
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

