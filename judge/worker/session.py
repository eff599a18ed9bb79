"""The solution's process for one solution: the device, the spec and ``solve``, called on arguments the judge placed.

The judge's process owns every call's arguments (judge/worker/arguments.py): it draws the inputs, poisons the
outputs and fills the guard zones in memory both processes map, freezes this process whenever it writes or reads
that memory, and checks everything afterwards.  This process only maps the slots a request names and calls
``solve()`` on tensors over them; its replies say that the call is done and how long this process measured it,
which the judge reads as this process's word (its own host clock bounds them: judge/timing/audit.py).  So none of
the judge's draws, checks or deadlines runs here, and nothing the solution does to this interpreter between its
calls (it is frozen then) reaches them (docs/security.md, "The harness").

Imported by the worker before the solution, so the torch functions it keeps references to (events, synchronize)
are the real ones even if the solution monkeypatches torch afterwards: this process's timing is honest for an
honest solution, and bounded by the judge's clock for any other.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import tempfile

import torch

from judge.challenge import shipped_module
from judge.challenge.spec_model import Module, Scalar, Tensor
from judge.worker.cpu_device import CudaOnCpu, CudaStandIns
from judge.defence import namespaces, sandbox
from judge.defence.switches import SANDBOX_ENV, Switches
from judge.worker import compile_events, kernel_trace, kernelbench_model, launches, loader, protocol
from judge.worker.arguments import ArgumentsError, WorkerArguments
from judge.worker.process_state import ProcessState
from judge.defence.limits import Limits, apply_rlimits
from judge.timer import timed_loop

_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize


def warm_up(device: str) -> None:
    """Create the CUDA context on ``device``, load Triton's driver helpers and compile a
    one-element kernel (judge/worker/warm_kernel.py) before
    the judge's init message arrives: an early-spawned worker does this while the
    judge is still importing torch, instead of after.  Nothing of the solution has
    run yet; a failure here is left for ``Session.start`` to meet and report.
    """
    if not device.startswith("cuda"):
        return
    try:
        torch.cuda.set_device(torch.device(device))
        _synchronize()  # makes the primary context
        from triton.runtime import driver

        driver.active.get_current_device()
        driver.active.utils  # noqa: B018 - loads (on a fresh machine: builds) the launcher helpers
        from judge.worker.warm_kernel import compile_and_launch

        compile_and_launch(device)  # Triton's first-compile set-up, before the solution's first call
        from judge.timer.cover import precompile

        precompile(device)  # the launch guard's kernel, from the judge's own cache (cover.py)
    except Exception:  # noqa: BLE001
        pass


STACKS_SIGNAL = signal.SIGUSR2  # the judge's ask for every thread's stack, as a call runs past its deadline


def _stacks_on_request() -> None:
    """On STACKS_SIGNAL, every thread's Python stack into this process's output (the judge's capture file): a call
    the judge is about to stop for its deadline says where it hung (in CPU mode the kernel's own lines, since the
    interpreter runs it in Python).  A solution that takes the signal over only loses the stacks."""
    try:
        faulthandler.register(STACKS_SIGNAL, file=sys.stderr, all_threads=True, chain=False)
    except (AttributeError, ValueError, OSError, RuntimeError):
        pass


class CallRefused(RuntimeError):
    """A request's arguments cannot be made (a malformed slot, a module that cannot be rebuilt): the judge's
    messages are the judge's, so only a broken judge causes it."""


class Session:
    """Answers the judge's requests for one loaded solution."""

    def __init__(self, init: dict, response_fd: int, clock, request_fd: int = -1, arguments_fd: int | None = None):
        self.init, self.fd, self.clock = init, response_fd, clock
        self.request_fd = request_fd
        self.device = init["device"]
        self.gpu = self.device.startswith("cuda")
        self.arguments = WorkerArguments(self.device, arguments_fd)
        self.spec = None
        self.solve = None
        self.last_call_host_s = 0.0  # host time of the last timed_call's solve()
        self.outputs_kept: frozenset = frozenset()  # out tensors that start from the challenge's values (LeetGPU)
        self.protections: dict = {}  # the sandbox's layers as applied (sandbox.apply)
        self.state: ProcessState | None = None  # torch's per-call state as it was before the solution loaded
        self.loop: timed_loop.TimedLoop | None = None  # the bench request being served
        self.cpu_device: CudaOnCpu | None = None  # CPU mode: the GPU named by the solution is this CPU
        self.cuda_stand_ins: CudaStandIns | None = None  # CPU mode: torch.cuda.synchronize() & co. answer for it
        self.kernelbench: kernelbench_model.KernelBenchCall | None = None  # a KernelBench problem's ModelNew
        self.args: list = []  # the last request's arguments, over the judge's slots
        self.private: list = []  # (slot, copy) of a ``private`` call (give_back)

    # -- start-up ------------------------------------------------------------
    def start(self) -> bool:
        """Load spec and solution; report ``ready`` or why the file cannot be judged."""
        apply_rlimits(int(self.init.get("file_bytes", Limits().file_bytes)))
        try:
            if self.gpu:
                torch.cuda.set_device(torch.device(self.device))
                # Leave the judge room for its reference: an allocation storm
                # becomes a clear out-of-memory error in this process.
                torch.cuda.set_per_process_memory_fraction(float(self.init.get("gpu_memory_fraction", 0.75)))
                from judge.timer.cover import precompile

                precompile(self.device)  # on this device, from the judge's cache: before the solution's can hold it
            else:
                loader.patch_autotuner_for_interpreter()
                self.cpu_device = CudaOnCpu()  # "cuda" is this CPU while it judges (cpu_device.py)
                self.cpu_device.__enter__()  # for the process's life: an import may allocate too
                self.cuda_stand_ins = CudaStandIns().install()
            compile_events.install(self.fd, self.gpu)  # shown to the user; the judge's deadlines do not read them
            launches.install(self.init["solution"])  # its own kernels' launches, per call (--require-kernel)
            self.spec = protocol.spec_from_message(self.init["spec"])
            sys.dont_write_bytecode = True  # from here on: no __pycache__ beside the user's files (judge/base/bytecode.py)
            timed_loop.keep_modes()  # CPU mode's, if any: a call's timing runs with the modes as they are now
            if self.gpu and self.init.get("profile") == "cupti":  # judge profile: CUPTI loaded before the sandbox
                kernel_trace.warm()
            if getattr(self.spec, "kernelbench", False):
                torch.set_grad_enabled(False)  # KernelBench calls forward under no_grad (ProcessState keeps it)
            self.state = ProcessState(self.device)
            _stacks_on_request()
            self.protections = self.confine()
            self.solve = self.load_solution([p.name for p in self.spec.parameters])
        except loader.SubmissionError as exc:
            self.reply({"ok": False, "verdict": "invalid_submission", "message": str(exc)})
            return False
        self.flush_output()
        self.reply({"ok": True, "op": "ready", "pid_device": self.device, "protections": self.protections})
        return True

    def load_solution(self, names: list[str]):
        """``solve``: imported from a Python file, or a CUDA C++ one's library, which the judge built (its
        ``cuda`` settings: the library, the C argument types; judge/worker/cuda_solve.py)."""
        if getattr(self.spec, "kernelbench", False):  # ModelNew's forward, its returns the outputs
            self.kernelbench = kernelbench_model.load(self.init["solution"], self.spec, self.device)
            return self.kernelbench
        if self.init.get("cuda"):
            from judge.worker import cuda_solve

            return cuda_solve.load(self.init["solution"], self.init["cuda"], self.device)
        return loader.load_solve(self.init["solution"], len(names), names)

    def confine(self) -> dict:
        """The last step before any code of the solution runs: the environment its kernels compile in
        (Triton's cache for the solution, not the judge's own kernels'; a private temporary folder), the
        mounts and capabilities (judge/defence/namespaces.py: whatever the sandbox), then the sandbox
        (judge/defence/sandbox.py).  Returns the mechanisms and layers that are on."""
        for name, value in self.init.get("solution_env", {}).items():
            os.environ[name] = str(value)
        tempfile.tempdir = None  # from $TMPDIR again
        seal = self.init.get("seal") or {}
        states = namespaces.seal([str(p) for p in seal.get("writable", ())], [str(p) for p in seal.get("hidden", ())])
        policy = self.init.get("sandbox")
        if policy is None:
            return {**states, **dict.fromkeys(("landlock", "seccomp"), Switches.off(SANDBOX_ENV))}
        namespaced = namespaces.STATE.startswith("on")
        return {**states, **sandbox.apply(sandbox.Policy.from_message(policy), namespaced=namespaced)}

    def reply(self, header: dict, blobs=()) -> None:
        protocol.send(self.fd, header, blobs)

    @staticmethod
    def flush_output() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - the solution may have replaced the stream
                pass

    # -- requests --------------------------------------------------------------
    def handle(self, header: dict) -> bool:
        """Serve one request; False when the device is unusable and the worker must exit."""
        op = header.get("op")
        try:
            if op == "call":
                self.call(header)
            elif op == "bench":  # warm-up and guard; then the judge asks for each timed call (timed_loop.py)
                self.loop = None
                self.take_arguments(header)
                self.loop = timed_loop.TimedLoop(self, header)
                self.reply({"ok": True, "op": "warm", "guard_holds_gpu": self.loop.guard.holds_gpu})
            elif op in ("time", "end") and self.loop is not None:
                self.bench_step(op, header)
            elif op == "profile" and self.gpu:  # judge profile: the calls as the GPU ran them (kernel_trace.py)
                self.take_arguments(header)
                kernel_trace.profile(self, header)
            else:
                self.reply({"ok": False, "verdict": "internal", "message": f"unknown op {op!r}"})
            return True
        except BaseException as exc:  # noqa: BLE001 - everything the solution raises is reported
            return self.report_failure(exc)
        finally:
            self.flush_output()

    def bench_step(self, op: str, header: dict) -> None:
        """One step of the judge-driven timed loop: a timed call on the arguments the judge placed, or the end."""
        if op == "time":
            self.take_arguments(header)
            self.reply(self.loop.time(self.args))
        else:
            self.reply(self.loop.done())
            self.loop = None

    def take_arguments(self, header: dict) -> list:
        """solve()'s arguments for a request, in signature order: tensors over the judge's slots, scalars by value,
        a model rebuilt from torch's own classes over its slots; the forward's seed of a KernelBench call."""
        self.args = []
        try:
            tensors = self.arguments.tensors(header.get("memory"), header.get("slots") or [])
        except ArgumentsError as exc:
            raise CallRefused(str(exc)) from None
        scalars, modules = header.get("scalars") or {}, header.get("modules") or {}
        args = []
        for p in self.spec.parameters:
            if isinstance(p, Scalar):
                args.append(int(scalars[p.name]) if p.dtype == "int" else float(scalars[p.name]))
            elif isinstance(p, Module):
                meta = modules[p.name]
                args.append(shipped_module.rebuild(meta["description"], [tensors[name] for name in meta["slots"]]))
            elif isinstance(p, Tensor):
                args.append(tensors[p.name])
        self.outputs_kept = frozenset(str(n) for n in header.get("kept") or ())
        if self.kernelbench is not None:
            self.kernelbench.seed_forward(header.get("forward_seed"))
        self.private = [(a, a.clone()) for a in args if isinstance(a, torch.Tensor)] if header.get("private") else []
        if self.private:  # judge run --sanitize: every tensor an allocation of its own, exactly its size
            copies = iter(copy for _, copy in self.private)
            args = [next(copies) if isinstance(a, torch.Tensor) else a for a in args]
        self.args = args
        return args

    def give_back(self) -> None:
        """A ``private`` call's tensors copied back into the judge's slots (compute-sanitizer watched the copies:
        a store past one is past its allocation, which memcheck sees, not inside one shared block)."""
        for slot, copy in self.private:
            slot.copy_(copy)
        if self.private and self.gpu:
            _synchronize()
        self.private = []

    def timer_stream(self):
        """The stream every timed call is recorded on: the worker's current stream before the solution
        loaded (process_state.ProcessState), whatever stream the solution has made current since."""
        if self.state is not None and self.state.gpu:
            self.state.restore()
            return self.state.stream
        return torch.cuda.current_stream() if self.gpu else None

    def restore_state(self) -> None:
        """torch's per-call state as it was before the solution loaded (process_state.ProcessState)."""
        if self.state is not None:
            self.state.restore()

    def before_solve(self) -> None:
        """Right before solve() is called (every call site: timed_call, timed_loop.measured_call, kernel_trace)."""

    def after_solve(self) -> None:
        """Right after solve() returned, before the synchronize (timed_loop.measured_call calls it after the
        end event): what forward() returned goes into a KernelBench call's output slots (untimed by the events,
        inside the judge's own clock)."""
        if self.kernelbench is not None:
            self.kernelbench.place_results(self.args)

    def check_call(self) -> None:
        """After every call, outside any timed region: torch's state set back, and on a GPU the worker's share of
        its memory set again (the rest is the judge's, for its reference)."""
        self.restore_state()
        if self.device.startswith("cuda"):
            self.memory_share_kept()

    @staticmethod
    def tampered(message: str) -> "RuntimeError":
        """The error for a call that broke the judge's rules (reported as a runtime error, message as is)."""
        return CallRefused(message)

    def memory_share_kept(self) -> None:
        """The worker's share of the GPU's memory, set again after every call: a solution that raised it
        (torch.cuda.set_per_process_memory_fraction) and took more is stopped here, before the judge's
        reference runs out of memory (judge/judging/runner.py says so when it does anyway)."""
        fraction = float(self.init.get("gpu_memory_fraction", 0.75))
        torch.cuda.set_per_process_memory_fraction(fraction)
        total = torch.cuda.get_device_properties(torch.device(self.device)).total_memory
        held = torch.cuda.memory_reserved(torch.device(self.device))
        if held > fraction * total:
            raise CallRefused(f"solve() took {held / 1024**3:.1f} GiB of the GPU's memory, more than the worker's "
                              f"share of {fraction:.0%} ({fraction * total / 1024**3:.1f} GiB): the rest is the "
                              "judge's, for its reference")

    def timed_call(self, args: list) -> float:
        """Run solve() once; milliseconds by CUDA events on GPU, by the host clock on CPU."""
        if not self.gpu:
            start = self.clock()
            self.solve(*args)
            timed_loop.clear_hooks()
            self.after_solve()
            self.last_call_host_s = self.clock() - start
            return self.last_call_host_s * 1e3
        begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _synchronize()
        begin.record()
        start = self.clock()
        self.solve(*args)
        timed_loop.clear_hooks()
        self.last_call_host_s = self.clock() - start  # how long launching takes: sizes bench's launch guard
        end.record()
        self.after_solve()
        _synchronize()
        return begin.elapsed_time(end)

    def call(self, header: dict) -> None:
        args = self.take_arguments(header)
        launches.LAUNCHES.reset()
        elapsed_ms = self.timed_call(args)
        own_launches = launches.LAUNCHES.count
        self.give_back()
        self.check_call()
        reply = {"ok": True, "op": "result", "time_ms": elapsed_ms, "own_launches": own_launches}
        if self.cpu_device is not None and self.cpu_device.count:
            reply["cuda_on_cpu"] = self.cpu_device.count  # so far, import included: the run's note says so
        if self.cuda_stand_ins is not None and self.cuda_stand_ins.used:
            reply["cuda_calls_on_cpu"] = sorted(self.cuda_stand_ins.used)  # likewise
        self.reply(reply)

    def report_failure(self, exc: BaseException) -> bool:
        verdict = "compile_error" if loader.is_compile_error(exc) else "runtime_error"
        if isinstance(exc, kernelbench_model.WrongReturn):
            verdict = exc.verdict
        if isinstance(exc, CallRefused) and "malformed" in str(exc):
            verdict = "internal"
        if isinstance(exc, (CallRefused, kernelbench_model.WrongReturn)):
            message = str(exc)
        else:
            message = loader.format_error(exc, self.init["solution"])
        if isinstance(exc, OSError) and exc.errno == 27:  # EFBIG: RLIMIT_FSIZE (Python ignores SIGXFSZ)
            limit = int(self.init.get("file_bytes", 0)) // 1024**2
            message += f"\n(the solution wrote more than {limit} MiB into one file, and was stopped)"
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            fraction = float(self.init.get("gpu_memory_fraction", 0.75))
            message += f"\n(the worker may use {fraction:.0%} of the GPU's memory; the rest is the judge's)"
        healthy = self.device_is_healthy()
        if not healthy:
            message += "\n(the GPU context is unusable after this error: a fresh worker is started)"
        self.reply({"ok": False, "verdict": verdict, "message": message, "fatal": not healthy})
        return healthy

    def device_is_healthy(self) -> bool:
        if not self.gpu:
            return True
        try:
            _synchronize()
            torch.zeros(1, device=self.device).add_(1).item()
            return True
        except BaseException:  # noqa: BLE001 - a sticky CUDA error
            return False
