"""Red team on the inputs' poison during the launch guard's spin (commit ac102d3, timed_loop.Repoison).

Bypass, no introspection of the judge's Python state: the values are drawn (tensors._draw) into device
temporaries (``rand``, ``rand * (high - low)``, ``... + low``; ``randn``, ``* std``, ``+ mean``) and only
then copied into the guarded buffers (tensors.placed).  The temporaries go back to torch's caching
allocator on the worker's stream, the timer's, still holding this call's values, or a value the spec's own
affine map turns into them bit for bit (float32: ``B + low`` is the very op _draw ran).  Repoison's clones
take one same-sized free block; another stays free.  Inside solve(), ``torch.empty_like(input)`` on the
current (timer) stream is served from those free blocks (best fit: same size, lowest address), so a
solve() gets this call's inputs without reading the poisoned tensors: a D2H copy of that block on a stream
of its own runs on a copy engine during the spin, the host computes, an H2D copy fills a scratch buffer,
and the timed work is one copy scratch -> output: the attack ac102d3 closed
(tests/solutions/cheat_host_compute_in_guard.py), reading the allocator's leftovers instead of the input.
(Reasoned from the code; FakeCover applies fills at launch and the CPU allocator is not the caching one,
so the CPU test below checks the premise: no freed temporary may carry the drawn values.  The CUDA test
checks the consequence on a GPU.)  Closed the same day: _draw computes in place and scrubs its working
copies, make_arguments the drawn tensor once copied into the guarded buffer.

Open (strict xfail): the clones Repoison writes back from are live device memory; the allocator's snapshot
lists their addresses, and __cuda_array_interface__ aliases them without touching the judge's objects.
"""

from __future__ import annotations

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from conftest import SPECS
from judge.challenge.spec import load_spec, parse_spec
from judge.challenge.tensors import make_arguments
from judge.timer import timed_loop as bench
from judge.worker.guarded import Arena

SPEC = load_spec(SPECS / "tiny_transpose.yaml")  # input: float32 uniform(-10, 10)


def _normal_spec():
    text = (SPECS / "tiny_transpose.yaml").read_text().replace(
        "init: {dist: uniform, low: -10, high: 10}", "init: {dist: normal, mean: 0, std: 1}")
    return parse_spec(text, "normal.yaml")


class _Record(TorchDispatchMode):
    """Every tensor an op makes while the arguments are drawn."""

    def __init__(self):
        super().__init__()
        self.made = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.made += [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, torch.Tensor)]
        return out


def _recovers(t: torch.Tensor, drawn: torch.Tensor, init) -> bool:
    """Whether ``drawn`` is ``t`` as is, or ``t`` through the last steps of tensors._draw (bit for bit)."""
    if t.numel() != drawn.numel() or t.dtype != drawn.dtype:
        return False
    t, drawn = t.reshape(-1), drawn.reshape(-1)
    low = getattr(init, "low", None)
    high = getattr(init, "high", None)
    mean, std = getattr(init, "mean", None), getattr(init, "std", None)
    candidates = [t]
    if low is not None and high is not None:
        candidates += [t + low, t * (high - low) + low]
    if mean is not None and std is not None:
        candidates += [t + mean, t * std + mean]
    return any(torch.equal(c, drawn) for c in candidates)


@pytest.mark.parametrize("spec", [SPEC, _normal_spec()], ids=["uniform", "normal"])
def test_no_freed_temporary_of_the_draw_holds_the_inputs_values(spec):
    """The inputs hold poison during the spin only if no other memory a solve() can be handed holds their
    values: every tensor the draw made, other than the guarded buffers, is freed to the allocator and is
    what torch.empty() inside solve() returns.  None may hold the drawn values (or a value _draw's own
    affine step maps onto them)."""
    arena = Arena("cpu")
    with _Record() as rec:
        args = make_arguments(spec, {"rows": 64, "cols": 48}, 1234, "cpu", arena.empty)
    drawn, init = args[0], spec.parameters[0].init
    guarded = {a.untyped_storage().data_ptr() for a in args if isinstance(a, torch.Tensor)}
    leftovers = [t for t in rec.made if t.untyped_storage().data_ptr() not in guarded]
    leaking = [t for t in leftovers if _recovers(t, drawn, init)]
    assert not leaking, (f"{len(leaking)} freed temporaries of the draw hold this call's inputs (or their "
                         f"pre-image under _draw's affine map); torch.empty() in solve() hands them out during "
                         f"the guard's spin, while the inputs themselves hold poison")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA's caching allocator")
def test_torch_empty_inside_solve_does_not_hand_out_this_calls_input_values():
    """The attack's first step as solve() would run it, on the worker's path: the arguments drawn into an
    arena, Repoison poisons the inputs (the state during the spin), then solve() asks for memory."""
    torch.cuda.synchronize()
    arena = Arena("cuda")
    init = SPEC.parameters[0].init
    for seed in (1, 2, 3):  # steady state: the arena re-used, the previous call's blocks freed
        arena = arena.again() if seed > 1 else arena
        args = make_arguments(SPEC, {"rows": 600, "cols": 500}, seed, "cuda", arena.empty)
        repoison = bench.Repoison(SPEC, args)
        drawn = repoison.drawn[0]
        assert args[0].isnan().all()  # what the input holds during the spin
        grabbed = [torch.empty_like(args[0]) for _ in range(8)]  # a solve()'s scratch, uninitialised
        assert not any(_recovers(g, drawn, init) for g in grabbed), (
            f"call {seed}: torch.empty_like(input) inside solve() returned a block holding this call's drawn "
            f"inputs while the input itself held poison")
        del grabbed, repoison


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
    test's template (session.template), live on the device through every timed call."""
    arena = Arena("cuda")
    args = make_arguments(SPEC, {"rows": 512, "cols": 512}, 7, "cuda", arena.empty)
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
