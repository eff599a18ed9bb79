"""A ``torch.nn.Module`` argument of a LeetGPU challenge (``easy/41_simple_inference``'s
``model``), shipped to the worker as data, never as a pickle.

The judge describes the module its challenge's generator built (``describe``): the class
of each module in the tree, which must be one of torch's own (``torch.nn.modules.*``),
its plain attributes (numbers, strings, booleans, None, tuples and lists of them), its
``training`` flag, and its parameters and buffers as tensors, in one fixed order
(``tensors``).  The worker rebuilds an equivalent module from that (``rebuild``): it
imports nothing but torch's own classes, sets the attributes, and registers the tensors it
received.  It never sees the challenge's code (a class defined in ``challenge.py`` is
refused when the folder loads) and never unpickles anything; the description only flows
from the judge to the worker.

Each call gets a module of its own, rebuilt from copies of the tensors, so a solution
that changes the weights changes only its own copy: the judge's reference runs on a copy
of the judge's module, and the judge compares the weights (parameters) the worker sends
back after a test with its own (an ``in`` argument, like an input tensor).
"""

from __future__ import annotations

import importlib
import math

import torch
from torch import nn

from judge.challenge.tensors import TORCH_DTYPES

__all__ = ["ModuleError", "describe", "tensors", "tensor_specs", "rebuild", "copy"]

_PACKAGE = "torch.nn.modules."
_DTYPE_NAMES = {dtype: name for name, dtype in TORCH_DTYPES.items()}
# What nn.Module.__init__ makes; rebuild makes it again, so only the rest is described.
_BASE = frozenset(vars(nn.Module()))
_STATE = frozenset({"training", "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set"})


class ModuleError(ValueError):
    """A module that cannot be described or rebuilt; the message says what in it."""


# -- the judge's side -----------------------------------------------------------------------------
def describe(module: nn.Module, where: str = "model") -> tuple[dict, list[torch.Tensor]]:
    """(description, tensors): JSON-ready data, and the parameters and buffers its ``blob`` indices
    point to (``tensors(module)``'s order).  Raises ModuleError naming what cannot be sent."""
    found: list[torch.Tensor] = []
    return _describe(module, where, found), found


def _describe(module: nn.Module, where: str, found: list) -> dict:
    cls = type(module)
    if not cls.__module__.startswith(_PACKAGE):
        origin = (f"{cls.__qualname__} (a class of its challenge.py)" if cls.__module__.startswith("leetgpu_challenge_")
                  else f"{cls.__module__}.{cls.__qualname__}")
        raise ModuleError(f"{where} is a {origin}, not one of torch.nn's own modules: "
                          "the solution's process rebuilds a module from torch.nn's classes only (it never runs "
                          "the challenge's code)")
    hooks = [name for name in _BASE - _STATE if getattr(module, name, None)]
    if hooks:
        raise ModuleError(f"{where} has hooks ({', '.join(sorted(hooks))}), which cannot be sent as data")
    attributes = {name: _encode(value, f"{where}.{name}") for name, value in vars(module).items()
                  if name not in _BASE}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "training": bool(module.training),
            "attributes": attributes,
            "parameters": [[name, _tensor(p, f"{where}.{name}", found)] for name, p in module._parameters.items()],
            "buffers": [[name, _tensor(b, f"{where}.{name}", found)] for name, b in module._buffers.items()],
            "non_persistent": sorted(module._non_persistent_buffers_set),
            "children": [[name, None if child is None else _describe(child, f"{where}.{name}", found)]
                         for name, child in module._modules.items()]}


def _tensor(value, where: str, found: list) -> dict | None:
    if value is None:
        return None
    if value.dtype not in _DTYPE_NAMES:
        raise ModuleError(f"{where} is a {value.dtype} tensor; supported: {', '.join(TORCH_DTYPES)}")
    found.append(value)
    return {"blob": len(found) - 1, "dtype": _DTYPE_NAMES[value.dtype], "shape": list(value.shape),
            "requires_grad": bool(value.requires_grad)}


