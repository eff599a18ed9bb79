"""The torch reference and the checks of one call, in the judge's own process.

The judge re-draws the call's inputs from its seed (bit-identical to the
worker's), runs the spec's reference on copies, and compares what the worker
sent back.  Nothing here comes from the solution's process except the bytes
being judged.
"""

from __future__ import annotations

import math

import torch

from .checks import Mismatch, compare_input, compare_output
from .spec import Spec, Tensor
from .tensors import TORCH_DTYPES, make_arguments, poison_value

__all__ = ["Reference", "ReferenceError_"]


class ReferenceError_(RuntimeError):
    """The spec's own reference failed: a bug in the challenge, not the solution."""


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
            with torch.no_grad():
                self.function(*work)
        except Exception as exc:  # noqa: BLE001
            raise ReferenceError_(f"the reference of {self.spec.source} failed: {type(exc).__name__}: {exc}") from exc
        return {p.name: work[i] for i, p in enumerate(self.spec.parameters)
                if isinstance(p, Tensor) and p.role != "in"}

    def _prepared(self, args: list, absolute: bool = False) -> list:
        wide = TORCH_DTYPES.get(self.spec.reference_dtype or "", None)
        work = []
        for value, p in zip(args, self.spec.parameters):
            if not isinstance(p, Tensor):
                work.append(value)
                continue
            copy = value.clone()
            if wide is not None and copy.dtype.is_floating_point:
                copy = copy.to(wide)
            work.append(copy.abs() if absolute and p.role != "out" else copy)
        return work

    def scale(self, args: list) -> dict[str, torch.Tensor]:
        """The reference on the absolute values of the inputs (summation tolerance)."""
        work = self._prepared(args, absolute=True)
        with torch.no_grad():
            self.function(*work)
        return {p.name: work[i] for i, p in enumerate(self.spec.parameters)
                if isinstance(p, Tensor) and p.role != "in"}

    def check(self, params: dict, seed: int, got: dict[str, torch.Tensor]) -> list[Mismatch]:
        """Every tensor argument the worker returned, against the judge's own values."""
        args = make_arguments(self.spec, params, seed, self.device)
        expected = self.expected(args)
        scale = self.scale(args) if self.spec.tolerance.kind == "summation" else {}
        results = []
        for value, p in zip(args, self.spec.parameters):
            if not isinstance(p, Tensor):
                continue
            if p.name not in got:  # timed calls send outputs only (docs/timing.md)
                continue
            returned = got[p.name].to(self.device)
            if p.role == "in":
                results.append(compare_input(p.name, returned, value))
            else:
                poison = poison_value(TORCH_DTYPES[p.dtype]) if p.role == "out" else None
                results.append(compare_output(p.name, returned, expected[p.name], self.spec.tolerance,
                                              scale.get(p.name), poison))
        return results
