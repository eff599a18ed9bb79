"""torch's per-call state in the solution's process, set back after every call.

``ProcessState`` is the per-call state a solution may leave changed (the current device and stream, sync-debug
mode, the default dtype, grad mode, TF32 and precision switches): recorded before the solution loads and set back
before and after every call, so that the timed loop's guard and events run on the stream and device they were
meant to.  It keeps an honest solution's calls from changing the next one's conditions; a solution that tampers
with this process changes only its own times, which the judge bounds by its own clock (docs/security.md).
"""

from __future__ import annotations

__all__ = ["ProcessState"]


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
