# Cheat (issue 25, 4): reads the case's seed from the worker's frames during the warm-up, draws the
# timed calls' inputs itself (their seeds were derived from it) and precomputes their outputs, then
# copies one in each timed call: accepted at 0.09 ms for 412 GFLOP.  Now each timed call's seed comes
# from the judge's entropy with the call: there is nothing to precompute.
import sys

import torch

from judge.challenge.cases import call_seed
from judge.challenge.tensors import make_arguments

_cache = {}
_timed = [0]


def _case_seed():
    frame = sys._getframe(1)
    while frame is not None:
        for name in ("case_seed",):
            if name in frame.f_locals and isinstance(frame.f_locals[name], int):
                return frame.f_locals[name], frame.f_locals.get("self")
        frame = frame.f_back
    return None, None


def solve(A, B, C, M, N, K):
    seed, loop = _case_seed()
    if seed is not None and not _cache and loop is not None:
        spec = loop.session.spec
        for i in range(64):  # the old derivation: timed_seed(case, i) = call_seed(case, "timed", i)
            args = make_arguments(spec, loop.params, call_seed(seed, "timed", i), "cuda")
            _cache[i] = args[0] @ args[1]
    if _cache and A.shape[0] == M and torch.cuda.memory_allocated() > 300 * 1024**2:
        i = _timed[0]
        _timed[0] += 1
        if i in _cache:
            C.copy_(_cache[i])
            return
    torch.matmul(A, B, out=C)
