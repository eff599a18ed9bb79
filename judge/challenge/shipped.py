"""Shipped inputs: solve() arguments that the judge builds with a challenge's own Python generators
(LeetGPU's ``challenge.py``, judge/challenge/leetgpu.py) rather than from a seed.

The worker knows only the signature (``signature_message``: names, roles, dtypes); each call's values are
placed by the judge in the memory both processes map (judge/worker/arguments.py), a ``torch.nn.Module``
argument as a description of torch's own classes with its tensors in slots of their own (shipped_module.py).
The worker never sees the challenge's code.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.challenge.spec_model import Init, Module, Scalar, Tensor
from judge.challenge.tensors import TORCH_DTYPES

__all__ = ["ShippedSignature", "signature_message", "signature_from_message"]

KIND = "shipped"


@dataclass(frozen=True)
class ShippedSignature:
    """What the worker knows of a shipped challenge: its name and parameters."""

    name: str
    parameters: tuple


def signature_message(spec) -> dict:
    params = [{"name": p.name, "kind": p.kind, "dtype": p.dtype, "role": getattr(p, "role", "in")}
              for p in spec.parameters]
    return {"kind": KIND, "name": spec.name, "parameters": params}


def signature_from_message(message: dict) -> ShippedSignature:
    """The worker's side of ``signature_message``; raises ValueError on a malformed one."""
    parameters = []
    for p in message["parameters"]:
        if p["kind"] == "tensor":
            if p["dtype"] not in TORCH_DTYPES or p["role"] not in ("in", "out", "inout"):
                raise ValueError(f"bad shipped tensor parameter {p!r}")
            parameters.append(Tensor(str(p["name"]), p["dtype"], (), p["role"], Init()))
        elif p["kind"] == "module":
            parameters.append(Module(str(p["name"])))
        else:
            parameters.append(Scalar(str(p["name"]), "int" if p["dtype"] == "int" else "float", ""))
    return ShippedSignature(str(message["name"]), tuple(parameters))
