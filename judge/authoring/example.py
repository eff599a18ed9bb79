"""The worked example that ``judge show`` prints: the reference run on the
spec's example sizes with small integer inputs.

Computing it needs torch (seconds to import), so ``judge show`` keeps the text
in a cache keyed by ``example_key``; only the first ``show`` of a spec (or of
a new torch version) pays for the import.
"""

from __future__ import annotations

import hashlib
from importlib import metadata

from judge import __version__

__all__ = ["example_key", "example_text", "cached_example_text", "example_values"]


def _installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def example_key(spec) -> str:
    """What the example depends on: the spec's text and variant, torch (its random
    generator draws the inputs), and the judge (how inputs are made)."""
    digest = hashlib.sha256(spec.text.encode()).hexdigest()[:24]
    return f"{spec.name}|{digest}|torch {_installed('torch')}|judge {__version__}"


def example_text(spec) -> str:
    """Sizes, inputs and the reference's outputs on ``spec.example`` (imports torch)."""
    import torch

    from judge.challenge.spec import Tensor
    from judge.challenge.tensors import make_arguments
    from judge.judging.reference import Reference

    args = make_arguments(spec, spec.example, seed=0, device="cpu")
    for value, p in zip(args, spec.parameters):
        if isinstance(p, Tensor) and p.role != "out" and value.dtype.is_floating_point:
            value.copy_(torch.arange(1, value.numel() + 1, dtype=value.dtype).reshape(value.shape))
    lines = [f"{p.name} = {value.tolist()}" for value, p in zip(args, spec.parameters)
             if isinstance(p, Tensor) and p.role != "out"]
    expected = Reference(spec, "cpu").expected(args)
    lines += [f"{name} = {t.to(torch.float32).tolist() if t.dtype.is_floating_point else t.tolist()}"
              for name, t in expected.items()]
    sizes = ", ".join(f"{k}={v}" for k, v in spec.example.items())
    return f"{sizes}\n" + "\n".join(lines)


def example_values(spec) -> dict:
    """The worked example as data for a page (judge ui draws it as LeetGPU's statements do):
    ``{"sizes": {name: value}, "inputs": [[name, value]], "outputs": [[name, value]]}`` with tensors as
    nested lists and a model as ``{"module": "Linear(in_features=2, ...)", "weights": [[name, value]]}``.
    A YAML spec: ``example_text``'s inputs on its example sizes.  A LeetGPU folder: its own
    ``generate_example_test()``, on the CPU, with its reference's outputs.  Imports torch."""
    if getattr(spec, "shipped", False):
        return _leetgpu_example(spec)
    import torch

    from judge.challenge.spec import Tensor
    from judge.challenge.tensors import make_arguments
    from judge.judging.reference import Reference

    args = make_arguments(spec, spec.example, seed=0, device="cpu")
    for value, p in zip(args, spec.parameters):
        if isinstance(p, Tensor) and p.role != "out" and value.dtype.is_floating_point:
            value.copy_(torch.arange(1, value.numel() + 1, dtype=value.dtype).reshape(value.shape))
    inputs = [[p.name, _plain(value)] for value, p in zip(args, spec.parameters)
              if isinstance(p, Tensor) and p.role != "out"]
    outputs = [[name, _plain(t)] for name, t in Reference(spec, "cpu").expected(args).items()]
    return {"sizes": dict(spec.example), "inputs": inputs, "outputs": outputs}


def _leetgpu_example(spec) -> dict:
    import torch
    from torch import nn

    from judge.challenge.exact_math import exact_math

    challenge = spec.instance("cpu")
    example = challenge.generate_example_test()
    example = example[0] if isinstance(example, list) and example else example
    roles = {p.name: getattr(p, "role", "in") for p in spec.parameters}
    sizes = {name: v for name, v in example.items() if not isinstance(v, (torch.Tensor, nn.Module))}
    inputs = [[name, _model(v) if isinstance(v, nn.Module) else _plain(v)] for name, v in example.items()
              if isinstance(v, (torch.Tensor, nn.Module)) and roles.get(name, "in") != "out"]
    with torch.no_grad(), exact_math():
        challenge.reference_impl(**example)
    outputs = [[name, _plain(v)] for name, v in example.items()
               if isinstance(v, torch.Tensor) and roles.get(name) in ("out", "inout")]
    return {"sizes": sizes, "inputs": inputs, "outputs": outputs}


def _plain(value):
    """A tensor as nested lists (floats as float32 shows them, half and bfloat16 widened), a number as is."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    value = value.detach().cpu()
    return value.to(torch.float32).tolist() if value.dtype.is_floating_point else value.tolist()


def _model(model) -> dict:
    """A model argument: what it is (``Linear(in_features=2, out_features=2, bias=True)``) and its weights."""
    from judge.challenge.shipped_module import tensors

    return {"module": str(model), "weights": [[name, _plain(t)] for name, t in tensors(model, buffers=False)]}


def cached_example_text(spec) -> str:
    """The worked example, from the cache when this spec's was computed before
    (computing it imports torch: seconds, where the rest of ``show`` takes a fraction of one)."""
    from judge.base.paths import cache_dir
    from judge.timing.peaks import read_cache, write_cache

    path, key = cache_dir() / "examples.json", example_key(spec)
    cached = read_cache(path)
    if isinstance(cached.get(key), str):
        return cached[key]
    text = example_text(spec)
    kept = {k: v for k, v in cached.items() if not k.startswith(f"{spec.name}|")}  # older texts of this spec
    write_cache(path, dict(kept, **{key: text}))
    return text
