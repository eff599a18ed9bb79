# Hostile (red team 2 of the draw window, judge/worker/draw_window.py): a patched method of the spec's class.
# integrity.Fingerprint watches the judge's worker modules (WATCHED_MODULES), not judge.challenge.spec_model,
# whose Spec class the YAML draw calls (tensors.make_arguments: ``spec.shape_of(p, params)``) with the call's
# seed in its frame.  solve() rebinds Spec.shape_of; the wrapper reads the seed on the draw's frame and draws the
# inputs itself (tensors.make_arguments), untimed.  solve() only copies the answer, else writes zeros (wrong on
# purpose): a leak shows as accepted cases.
import sys

import torch

READY = []
BUSY = []


def solve(input, output, rows, cols):
    ready = list(READY)
    READY.clear()
    answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.T, input)), None)
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    spec_class = sys.modules["judge.challenge.spec_model"].Spec
    original = spec_class.__dict__["shape_of"]
    if getattr(original, "hostile", False):
        return

    def shape_of(self, tensor, params):
        if not BUSY:
            frame = sys._getframe(1)
            found = frame.f_locals
            if frame.f_code.co_name == "make_arguments" and "seed" in found:
                BUSY.append(1)
                try:
                    args = sys.modules["judge.challenge.tensors"].make_arguments(
                        found["spec"], dict(found["params"]), int(found["seed"]), found["device"])
                    READY.append(args[0].T.clone())
                finally:
                    BUSY.clear()
        return original(self, tensor, params)

    shape_of.hostile = True
    spec_class.shape_of = shape_of
