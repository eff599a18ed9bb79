"""CPU mode runs solutions that name the GPU: ``device="cuda"`` means the judge's device.

LeetGPU answers allocate scratch space by name (``torch.zeros(n, device="cuda")``,
``x.cuda()``, ``x.to("cuda")``); on a machine without a GPU torch raises "Torch not
compiled with CUDA enabled" and a correct solution fails.  While the worker judges in
CPU mode, a torch function mode (the mechanism behind ``torch.set_default_device``)
rewrites every CUDA device a torch function is given to the CPU and counts how often,
so the run can say so (judging/runner.py adds the note).  On a GPU nothing is rewritten:
"cuda" is already the judged device (the worker sets it current).

They also call ``torch.cuda`` itself: ``synchronize()``, ``current_stream()``, events to time
themselves, ``empty_cache()``, ``is_available()``, ``device_count()``, and
``get_device_properties(0).multi_processor_count`` to size a persistent grid.  ``CudaStandIns``
replaces those functions of the ``torch.cuda`` module, in the worker's process only and only in
CPU mode, by stand-ins that answer for the CPU: one device (index 0), nothing to wait for, events
on the host clock, ``CPU_SM_COUNT`` multiprocessors; and records which were called, for the run's
notes.  The judge's own code in the worker bound the real functions when it was imported, before
(judge/worker/session.py, judge/timer/timed_loop.py), and calls none of them in CPU mode.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import sys
import time
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode

__all__ = ["CudaOnCpu", "CudaStandIns", "CPU_SM_COUNT", "STAND_IN_NAMES", "stand_ins_note"]

_CUDA_NAME = re.compile(r"cuda(:\d+)?")
_MOVES = {torch.Tensor.to, torch.Tensor.cuda}  # the methods whose positional arguments may name a device


def _is_cuda(value) -> bool:
    if isinstance(value, torch.device):
        return value.type == "cuda"
    if isinstance(value, int) and not isinstance(value, bool):
        return True  # a bare index (device=0, x.to(0)) names a CUDA device
    return isinstance(value, str) and _CUDA_NAME.fullmatch(value) is not None


class CudaOnCpu(TorchFunctionMode):
    """Every CUDA device given to a torch function becomes the CPU; ``count`` says how many were."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:  # x.cuda(): the tensor stays where it is, on the CPU
            self.count += 1
            return args[0]
        if _is_cuda(kwargs.get("device")):
            kwargs["device"] = "cpu"
            self.count += 1
        if func in _MOVES and any(_is_cuda(a) for a in args[1:]):  # x.to("cuda"), x.to(torch.device("cuda"))
            args = tuple("cpu" if i and _is_cuda(a) else a for i, a in enumerate(args))
            self.count += 1
        return func(*args, **kwargs)


# What get_device_properties() says in CPU mode: few "SMs", so that a grid sized by them stays cheap in
# Triton's interpreter (~0.3 ms a program); correct kernels do not depend on the number.
CPU_SM_COUNT = 4
_clock = time.perf_counter
_RECORDING: list = []  # the ``used`` set of the installed CudaStandIns, if any


def _called(name: str) -> None:
    if _RECORDING:
        _RECORDING[0].add(name)


@dataclass(frozen=True)
class CpuDeviceProperties:
    """``torch.cuda.get_device_properties()`` in CPU mode: the fields kernels size themselves by."""

    name: str = "CPU (the judge's CPU mode)"
    major: int = 0
    minor: int = 0
    multi_processor_count: int = CPU_SM_COUNT
    total_memory: int = 0
    warp_size: int = 32
    L2_cache_size: int = 0
    max_threads_per_multi_processor: int = 2048
    is_integrated: bool = False
    is_multi_gpu_board: bool = False

    def __getattr__(self, name: str):
        raise AttributeError(f"torch.cuda.get_device_properties() in the judge's CPU mode has no '{name}' "
                             f"(there is no GPU; it has {', '.join(self.__dataclass_fields__)})")


