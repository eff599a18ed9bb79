# Red team of issue 46, idea 4 (an honest pattern, not an attack): solve() keeps a reference to a tensor it was
# handed and reads it in a later call.  Memoising on the last input, keeping the previous call's output to compare,
# a model that stores a buffer it was given: all legal Python.  Before the harness the tensor kept its memory
# alive; now the worker maps each slot for one layout and munmaps it when the next call's sizes differ
# (WorkerArguments._release), so reading the kept tensor touches unmapped memory.
# Seen (twice each): judge run --cpu-elements 4200000 --seed 3: runtime_error on edge-9 (63x100, then 1449x1449),
# "killed by signal SIGSEGV ... usually an out-of-bounds tl.load or tl.store: check the masks"; with the default
# caps every layout's reservation lands at the same address, and the kept tensor silently reads the next call's
# slot instead (accepted here, since nothing depended on it).  A hole: an honest solution refused.  Now a kept
# tensor never faults: it is the caller's buffer, which the judge's next call may overwrite (as any harness that
# reuses its buffers does); after the sizes change it is a private copy of what its block held then.
import torch

_kept = []


def solve(input, output, rows, cols):
    if _kept:
        _ = float(_kept[-1].sum())  # the previous call's input: still a tensor, its memory gone?
    _kept.append(input)
    output.copy_(input.T)
