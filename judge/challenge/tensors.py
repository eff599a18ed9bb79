"""Building solve() arguments: input values drawn from a seed, poisoned outputs,
and raw-byte conversion for the trip between the worker and the judge.

The worker and the judge both call ``make_arguments`` with the same seed on the
same kind of device and get bit-identical inputs, so the judge never has to
trust input values reported by the solution's process.
"""

from __future__ import annotations

import torch

from judge.challenge.spec import Init, Scalar, Spec, Tensor

__all__ = ["make_arguments", "placed", "poison_value", "poison_", "raw_bytes", "to_bytes", "from_bytes", "TORCH_DTYPES"]

TORCH_DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float64": torch.float64, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
    "uint32": torch.uint32,  # LeetGPU challenge folders only (specs use spec_model.DTYPES)
}


def poison_value(dtype: torch.dtype):
    """What unwritten outputs hold: NaN for floats, the type's minimum for integers."""
    if dtype.is_floating_point:
        return float("nan")
    if dtype == torch.bool:
        return True  # a bool cannot be poisoned for sure; documented in docs/spec-format.md
    if dtype in (torch.uint8, torch.uint32):
        return torch.iinfo(dtype).max  # their minimum is 0, the commonest value there is (red team 27: uint8)
    return torch.iinfo(dtype).min


def poison_(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.fill_(poison_value(tensor.dtype))


def _draw(init: Init, shape: tuple, dtype: torch.dtype, gen: torch.Generator, device) -> torch.Tensor:
    """The values of one input, computed in place in one tensor whose working copy (int64, or float32
    for half types) is scrubbed once cast: memory freed to torch's cache must not hold them, or a solve()
    that allocates while the launch guard spins is handed the values the inputs hide then (red team,
    2026-11-26; docs/security.md).  In place, the same operations as ``rand() * (high - low) + low``."""
    if init.dist == "fill":
        return torch.full(shape, init.value, dtype=dtype, device=device)
    if init.dist == "randint":
        return _cast_scrubbed(torch.randint(int(init.low), int(init.high), shape, generator=gen, device=device),
                              dtype)
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) or not dtype.is_floating_point else dtype
    if init.dist == "normal":
        values = torch.randn(shape, generator=gen, device=device, dtype=work).mul_(init.std).add_(init.mean)
    else:
        values = torch.rand(shape, generator=gen, device=device, dtype=work).mul_(init.high - init.low).add_(init.low)
    return _cast_scrubbed(values, dtype)


def _cast_scrubbed(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    cast = values.to(dtype)
    if cast is not values:
        values.zero_()
    return cast


def make_arguments(spec: Spec, params: dict, seed: int, device, alloc=None) -> list:
    """solve()'s arguments in order: inputs drawn from ``seed``, outputs poisoned.

    Tensors are drawn in parameter order from one generator on ``device``, so
    the same (spec, params, seed, device type) always gives the same values.
    ``alloc(shape, dtype)`` makes each tensor; the drawn values are copied in, bit for bit.
    """
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    args = []
    for p in spec.parameters:
        if isinstance(p, Scalar):
            args.append(spec.scalar_value(p, params))
            continue
        shape, dtype = spec.shape_of(p, params), TORCH_DTYPES[p.dtype]
        if p.role == "out":
            args.append(poison_(alloc(shape, dtype) if alloc else torch.empty(shape, dtype=dtype, device=device)))
        else:
            values = _draw(p.init, shape, dtype, gen, device)
            args.append(placed(values, alloc))
            if args[-1] is not values:
                values.zero_()  # scrubbed before it is freed, as _draw's working copies
    return args


def placed(values: torch.Tensor, alloc=None) -> torch.Tensor:
    """``values`` copied into a tensor from ``alloc(shape, dtype)``; ``values`` itself without one."""
    if alloc is None:
        return values
    return alloc(tuple(values.shape), values.dtype).copy_(values)


def raw_bytes(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as a flat uint8 tensor on its own device, without a dtype round trip."""
    return tensor.detach().contiguous().reshape(-1).view(torch.uint8)


def to_bytes(tensor: torch.Tensor) -> memoryview:
    """The tensor's raw bytes (copied to the CPU), without a dtype round trip."""
    return memoryview(raw_bytes(tensor).cpu().numpy()).cast("B")


def from_bytes(data, dtype: str, shape) -> torch.Tensor:
    """Rebuild a CPU tensor from ``to_bytes`` output."""
    if not len(data):
        raw = torch.empty(0, dtype=torch.uint8)
    elif isinstance(data, bytearray) or (isinstance(data, memoryview) and not data.readonly):
        raw = torch.frombuffer(data, dtype=torch.uint8)  # shared as is
    else:  # read-only bytes are copied once (torch wants writable memory)
        raw = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    return raw.view(TORCH_DTYPES[dtype]).reshape(tuple(shape))


def tensor_params(spec: Spec) -> list[tuple[int, Tensor]]:
    """(position, tensor spec) of every tensor parameter."""
    return [(i, p) for i, p in enumerate(spec.parameters) if isinstance(p, Tensor)]