class CpuEvent:
    """``torch.cuda.Event`` in CPU mode: ``record`` reads the host clock; ``elapsed_time`` is milliseconds."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False, **_):
        _called("Event")
        self.enable_timing, self.at = enable_timing, None

    def record(self, stream=None) -> None:
        self.at = _clock()

    def elapsed_time(self, end: "CpuEvent") -> float:
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.at is None or end.at is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end.at - self.at) * 1e3

    def synchronize(self) -> None:
        """Nothing to wait for: the CPU's work is done when its call returns."""

    def wait(self, stream=None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        return True


class CpuStream:
    """``torch.cuda.Stream`` in CPU mode: one in-order queue, the CPU; every wait is already over."""

    cuda_stream = 0
    device_index = 0

    def __init__(self, device=None, priority: int = 0, **_):
        _called("Stream")
        self.priority, self.device = priority, torch.device("cpu")

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def wait_event(self, event) -> None:
        """Nothing to wait for."""

    def record_event(self, event: CpuEvent | None = None) -> CpuEvent:
        event = event if event is not None else CpuEvent()
        event.record(self)
        return event

    def query(self) -> bool:
        return True


class _CpuDeviceContext(contextlib.nullcontext):
    """``torch.cuda.device(d)`` in CPU mode: there is one device, already current."""

    def __init__(self, device=None):
        _called("device")
        super().__init__()


_DEFAULT_STREAM = CpuStream()


def _stand_ins() -> dict:
    """name -> what ``torch.cuda.<name>`` is in CPU mode."""
    props = CpuDeviceProperties(total_memory=os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    return {
        "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
        "set_device": lambda device: None, "device": _CpuDeviceContext,
        "synchronize": lambda device=None: None, "empty_cache": lambda: None,
        "current_stream": lambda device=None: _DEFAULT_STREAM, "default_stream": lambda device=None: _DEFAULT_STREAM,
        "Stream": CpuStream, "stream": lambda stream=None: contextlib.nullcontext(stream), "Event": CpuEvent,
        "get_device_properties": lambda device=None: props, "get_device_name": lambda device=None: props.name,
    }


_TORCH_ROOT = os.path.dirname(torch.__file__) + os.sep

def _package_root(name: str) -> str:
    spec = importlib.util.find_spec(name)  # found, not imported
    return os.path.dirname(spec.origin) + os.sep if spec is not None and spec.origin else "\0"


_TRITON_ROOT = _package_root("triton")


def _caller_file() -> str:
    """The file of the code that called a ``torch.cuda`` stand-in (_caller_file <- _recorded's call <- it)."""
    frame = sys._getframe(2)
    return frame.f_code.co_filename if frame is not None else ""


STAND_IN_NAMES = tuple(_stand_ins())


class CudaStandIns:
    """Installs the stand-ins in ``torch.cuda`` (``install``; ``uninstall`` puts the originals back) and
    records in ``used`` the names the solution called (a class when it makes one: ``Event``, ``Stream``)."""

    def __init__(self):
        self.used: set[str] = set()
        self.originals: dict = {}

    def install(self) -> "CudaStandIns":
        for name, stand_in in _stand_ins().items():
            self.originals[name] = getattr(torch.cuda, name)
            setattr(torch.cuda, name, stand_in if isinstance(stand_in, type) else
                    _recorded(name, stand_in, self.originals[name]))
        _RECORDING[:] = [self.used]
        return self

    def uninstall(self) -> None:
        for name, original in self.originals.items():
            setattr(torch.cuda, name, original)
        self.originals.clear()
        _RECORDING.clear()


def _recorded(name: str, stand_in, original):
    """``torch.cuda.<name>`` in CPU mode.  torch's own code (dynamo, inductor) is told the truth, the real
    function (no GPU), so torch.compile compiles for the CPU it runs on as on any machine without a GPU (it
    failed before: dynamo saved a GPU random state it could not read, inductor asked the stand-in's
    properties for a GPU's fields); the solution, its helpers and Triton are told the CPU is the GPU.  Only
    the solution's own calls are named in the run's notes."""

    def call(*args, **kwargs):
        caller = _caller_file()
        if caller.startswith(_TORCH_ROOT):
            return original(*args, **kwargs)
        if not caller.startswith(_TRITON_ROOT):
            _called(name)
        return stand_in(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def stand_ins_note(names) -> str:
    """The run's note for the torch.cuda calls a solution made in CPU mode (``names``: checked by the caller
    against STAND_IN_NAMES: they come from the worker)."""
    listed = ", ".join(f"torch.cuda.{n}" for n in sorted(names))
    return (f"solve() called {listed}; in CPU mode these answer for this CPU, as device 0 of 1: synchronize, "
            f"empty_cache and stream waits have nothing to wait for, events time by the host clock, "
            f"get_device_properties() says multi_processor_count={CPU_SM_COUNT} (on a GPU they are the GPU's)")
