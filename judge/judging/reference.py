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
from judge.judging.checks import Mismatch, compare_input, compare_output, tf32_explains_all, tf32_input
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

    def tf32_explains(self, params: dict, seed: int, got: dict[str, torch.Tensor], names: list[str]) -> bool:
        """Whether the failed outputs ``names`` are what a TF32 matmul gives: the reference run in float32
        on its float32 inputs rounded to TF32 (checks.tf32_explains).  Only asked after a wrong answer."""
        args = make_arguments(self.spec, params, seed, self.device)
        if not any(isinstance(v, torch.Tensor) and v.dtype == torch.float32 for v in args):
            return False
        return tf32_explains_all(got, self.expected(args), names, lambda truncate: self._on_tf32_inputs(args, truncate))

    def _on_tf32_inputs(self, args: list, truncate: bool) -> dict[str, torch.Tensor] | None:
        """The reference in float32 on its float32 inputs cut to TF32; None if it fails."""
        work = []
        for value, p in zip(args, self.spec.parameters):  # a fresh copy of what is not cut: the reference writes
            cut = tf32_input(value, getattr(p, "role", "in"), truncate)
            work.append(cut.clone() if cut is value and isinstance(value, torch.Tensor) else cut)
        try:  # TF32's rounding is simulated on the inputs: the arithmetic itself stays exact
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
