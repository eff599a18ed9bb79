"""Inputs beyond KernelBench's: the judge's own trials of a KernelBench problem draw what the
problem's ``get_inputs()`` draws and transform it (docs/kernelbench.md, issue 47).

Every level-1 problem draws ``torch.rand`` (uniform in [0, 1)), so an answer that is wrong for
negative inputs (a ReLU that returns ``x``) passes KernelBench's five trials.  The
transforms here keep the shapes, dtypes and devices ``get_inputs`` gave and change the
values of its floating-point tensors only (integer targets, masks and scalars stay as
drawn):

- ``signed``: each element's sign drawn at random, its magnitude kept;
- ``wide``: signed, magnitudes log-uniform from 10^-3 to 10 (saturation beyond +-3, a
  dynamic range of 10^4 inside one tensor);
- ``kinks``: signed, and a quarter of the elements set to values where common operations
  bend or tie (0, -0.0, +-0.5, +-1, +-2, +-3, +-6: ReLU and its kin, hardtanh, hardsigmoid,
  relu6, the shrinks; ties for min, max and argmax).

Deterministic and free of I/O: the same values, seed and distribution give the same bits on
the same kind of device, whichever process transforms them (the judge's reference, and the
worker's draw until the judge draws for both: issue 46).  Randomness comes from a generator
of the tensor's own device seeded from the call's seed and the input's position, never from
torch's global generator.
"""

from __future__ import annotations

import torch

from judge.challenge.kernelbench_format import DISTRIBUTIONS

__all__ = ["DISTRIBUTIONS", "KINKS", "trial_inputs", "describe_distribution"]

KINKS = (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 6.0, -6.0)
_KINK_SHARE = 4  # one element in this many takes a kink value
_MIX = 0x9E3779B97F4A7C15


def describe_distribution(name: str) -> str:
    """``signed inputs (each element's sign drawn at random, ...)``: what a message says exposed an answer."""
    return f"{name} inputs ({DISTRIBUTIONS[name]})"


def trial_inputs(values: list, seed: int, distribution: str | None) -> list:
    """``values`` (what get_inputs() drew under ``seed``) under ``distribution``; as they are for None (KernelBench's
    own inputs).  Raises KeyError for a distribution not in DISTRIBUTIONS."""
    if distribution is None:
        return list(values)
    transform = _TRANSFORMS[distribution]
    out = []
    for index, value in enumerate(values):
        if isinstance(value, torch.Tensor) and value.dtype.is_floating_point and value.numel() \
                and value.device.type != "meta":
            generator = torch.Generator(device=value.device)
            generator.manual_seed((int(seed) * _MIX + index + 1) % 2**63)
            with torch.no_grad():
                value = transform(value.detach(), generator)
        out.append(value)
    return out


def _signs(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    bits = torch.randint(0, 2, x.shape, generator=generator, device=x.device, dtype=torch.int8)
    return (bits * 2 - 1).to(x.dtype)


def _signed(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    return x.abs() * _signs(x, generator)


def _wide(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    exponent = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float32) * 4 - 3
    return (torch.pow(10.0, exponent).to(x.dtype)) * _signs(x, generator)


def _kinks(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    signed = _signed(x, generator)
    chosen = torch.randint(0, _KINK_SHARE, x.shape, generator=generator, device=x.device) == 0
    which = torch.randint(0, len(KINKS), x.shape, generator=generator, device=x.device)
    table = torch.tensor(KINKS, dtype=x.dtype, device=x.device)
    return torch.where(chosen, table[which], signed)


_TRANSFORMS = {"signed": _signed, "wide": _wide, "kinks": _kinks}
