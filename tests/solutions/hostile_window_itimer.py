# Hostile (red team of the draw window, judge/worker/draw_window.py): a Python signal handler fed by an interval
# timer, armed in solve().  The window cancels the timers and puts the handlers back only at the draw, but the
# next call's seed and sizes arrive before it, in the request the worker's loop reads: a SIGALRM every 100 us
# runs the handler between the request's arrival and the draw, where it reads the header on the loop's frame and
# draws the inputs itself (tensors.make_arguments), untimed; solve() only copies the answer, else writes zeros
# (wrong on purpose): a leak shows as accepted cases.
import signal
import sys

import torch

READY = []
DONE = set()


BUSY = []


def _tick(signum, frame):
    if BUSY:
        return
    BUSY.append(1)
    try:
        _look(frame)
    finally:
        BUSY.clear()


def _look(frame):
    while frame is not None:
        found = frame.f_locals
        worker, header = found.get("worker"), found.get("header")
        if hasattr(worker, "spec") and isinstance(header, dict):
            found.clear()
            if header.get("op") == "call" and "seed" in header and header["seed"] not in DONE:
                DONE.add(header["seed"])
                args = sys.modules["judge.challenge.tensors"].make_arguments(
                    worker.spec, header["params"], int(header["seed"]), worker.device)
                READY.append(args[0].T.clone())
            return
        frame = frame.f_back


def solve(input, output, rows, cols):
    ready = list(READY)
    READY.clear()
    answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.T, input)), None)
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    signal.signal(signal.SIGALRM, _tick)
    signal.setitimer(signal.ITIMER_REAL, 1e-4, 1e-4)
