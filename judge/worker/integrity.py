"""What a solution may change in its worker's process, put back after every call.

The judge's code that runs in the worker after solve() returns (the timed
loop, the session's replies, the checks) is Python, which a solution can
patch: rebind a module's global (``timed_loop._elapsed = fake``), a class's
method (``Session.send_tensors``) or a function's code object.  ``Fingerprint``
records all of these for the judge's modules before the solution loads;
``changed()`` names what differs and puts the originals back, so the report
of the tampering goes through the judge's own code.  The torch functions the
timing rests on are C methods (timed_loop.py), which cannot be patched from
Python at all.

``ProcessState`` is the per-call state a solution may leave changed (the
current device and stream, sync-debug mode, the default dtype, grad mode,
TF32 and precision switches): recorded before the solution loads and set
back before and after every call, so the judge's guard, events and checks
always run as they were meant to.

Neither holds against code that writes the process's memory directly
(ctypes): the judge's own checks (the physical floor, the host clock,
docs/timing.md) bound what such a solution can gain.
"""

from __future__ import annotations

import sys
import types

__all__ = ["Fingerprint", "ProcessState", "WATCHED_MODULES"]

WATCHED_MODULES = (
    "judge.worker.session", "judge.worker.protocol", "judge.worker.guarded", "judge.worker.area",
    "judge.worker.integrity", "judge.worker.sandbox", "judge.timer.timed_loop", "judge.timer.cover",
    "judge.timer.guard", "judge.timer.fills", "judge.challenge.tensors", "judge.challenge.shipped",
    "judge.challenge.shipped_module",
    "judge.worker.launches", "judge.worker.kernelbench_model", "judge.challenge.kernelbench_problem",
    "judge.challenge.spec_model", "judge.worker.draw_window",  # the draw calls the spec's methods (red team, round 2)
)


class Fingerprint:
    """Every global, class attribute and code object of the watched modules, as they are now."""

    def __init__(self, modules=WATCHED_MODULES):
        self.entries: list[tuple[object, dict, str, object, object]] = []  # (owner, its live namespace, name,
        # value, its code)
        for name in modules:
            module = sys.modules.get(name)
            if module is None:
                continue
            self._record(module, vars(module))
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == name:
                    self._record(value, dict(vars(value)))

    def _record(self, owner, namespace: dict) -> None:
        live = vars(owner)  # a module's dict, a class's mappingproxy: both show later changes
        for attr, value in namespace.items():
            if attr.startswith("__") and attr.endswith("__"):
                continue
            self.entries.append((owner, live, attr, value, getattr(value, "__code__", None)))

    def changed(self) -> list[str]:
        """What differs from the recording (each put back as it was); [] in an honest call (~0.1 µs an entry:
        it runs after every call)."""
        found = []
        for owner, live, attr, value, code in self.entries:
            if live.get(attr, _MISSING) is not value:
                found.append(_label(owner, attr))
                setattr(owner, attr, value)
            elif code is not None and value.__code__ is not code:
                found.append(_label(owner, attr) + ".__code__")
                value.__code__ = code
        return found


def _label(owner, attr) -> str:
    if isinstance(owner, types.ModuleType):
        return f"{owner.__name__.rsplit('.', 1)[-1]}.{attr}"
    return f"{owner.__name__}.{attr}"


_MISSING = object()


class ProcessState:
    """The per-call state of torch a solution may change, recorded on the worker's device."""

    def __init__(self, device: str):
        import torch

        self.gpu = device.startswith("cuda")
        self.values = {
            "default dtype": torch.get_default_dtype(),
            "grad mode": torch.is_grad_enabled(),
            "float32 matmul precision": torch.get_float32_matmul_precision(),
            "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
            "cuDNN TF32": torch.backends.cudnn.allow_tf32,
        }
        if self.gpu:
            self.device = torch.device(device)
            self.values["matmul TF32"] = torch.backends.cuda.matmul.allow_tf32
            self.stream = torch.cuda.current_stream(self.device)
            self.sync_debug = torch.cuda.get_sync_debug_mode()

    def restore(self) -> None:
        """Put back every recorded setting that changed (each read first: a few attribute reads, no
        synchronize; torch.use_deterministic_algorithms imports torch._inductor, 1.6 s, when called)."""
        import torch

        values = self.values
        if torch.get_default_dtype() != values["default dtype"]:
            torch.set_default_dtype(values["default dtype"])
        if torch.is_grad_enabled() != values["grad mode"]:
            torch.set_grad_enabled(values["grad mode"])
        if torch.get_float32_matmul_precision() != values["float32 matmul precision"]:
            torch.set_float32_matmul_precision(values["float32 matmul precision"])
        if torch.are_deterministic_algorithms_enabled() != values["deterministic algorithms"]:
            torch.use_deterministic_algorithms(values["deterministic algorithms"])
        if torch.backends.cudnn.allow_tf32 != values["cuDNN TF32"]:
            torch.backends.cudnn.allow_tf32 = values["cuDNN TF32"]
        if self.gpu:
            torch.backends.cuda.matmul.allow_tf32 = values["matmul TF32"]
            if torch.cuda.current_device() != self.device.index:
                torch.cuda.set_device(self.device)
            if torch.cuda.current_stream(self.device) != self.stream:
                torch.cuda.set_stream(self.stream)
            if torch.cuda.get_sync_debug_mode() != self.sync_debug:
                torch.cuda.set_sync_debug_mode(self.sync_debug)
