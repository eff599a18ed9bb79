"""A KernelBench problem's own code, run in this process at given sizes: its inputs drawn
from a seed, its init inputs, a model built with seeded weights.  Used on both sides: the
judge draws the inputs and builds ``Model`` for its reference; the worker draws the same
inputs (the same seed on the same kind of device gives the same values) and builds the
solution's ``ModelNew`` the same way.

Seeding follows KernelBench's src/kernelbench/eval.py (commit 423217d): ``set_seed(seed)``
(``torch.manual_seed``, which seeds the CPU and every GPU), ``get_init_inputs()``, then
``set_seed(seed)`` again and the model's constructor, on the CPU, then ``.to(device)``; a
``ModelNew`` that creates the same parameters in the same order as ``Model`` gets the same
weights.  Its inputs are drawn by ``get_inputs()`` after ``set_seed(trial_seed)``; here on
the judged device directly (KernelBench draws on the CPU and copies them: the values
differ, the distributions do not), with their dtypes as drawn (KernelBench casts every
tensor to its precision, float32 by default, which changes no level-1 problem's input but
95_CrossEntropyLoss's integer targets).  The seeds of the judge's own trials (``draws``: seed -> distribution)
draw the same and transform it (kernelbench_inputs.py: signed, wide, kinks).
"""

from __future__ import annotations

import hashlib
import inspect
import linecache
from contextlib import contextmanager
from pathlib import Path

import torch

from judge.challenge.kernelbench_format import PROBLEM_NAMES, ProblemError, ProblemFormatError, with_sizes
from judge.challenge.kernelbench_inputs import trial_inputs

__all__ = ["Problem", "ProblemError", "seeded"]

_HUB_HINT = ("; KernelBench's level 4 also loads its model's configuration and weights from the Hugging Face hub as "
             "the file runs (from_pretrained), so that model must be in the Hugging Face cache or the hub reachable")
_manual_seed = torch.manual_seed  # bound at import, before a solution's torch.compile has torch._dynamo wrap it


@contextmanager
def seeded(seed: int, devices=()):
    """torch's generators seeded with ``seed`` (KernelBench's set_seed), restored afterwards: the draws
    here leave the caller's random state as it was.  ``devices``: the CUDA devices whose state to keep."""
    with torch.random.fork_rng(devices=list(devices)):
        _manual_seed(int(seed) % 2**64)
        yield


class Problem:
    """The problem file's code at ``sizes`` (CPU mode's smaller constants; {} as written); ``draws``: the seeds
    whose inputs are the judge's own trials' (seed -> a distribution of kernelbench_inputs.DISTRIBUTIONS)."""

    def __init__(self, source: str, path: str, sizes: dict | None = None, draws: dict | None = None):
        self.source, self.path, self.sizes = source, str(path), dict(sizes or {})
        self.draws = {int(seed): str(name) for seed, name in dict(draws or {}).items()}
        self.namespace = self._run()
        self.Model = self.namespace["Model"]
        self.get_inputs = self.namespace["get_inputs"]
        self.get_init_inputs = self.namespace["get_init_inputs"]

    def _run(self) -> dict:
        try:
            tree = with_sizes(self.source, self.sizes)
        except ProblemFormatError as exc:
            raise ProblemError(f"{self.path} {exc}") from None
        digest = hashlib.blake2b(self.source.encode(), digest_size=6).hexdigest()
        namespace = {"__name__": f"kernelbench_problem_{digest}", "__file__": self.path}
        # Its lines as run, for whatever asks for them (a traceback, torch.compile's tracer) without the file: a
        # sandboxed worker may not read it, and CPU mode's sizes are not the file's.
        linecache.cache[self.path] = (len(self.source), None, self.source.splitlines(True), self.path)
        try:
            exec(compile(tree, self.path, "exec"), namespace)  # noqa: S102 - the user's problem file, trusted
        except ModuleNotFoundError as exc:  # level 3's einops, level 4's transformers: the user's environment
            raise ProblemError(f"{self.path} needs the Python package '{exc.name}', which is not installed here (pip "
                               f"install {exc.name}){_HUB_HINT if exc.name == 'transformers' else ''}") from None
        except BaseException as exc:  # noqa: BLE001 - the problem's failure, reported with its line
            _stop_passes(exc)
            raise ProblemError(f"{self.path} does not run: {type(exc).__name__}: {exc}") from None
        missing = [name for name in PROBLEM_NAMES if not callable(namespace.get(name))]
        if missing:
            raise ProblemError(f"{self.path} defines no {', '.join(missing)}: a KernelBench problem defines "
                               "class Model(nn.Module), get_inputs() and get_init_inputs()")
        return namespace

    @property
    def forward_names(self) -> list[str]:
        """The names of Model.forward's parameters (``A``, ``B``), for the inputs' names."""
        try:
            parameters = list(inspect.signature(self.Model.forward).parameters.values())[1:]
        except (TypeError, ValueError):
            return []
        return [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def init_inputs(self, seed: int, device) -> list:
        """``get_init_inputs()`` under ``seed``; its tensors moved to ``device`` (as KernelBench does)."""
        with seeded(seed):
            values = self._call(self.get_init_inputs, "get_init_inputs()")
        if not isinstance(values, (list, tuple)):
            raise ProblemError(f"{self.path}: get_init_inputs() returned a {type(values).__name__}, not a list")
        return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]

    def build(self, cls, seed: int, device, what: str = "Model"):
        """``cls(*get_init_inputs())`` with its weights drawn under ``seed`` on the CPU, then moved to ``device``
        (KernelBench's order).  Raises what the constructor raises (the caller says whose it is)."""
        init = self.init_inputs(seed, device)
        with torch.no_grad(), seeded(seed):
            model = cls(*init)
        return model.to(device) if isinstance(model, torch.nn.Module) else model

    def reference_model(self, seed: int, device) -> torch.nn.Module:
        try:
            return self.build(self.Model, seed, device)
        except ProblemError:
            raise
        except BaseException as exc:  # noqa: BLE001
            _stop_passes(exc)
            raise ProblemError(f"{self.path}: Model(*get_init_inputs()) failed: {type(exc).__name__}: {exc}") from None

    def inputs(self, seed: int, device) -> list:
        """``get_inputs()`` under ``seed``, drawn on ``device`` (its factory calls without a device go there);
        every tensor then on ``device``; transformed by the seed's distribution where ``draws`` names one."""
        device = torch.device(device)
        cuda = [device.index or 0] if device.type == "cuda" else []
        with seeded(seed, cuda), device:
            values = self._call(self.get_inputs, "get_inputs()")
        if not isinstance(values, (list, tuple)):
            raise ProblemError(f"{self.path}: get_inputs() returned a {type(values).__name__}, not a list")
        values = [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]
        return trial_inputs(values, seed, self.draws.get(int(seed)))

    def distribution(self, seed: int) -> str | None:
        """The distribution the inputs of ``seed`` are drawn from: None for KernelBench's own (get_inputs as it is)."""
        return self.draws.get(int(seed))

    def _call(self, function, what: str):
        try:
            return function()
        except BaseException as exc:  # noqa: BLE001
            _stop_passes(exc)
            raise ProblemError(f"{self.path}: {what} failed: {type(exc).__name__}: {exc}") from None

    @property
    def folder(self) -> str:
        return str(Path(self.path).resolve().parent)


def _stop_passes(exc: BaseException) -> None:
    """Ctrl-C and the judge's SIGTERM are no failure of the problem's: re-raised."""
    from judge.base import signals

    if signals.is_stop(exc):
        raise exc
