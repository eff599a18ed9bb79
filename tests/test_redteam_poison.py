"""Red team on the inputs' poison during the launch guard's spin (commit ac102d3, timed_loop.Repoison).

The first bypass (the draw's freed temporaries, handed to a solve() by torch's caching allocator while the
inputs held poison) needed the draw in the solution's process: since the harness (issue 46) the judge draws in
its own process, and the worker's allocator never held a drawn value.  Its tests went with it.

Open (strict xfail): the clones Repoison writes back from are live device memory of the worker's; the allocator's
snapshot lists their addresses, and __cuda_array_interface__ aliases them without touching the judge's objects.
"""

from __future__ import annotations

import pytest
import torch

from conftest import SPECS
from judge.challenge.spec import load_spec
from judge.challenge.tensors import make_arguments
from judge.timer import timed_loop as bench

SPEC = load_spec(SPECS / "tiny_transpose.yaml")  # input: float32 uniform(-10, 10)


class _Pointer:
    """A device address as a tensor, through torch's own __cuda_array_interface__ import (no ctypes)."""

    def __init__(self, address: int, numel: int):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": (numel,), "typestr": "<f4", "version": 3}


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA's caching allocator")
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="open (docs/security.md, the copy engines during the guard's spin): the clones the guard "
                          "writes back from are live device memory the solution's process can address")
def test_repoisons_clones_are_not_readable_through_the_allocators_own_snapshot():
    """Second route, no judge object touched: torch.cuda.memory_snapshot() lists every live block of the
    caching allocator with its address; Repoison's clones are the live blocks of the inputs' size that are
    not the inputs.  torch.as_tensor() of an object with __cuda_array_interface__ aliases one, and a D2H
    copy of it on a stream of its own runs on a copy engine during the spin.  The same holds for a LeetGPU
    test's template once was, live on the device through every timed call."""
    args = make_arguments(SPEC, {"rows": 512, "cols": 512}, 7, "cuda")  # as the worker's slots hold them
    repoison = bench.Repoison(SPEC, args)
    drawn, numel = repoison.drawn[0], args[0].numel()
    own = {a.data_ptr() for a in args if isinstance(a, torch.Tensor)}
    found = []
    for segment in torch.cuda.memory_snapshot():
        address = segment["address"]
        for block in segment["blocks"]:
            address, start = address + block["size"], block.get("address", address)
            if block["state"] == "active_allocated" and block["size"] >= args[0].nbytes and start not in own:
                view = torch.as_tensor(_Pointer(start, numel), device="cuda")
                found.append(torch.equal(view, drawn.reshape(-1)))
    assert not any(found), "the drawn inputs were read from a live block the allocator's snapshot lists"
