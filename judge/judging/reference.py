"""The torch reference and the checks of one call, in the judge's own process.

The judge draws a call's inputs from its seed (``arguments``: what the harness places in the memory it shares
with the solution's process), and after the call draws them again, runs the spec's reference on copies and
compares every tensor the shared memory holds then: inputs unchanged, outputs within the tolerance.  Nothing
here comes from the solution's process but the bytes being judged.
"""

from __future__ import annotations

import math

import torch

from judge.challenge.exact_math import exact_math
from judge.challenge.spec_model import ReferenceError_
from judge.judging.checks import Mismatch, compare_input, compare_output, cut_input, precision_explains
from judge.judging.hints import matmul_like
from judge.challenge.spec import Spec, Tensor
from judge.challenge.tensors import TORCH_DTYPES, make_arguments, poison_value
from judge.worker.arguments import CallArguments

__all__ = ["Reference", "ReferenceError_", "BadReply", "JudgeOutOfMemory"]


class BadReply(ValueError):
    """The worker's reply does not hold the tensors the spec says it must."""


class JudgeOutOfMemory(RuntimeError):
    """The judge's own check ran out of GPU memory: the solution's process (or another) holds it."""

    def __init__(self):
        super().__init__(
            "the judge ran out of GPU memory while checking this call: the solution's process holds more of the "
            "GPU than the worker's share (a solution may not raise it), or another process does; the solution's "
            "process was stopped")


class Reference:
    """Expected outputs and checks for one spec on one device."""

    def __init__(self, spec: Spec, device: str):
        self.spec, self.device = spec, device
        namespace = {"torch": torch, "math": math}
        exec(compile(spec.reference_code, f"{spec.source}:reference", "exec"), namespace)  # noqa: S102 - trusted spec
        self.function = namespace["reference"]

    def expected(self, args: list) -> dict[str, torch.Tensor]:
        """Run the reference on copies of ``args``; outputs by name."""
        work = self._prepared(args)
        try:
            with torch.no_grad(), exact_math():  # no TF32 in the judge's answer (exact_math.py)
                self.function(*work)
        except Exception as exc:  # noqa: BLE001
            raise ReferenceError_(f"the reference of {self.spec.source} failed: {type(exc).__name__}: {exc}") from exc
        return {p.name: work[i] for i, p in enumerate(self.spec.parameters)
                if isinstance(p, Tensor) and p.role != "in"}

    def _prepared(self, args: list, absolute: bool = False) -> list:
        wide = TORCH_DTYPES.get(self.spec.reference_dtype or "", None)
        work = []
        for value, p in zip(args, self.spec.parameters):
            if not isinstance(p, Tensor):  # |beta| too: the bound of a*x + beta*y is |a||x| + |beta||y|
                work.append(abs(value) if absolute else value)
                continue
            copy = value.clone()
            if wide is not None and copy.dtype.is_floating_point:
                copy = copy.to(wide)
            work.append(copy.abs() if absolute and p.role != "out" else copy)
        return work

    def scale(self, args: list) -> dict[str, torch.Tensor]:
        """The reference on the absolute values of the inputs (summation tolerance)."""
        work = self._prepared(args, absolute=True)
        try:
            with torch.no_grad(), exact_math():
                self.function(*work)
        except Exception as exc:  # noqa: BLE001
            raise ReferenceError_(f"the reference of {self.spec.source} failed on |inputs|: "
                                  f"{type(exc).__name__}: {exc}") from exc
        return {p.name: work[i] for i, p in enumerate(self.spec.parameters)
                if isinstance(p, Tensor) and p.role != "in"}

    def call_arguments(self, params: dict, seed: int, case=None) -> CallArguments:
        """solve()'s arguments for ``params`` drawn from ``seed`` in parameter order, outputs poisoned: what the
        judge places for the call (the same generator as ``check``'s, so the same values bit for bit)."""
        return CallArguments(make_arguments(self.spec, params, seed, self.device))

    def precision_of(self, params: dict, seed: int, got: dict[str, torch.Tensor], names: list[str]) -> str | None:
        """The narrower precision the failed outputs ``names`` match (checks.precision_explains): the answer
        rounded to float16 or bfloat16, or the reference on float32 inputs cut to TF32 (where the reference
        has a matmul-like operation), float16 or bfloat16.  Only asked after a wrong answer."""
        args = make_arguments(self.spec, params, seed, self.device)
        return precision_explains(got, self.expected(args), names, lambda cut: self._on_cut_inputs(args, cut),
                                  matmul_like(self.spec.reference_code))

    def _on_cut_inputs(self, args: list, cut) -> dict[str, torch.Tensor] | None:
        """The reference on its float32 inputs through ``cut``; None if it fails."""
        work = []
        for value, p in zip(args, self.spec.parameters):  # a fresh copy of what is not cut: the reference writes
            narrow = cut_input(value, getattr(p, "role", "in"), cut)
            work.append(narrow.clone() if narrow is value and isinstance(value, torch.Tensor) else narrow)
        try:  # the narrower precision is simulated on the inputs: the arithmetic itself stays exact
            with torch.no_grad(), exact_math():
                self.function(*work)
        except Exception:  # noqa: BLE001 - only a hint: the reference's own failure is reported elsewhere
            return None
        return {p.name: work[i] for i, p in enumerate(self.spec.parameters) if isinstance(p, Tensor) and p.role != "in"}

    def check(self, params: dict, seed: int, got: dict[str, torch.Tensor]) -> list[Mismatch]:
        """Every tensor in ``got`` (what the shared memory held after the call) against the judge's own values
        (``within_memory``)."""
        return within_memory(self._check, params, seed, got)

    def _check(self, params: dict, seed: int, got: dict[str, torch.Tensor]) -> list[Mismatch]:
        args = make_arguments(self.spec, params, seed, self.device)
        expected = self.expected(args)
        scale = self.scale(args) if self.spec.tolerance.kind == "summation" else {}
        results = []
        for value, p in zip(args, self.spec.parameters):
            if not isinstance(p, Tensor):
                continue
            if p.name not in got:  # a timed call's check reads the outputs only
                continue
            returned = got[p.name].to(self.device)
            if p.role == "in":
                results.append(compare_input(p.name, returned, value))
            else:
                poison = poison_value(TORCH_DTYPES[p.dtype]) if p.role == "out" else None
                results.append(compare_output(p.name, returned, expected[p.name], self.spec.tolerance,
                                              scale.get(p.name), poison))
        return results


def within_memory(check, *args):
    """``check(*args)``, with the GPU running out of memory as ``JudgeOutOfMemory`` (what it took freed)."""
    try:
        return check(*args)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        raise JudgeOutOfMemory() from None
