"""Shipped inputs: solve() arguments that the judge built and sends to the worker,
for challenges whose inputs come from arbitrary Python generators (LeetGPU's
``challenge.py``, judge/challenge/leetgpu.py) rather than from a seed.

Used on both sides: the judge describes the signature (``signature_message``)
and each call's inputs (``input_payload``); the worker rebuilds them
(``arguments_from_payload``) with outputs poisoned, and for the benchmark
keeps them as a template that every timed call copies (``fresh_arguments``).
The worker never sees the challenge's code, only names, roles, dtypes, shapes
and bytes; a ``torch.nn.Module`` argument travels as a description of torch's own
classes and its tensors' bytes (shipped_module.py), and every call gets a copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from judge.challenge import shipped_module
from judge.challenge.spec_model import Init, Module, Scalar, Tensor
from judge.challenge.tensors import TORCH_DTYPES, from_bytes, placed, poison_, to_bytes

__all__ = ["kept_outputs", "ShippedSignature", "signature_message", "signature_from_message", "input_payload",
           "arguments_from_payload", "fresh_arguments", "request_payload"]

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


def input_payload(parameters, arguments: dict, kept=frozenset()) -> tuple[list, list]:
    """(metas, blobs) of one call: scalars by value, out tensors by shape, the others' bytes too, and those
    of the out tensors in ``kept`` (initialised by the challenge's generator: they start from those values)."""
    metas, blobs = [], []
    for p in parameters:
        value = arguments[p.name]
        if isinstance(p, Scalar):
            metas.append({"value": value})
            continue
        if isinstance(p, Module):  # its description, and its tensors' bytes from blob ``first`` on
            description, values = shipped_module.describe(value, p.name)
            metas.append({"module": description, "first": len(blobs)})
            blobs += [to_bytes(v) for v in values]
            continue
        meta = {"shape": list(value.shape)}
        if p.role != "out" or p.name in kept:
            meta["blob"] = len(blobs)
            blobs.append(to_bytes(value))
        metas.append(meta)
    return metas, blobs


def kept_outputs(parameters, metas: list) -> frozenset:
    """The names of the out tensors a request ships values for: they start from them, not from poison."""
    return frozenset(p.name for p, meta in zip(parameters, metas)
                     if getattr(p, "role", None) == "out" and isinstance(meta, dict) and "blob" in meta)


def request_payload(case) -> tuple[dict, list]:
    """The extra header and blobs that send a shipped case's inputs with a request
    ({} and [] for a seeded case); its ``arguments`` are in signature order."""
    arguments = getattr(case, "arguments", None)
    if not arguments:
        return {}, []
    parameters = [Tensor(name, "", (), case.roles[name], Init()) if isinstance(value, torch.Tensor)
                  else Module(name) if isinstance(value, nn.Module) else Scalar(name, "", "")
                  for name, value in arguments.items()]
    metas, blobs = input_payload(parameters, arguments, getattr(case, "kept", frozenset()))
    return {"inputs": metas}, blobs


def arguments_from_payload(parameters, metas: list, blobs: list, device: str, alloc=None) -> list:
    """solve()'s arguments in order, on ``device``: shipped values, outputs poisoned
    (``alloc(shape, dtype)``: where each tensor is made, as in tensors.make_arguments)."""
    if not isinstance(metas, list) or len(metas) != len(parameters):
        raise ValueError("shipped inputs do not match the signature")
    args = []
    for p, meta in zip(parameters, metas):
        if isinstance(p, Scalar):
            args.append(int(meta["value"]) if p.dtype == "int" else float(meta["value"]))
            continue
        if isinstance(p, Module):
            args.append(_module_from_payload(meta, blobs, device))
            continue
        shape = tuple(int(d) for d in meta["shape"])
        if p.role == "out" and "blob" not in meta:
            args.append(poison_(alloc(shape, _dtype(p)) if alloc else torch.empty(shape, dtype=_dtype(p), device=device)))
        else:  # a copy: the pipe's buffer is not the worker's to keep
            values = from_bytes(blobs[int(meta["blob"])], p.dtype, shape)
            args.append(placed(values, alloc) if alloc else values.to(device, copy=True))
    return args


def fresh_arguments(parameters, template: list, alloc=None, kept=frozenset()) -> list:
    """A call's own copy of the template: inputs, models and the ``kept`` outputs cloned, the other outputs
    poisoned (timed calls re-use the inputs)."""
    args = []
    for p, value in zip(parameters, template):
        if isinstance(p, Scalar):
            args.append(value)
        elif isinstance(p, Module):  # its own copy: weights a call changed never reach the next
            args.append(shipped_module.copy(value))
        elif p.role == "out" and p.name not in kept:
            args.append(poison_(alloc(tuple(value.shape), value.dtype) if alloc else torch.empty_like(value)))
        else:
            args.append(placed(value, alloc) if alloc else value.clone())
    return args


def _module_from_payload(meta: dict, blobs: list, device: str) -> nn.Module:
    """The module a payload describes, on ``device``, holding copies of its tensors' bytes."""
    description, first = meta["module"], int(meta["first"])
    specs = shipped_module.tensor_specs(description)
    values = [from_bytes(blobs[first + i], dtype, shape).to(device, copy=True) for i, (dtype, shape) in enumerate(specs)]
    return shipped_module.rebuild(description, values)


def _dtype(p: Tensor) -> torch.dtype:
    return TORCH_DTYPES[p.dtype]