def _encode(value, where: str):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, (tuple, list)):
        items = [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return {"tuple": items} if isinstance(value, tuple) else items
    raise ModuleError(f"{where} is a {type(value).__name__}, which cannot be sent as data (numbers, strings, "
                      "booleans, None and tuples or lists of them can)")


def tensors(module: nn.Module, buffers: bool = True) -> list[tuple[str, torch.Tensor]]:
    """(dotted name, tensor) of every parameter and buffer, in the order ``describe`` numbers them: a
    module's own parameters, its buffers, then each child's, depth first.  Both sides list them so.
    Without ``buffers``: the weights alone, which a call must leave as they are (a forward pass may update
    buffers: BatchNorm's running statistics in training mode)."""
    out = []
    own = [*module._parameters.items(), *(module._buffers.items() if buffers else ())]
    out += [(name, value) for name, value in own if value is not None]
    for name, child in module._modules.items():
        if child is not None:
            out += [(f"{name}.{inner}", value) for inner, value in tensors(child, buffers)]
    return out


# -- the worker's side ----------------------------------------------------------------------------
def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"tuple"} and isinstance(value["tuple"], list):
            return tuple(_decode(v) for v in value["tuple"])
        if set(value) == {"float"} and value["float"] in ("inf", "-inf", "nan"):
            return float(value["float"])
        raise ModuleError(f"malformed module attribute {value!r}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ModuleError(f"malformed module attribute {value!r}")


def _class(path: str) -> type:
    """torch.nn's own class at ``path`` (``torch.nn.modules.linear.Linear``); nothing else is imported."""
    module_name, _, name = str(path).rpartition(".")
    if not module_name.startswith(_PACKAGE) or not name.isidentifier():
        raise ModuleError(f"module class {path!r} is not one of torch.nn's own")
    try:
        cls = getattr(importlib.import_module(module_name), name, None)
    except ImportError:
        cls = None
    if not (isinstance(cls, type) and issubclass(cls, nn.Module) and cls.__module__ == module_name):
        raise ModuleError(f"module class {path!r} is not one of torch.nn's own")
    return cls


def rebuild(description: dict, values: list[torch.Tensor]) -> nn.Module:
    """The module ``description`` describes, holding ``values`` (``tensors``' order; used as they are).
    Raises ModuleError (or KeyError, TypeError: a malformed description) before any module is returned."""
    cls = _class(description["class"])
    module = cls.__new__(cls)
    nn.Module.__init__(module)
    for name, value in description["attributes"].items():
        if name in _BASE or not str(name).isidentifier():
            raise ModuleError(f"module attribute {name!r} cannot be set")
        setattr(module, name, _decode(value))
    module.training = bool(description["training"])

    def value_of(meta):
        if meta is None:
            return None
        tensor = values[int(meta["blob"])]
        if tensor.dtype != TORCH_DTYPES[meta["dtype"]] or list(tensor.shape) != list(meta["shape"]):
            raise ModuleError(f"module tensor {meta!r} does not match the values sent")
        return tensor

    for name, meta in description["parameters"]:
        tensor = value_of(meta)
        module.register_parameter(name, None if tensor is None else
                                  nn.Parameter(tensor, requires_grad=bool(meta["requires_grad"])))
    for name, meta in description["buffers"]:
        module.register_buffer(name, value_of(meta), persistent=name not in description["non_persistent"])
    for name, child in description["children"]:
        module.add_module(name, None if child is None else rebuild(child, values))
    return module


def tensor_specs(description: dict) -> list[tuple[str, list]]:
    """(dtype, shape) of each tensor a description numbers, in blob order (what the worker reads)."""
    found = {}

    def walk(node: dict) -> None:
        for _, meta in [*node["parameters"], *node["buffers"]]:
            if meta is not None:
                found[int(meta["blob"])] = (str(meta["dtype"]), [int(d) for d in meta["shape"]])
        for _, child in node["children"]:
            if child is not None:
                walk(child)

    walk(description)
    if sorted(found) != list(range(len(found))):
        raise ModuleError("malformed module description: its tensors are not numbered 0, 1, 2, ...")
    return [found[i] for i in range(len(found))]


def copy(module: nn.Module) -> nn.Module:
    """A module of the worker's own (rebuilt from a description, never handed to solve()) copied for one
    call: the same classes and attributes, clones of its tensors."""
    description, values = describe(module)
    return rebuild(description, [v.detach().clone() for v in values])
