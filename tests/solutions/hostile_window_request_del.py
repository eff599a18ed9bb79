# Hostile (red team of the draw window, judge/worker/draw_window.py): the window opens too late.  The call's
# seed and sizes arrive in the request's header before the draw closes the window (at Session.arguments), and
# the worker's loop (judge/worker/__main__.py: ``header, blobs = protocol.receive(...)``) drops the previous
# request's header as it stores the new one.  solve() puts an object of its own into its request's header dict
# (found on its caller's frame); its __del__ runs, by reference counting, as the next request replaces it, finds
# the new header (seed, params; after an ``area_free`` message it waits for the next) and the Session on the
# loop's frame, draws the inputs itself with the judge's
# tensors.make_arguments (bit-identical) and computes the answer, untimed; solve() only copies it.  solve() writes
# zeros when no answer is ready (wrong on purpose): a leak shows as accepted cases.
import sys

import torch

READY = []


class _Tail:
    def __del__(self):
        frame = sys._getframe(1)
        while frame is not None and not hasattr(frame.f_locals.get("worker"), "spec"):
            frame = frame.f_back
        if frame is None:
            return
        found = frame.f_locals  # a snapshot of the loop's locals, kept on its frame: emptied at once, or it would
        header, session = found.get("header"), found["worker"]  # hold this header past its replacement
        found.clear()
        if not isinstance(header, dict):
            return
        if header.get("op") != "call" or "seed" not in header:  # an ``area_free`` first: wait for the next one
            header["_tail"] = _Tail()
            return
        draw = sys.modules["judge.challenge.tensors"].make_arguments
        args = draw(session.spec, header["params"], int(header["seed"]), session.device)
        READY.append(args[0].T.clone())


def solve(input, output, rows, cols):
    ready = list(READY)
    READY.clear()
    answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.T, input)), None)
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    frame = sys._getframe(1)
    while frame is not None:
        header = frame.f_locals.get("header")
        if isinstance(header, dict) and "seed" in header:
            header["_tail"] = _Tail()
            break
        frame = frame.f_back
