"""The worker's state for one solution: the device, the spec and ``solve``.

Imported by the worker before the solution, so the torch functions it keeps
references to (events, synchronize) are the real ones even if the solution
monkeypatches torch afterwards.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading

import torch

from judge.challenge import shipped, shipped_module, tensors as tensor_args
from judge.challenge.spec_model import Module
from judge.worker.cpu_device import CudaOnCpu, CudaStandIns
from judge.worker.draw_window import DrawWindow
from judge.worker import compile_events, kernel_trace, kernelbench_model, launches, loader, namespaces, protocol, sandbox
from judge.worker.area import WorkerArea, span
from judge.worker.guarded import Arena, Seal
from judge.worker.integrity import Fingerprint, ProcessState
from judge.worker.limits import Limits, apply_rlimits
from judge.timer import timed_loop

_Event = torch.cuda.Event
_PLAIN = torch.Tensor
_current_frames = sys._current_frames
_synchronize = torch.cuda.synchronize
_to_bytes = tensor_args.to_bytes
_DTYPE_NAMES = {dtype: name for name, dtype in tensor_args.TORCH_DTYPES.items()}


def running_threads() -> set[int]:
    """The idents of the threads running Python now: threading's, and those it does not list (_thread's)."""
    return {thread.ident for thread in threading.enumerate()} | set(_current_frames())


def _set_class(tensor, kind) -> None:
    object.__setattr__(tensor, "__class__", kind)  # not the tensor's own __setattr__, which a subclass may define


def _instance_dict(tensor) -> dict:
    return object.__getattribute__(tensor, "__dict__")  # not through the class's __getattribute__


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


class ArgumentsTampered(RuntimeError):
    """After a call: solve() re-pointed an argument, or wrote outside one (the message says which).  ``fatal``:
    the worker can no longer be trusted (a thread of the solution's runs on in it): a fresh one follows."""

    def __init__(self, message: str, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


class Session:
    """Answers the judge's requests for one loaded solution."""

    def __init__(self, init: dict, response_fd: int, clock, request_fd: int = -1, area: WorkerArea | None = None):
        self.init, self.fd, self.clock = init, response_fd, clock
        self.request_fd, self.area = request_fd, area
        self.device = init["device"]
        self.gpu = self.device.startswith("cuda")
        self.spec = None
        self.solve = None
        self.last_call_host_s = 0.0  # host time of the last timed_call's solve()
        self.template: list | None = None  # a bench request's shipped inputs, copied by every call
        self.outputs_kept: frozenset = frozenset()  # the template's out tensors that start from shipped values
        self.sealed: tuple | None = None  # the last call's (arena, [(name, tensor)], seal): guarded.py
        self.protections: dict = {}  # the sandbox's layers as applied (sandbox.apply)
        self.fingerprint: Fingerprint | None = None  # the judge's code as it was before the solution loaded
        self.state: ProcessState | None = None  # torch's per-call state, likewise (integrity.py)
        self.loop: timed_loop.TimedLoop | None = None  # the bench request being served
        self.judge_threads: set | None = None  # the worker's own Python threads, before the solution loaded
        self.threads_at_return: dict = {}  # the solution's threads running when solve() returned (after_solve)
        self.threads_told: set = set()  # those a call's error named already: a later call's names only its own
        self.cpu_device: CudaOnCpu | None = None  # CPU mode: the GPU named by the solution is this CPU
        self.weights: list = []  # the last call's models' parameters, as it got them (seal)
        self.cuda_stand_ins: CudaStandIns | None = None  # CPU mode: torch.cuda.synchronize() & co. answer for it
        self.kernelbench: kernelbench_model.KernelBenchCall | None = None  # a KernelBench problem's ModelNew
        self.window = DrawWindow()  # no code of the solution's runs between its calls (draw_window.py)
        self.changed_tensors: list[str] = []  # the judge's tensors whose class solve() changed (after_solve)
        self.moved_attributes: list = []  # what solve() hung on the judge's tensors, dropped before the next draw

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
                self.cuda_stand_ins = CudaStandIns().install()  # before the fingerprint: torch.cuda, not the judge's
            compile_events.install(self.fd, self.gpu)  # before the solution: its import may compile
            launches.install(self.init["solution"])  # its own kernels' launches, per call (--require-kernel)
            self.spec = protocol.spec_from_message(self.init["spec"])
            names = [p.name for p in self.spec.parameters]
            sys.dont_write_bytecode = True  # from here on: no __pycache__ beside the user's files (judge/base/bytecode.py)
            timed_loop.keep_modes()  # CPU mode's, if any: every call must leave the modes as they are now
            if self.gpu and self.init.get("profile") == "cupti":  # judge profile: CUPTI loaded before the sandbox
                kernel_trace.warm()
            if getattr(self.spec, "kernelbench", False):
                torch.set_grad_enabled(False)  # KernelBench calls forward under no_grad (ProcessState keeps it)
            self.state, self.fingerprint = ProcessState(self.device), Fingerprint()
            self.judge_threads = running_threads()
            self.window.watch()
            self.protections = self.confine()
            self.solve = self.load_solution(names)
            self.window.close()  # what the import left (a timer, a handler, a patched torch) is undone now
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
        mounts and capabilities (judge/worker/namespaces.py: whatever the sandbox), then the sandbox
        (judge/worker/sandbox.py).  Returns the mechanisms and layers that are on."""
        for name, value in self.init.get("solution_env", {}).items():
            os.environ[name] = str(value)
        tempfile.tempdir = None  # from $TMPDIR again
        seal = self.init.get("seal") or {}
        states = namespaces.seal([str(p) for p in seal.get("writable", ())], [str(p) for p in seal.get("hidden", ())])
        policy = self.init.get("sandbox")
        if policy is None:
            return {**states, **dict.fromkeys(("landlock", "seccomp"), f"off: {sandbox.OPT_OUT_ENV}=0")}
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
    def handle(self, header: dict, blobs=()) -> bool:
        """Serve one request; False when the device is unusable and the worker must exit."""
        op = header.get("op")
        if self.area is not None and type(header.get("area_bytes")) is int:
            self.area.usable = header["area_bytes"]  # what the judge could map; beyond it, the pipe
        try:
            if op == "call":
                self.call(header, blobs)
            elif op == "area_free":  # the judge is done with the last reply's bytes; no answer
                if self.area is not None:
                    self.area.owed = False
            elif op == "bench":  # warm-up and guard; then the judge asks for each timed call (timed_loop.py)
                self.template = self.shipped_arguments(header, blobs) if "inputs" in header else None
                self.outputs_kept = (shipped.kept_outputs(self.spec.parameters, header["inputs"])
                                     if "inputs" in header else frozenset())
                self.loop = None
                self.loop = timed_loop.TimedLoop(self, header)
                self.reply({"ok": True, "op": "warm", "guard_holds_gpu": self.loop.guard.holds_gpu})
            elif op == "inputs" and self.loop is not None and self.template is not None:
                self.next_inputs(header, blobs)
            elif op in ("time", "send", "end") and self.loop is not None:
                self.bench_step(op, header)
            elif op == "profile" and self.gpu:  # judge profile: the calls as the GPU ran them (kernel_trace.py)
                self.template = self.shipped_arguments(header, blobs) if "inputs" in header else None
                self.outputs_kept = (shipped.kept_outputs(self.spec.parameters, header["inputs"])
                                     if "inputs" in header else frozenset())
                kernel_trace.profile(self, header)
            else:
                self.reply({"ok": False, "verdict": "internal", "message": f"unknown op {op!r}"})
            return True
        except BaseException as exc:  # noqa: BLE001 - everything the solution raises is reported
            return self.report_failure(exc)
        finally:
            self.flush_output()

    def next_inputs(self, header: dict, blobs) -> None:
        """A LeetGPU test's values for the next timed calls, drawn again by the judge (its generator cannot
        run here): the template that ``arguments`` copies from now on (benchmark_stage.TimedCalls.send_inputs).
        The last call's template goes first: a large test's two copies need not fit at once."""
        self.template = None
        self.template = self.shipped_arguments(header, blobs)
        self.outputs_kept = shipped.kept_outputs(self.spec.parameters, header["inputs"])
        self.reply({"ok": True, "op": "inputs"})

    def bench_step(self, op: str, header: dict) -> None:
        """One step of the judge-driven timed loop: a timed call, its outputs, or the end."""
        if op == "time":
            self.reply(self.loop.time(int(header["seed"])))
        elif op == "send":
            self.loop.send_outputs()
        else:
            self.reply(self.loop.done())
            self.loop = None

    def timer_stream(self):
        """The stream every timed call is recorded on: the worker's current stream before the solution
        loaded (integrity.ProcessState), whatever stream the solution has made current since."""
        if self.state is not None and self.state.gpu:
            self.state.restore()
            return self.state.stream
        return torch.cuda.current_stream() if self.gpu else None

    def arguments(self, params: dict, seed: int, arena: Arena | None = None) -> list:
        """A call's arguments, guarded and sealed: drawn from ``seed``, or copies of the bench request's
        shipped inputs.  ``arena``: the previous call's buffers, written again (Arena.again)."""
        self.forget_last_call()
        arena = arena.again() if arena is not None else Arena(self.device)
        if self.template is not None:
            args = shipped.fresh_arguments(self.spec.parameters, self.template, arena.empty, self.outputs_kept)
        elif self.kernelbench is not None:  # the problem's own get_inputs, from the seed
            args = self.kernelbench.arguments(seed, arena.empty)
        else:
            args = tensor_args.make_arguments(self.spec, params, seed, self.device, arena.empty)
        return self.seal(args, arena)

    def shipped_arguments(self, header: dict, blobs, arena: Arena | None = None) -> list:
        self.forget_last_call()
        args = shipped.arguments_from_payload(self.spec.parameters, header["inputs"], list(blobs), self.device,
                                              arena.empty if arena else None)
        return self.seal(args, arena) if arena else args

    def forget_last_call(self) -> None:
        """Before a draw: the previous call's tensors and what solve() hung on them go now, and then the window
        closes, so a finalizer of the solution's (weakref.finalize, a __del__) that their end runs sees no
        new input, and what it set up is undone (draw_window.py).  A tensor the arena hands out again lives
        on, as the judge's plain tensor."""
        self.moved_attributes = []
        self.sealed, self.weights = None, []
        self.window.close()
        if self.fingerprint is not None:  # the draw runs the judge's code too: as it was (put back, and named)
            self.window.problems += self.code_kept()

    def keep_tensors_plain(self) -> None:
        """Right after solve() returned, before any of the judge's code touches its tensors: a class solve()
        gave one (a subclass whose __torch_function__ would run inside the judge's checks, after the clock) is
        taken back and named; attributes it set on one (an instance attribute shadows a method the judge
        calls) are moved away, and dropped before the next draw (forget_last_call)."""
        if self.sealed is None:
            return
        for name, tensor in self.sealed[1]:
            kind = type(tensor)
            if kind is not _PLAIN:
                _set_class(tensor, _PLAIN)
                self.changed_tensors.append(f"'{name}' (made a {kind.__module__}.{kind.__qualname__})")
            attributes = _instance_dict(tensor)
            if attributes:
                self.moved_attributes.append(dict(attributes))
                attributes.clear()

    def seal(self, args: list, arena: Arena) -> list:
        named = [(p.name, args[i]) for i, p in tensor_args.tensor_params(self.spec)]
        self.sealed = (arena, named, Seal(named), args)
        # A model's weights as the call gets them: sent back after a test, for the judge to see them unchanged.
        self.weights = [(f"{p.name}.{inner}", value) for i, p in enumerate(self.spec.parameters)
                        if isinstance(p, Module) for inner, value in shipped_module.tensors(args[i], buffers=False)]
        return args

    def restore_state(self) -> None:
        """torch's per-call state as it was before the solution loaded (integrity.ProcessState)."""
        if self.state is not None:
            self.state.restore()

    def before_solve(self) -> None:
        """Right before solve() is called (every call site: timed_call, timed_loop.measured_call,
        kernel_trace): the window closed since the last call opens (draw_window.py: the collector back on)."""
        self.window.open()

    def after_solve(self) -> None:
        """Right after solve() returned, before the synchronize (timed_loop.measured_call calls it after the
        end event): what only that moment shows, a CUDA C++ library's native threads (cuda_solve.py), and
        the solution's Python threads still running as it returned (``threads_left``: one that sleeps and
        writes later ended before the check on a busy machine, and its case was accepted in one run of ten)."""
        self.keep_tensors_plain()
        self.threads_at_return = self._solution_threads()
        after = getattr(self.solve, "after_call", None)
        if after is not None:
            after()
        if self.kernelbench is not None and self.sealed is not None:  # forward's returned tensors are the outputs
            self.kernelbench.place_results(self.sealed[3])

    def check_call(self) -> None:
        """After every call, outside any timed region: the judge's code is as it was, torch's state
        is set back, the arguments still view the judge's buffers and nothing wrote outside them
        (integrity.py, guarded.py).  Raises ArgumentsTampered."""
        threads = self.threads_left()
        problems = self.code_kept() + threads + self.modes_left() + self.window.take_problems()
        if self.changed_tensors:
            problems.append(f"solve() changed the class of the judge's tensor {', '.join(self.changed_tensors)}: its "
                            "methods would run the solution's code inside the judge's checks, after the clock")
            self.changed_tensors = []
        self.restore_state()
        if threads:  # it runs on between the calls, where nothing else of the solution's may: this worker ends
            raise ArgumentsTampered("\n".join(problems), fatal=True)
        if self.sealed is None:
            if problems:
                raise ArgumentsTampered("\n".join(problems))
            return
        arena, named, seal, _ = self.sealed
        problems += seal.broken()
        if not problems:
            problems = [v.message() for v in arena.violations(named)]
        if self.device.startswith("cuda"):
            problems += self.memory_share_kept()
        if problems:
            raise ArgumentsTampered("\n".join(problems))

    @staticmethod
    def tampered(message: str) -> "ArgumentsTampered":
        """The error for a call that broke the judge's rules (reported as a runtime error, message as is)."""
        return ArgumentsTampered(message)

    def threads_left(self) -> list[str]:
        """Threads of the solution's still running after a call (Python's; a CUDA library's native ones).  Their
        work is not timed (a thread that wrote the outputs between the call's synchronize and its digest was
        accepted: the red team)."""
        if self.judge_threads is None:
            return []
        native = self.solve.left_running() if hasattr(self.solve, "left_running") else []  # a CUDA C++ library's
        left = {**self.threads_at_return, **self._solution_threads()}
        self.threads_at_return = {}
        alive = [name for ident, name in left.items() if ident not in self.threads_told]  # each told once
        self.threads_told |= set(left)
        return native + ([f"solve() left {len(alive)} thread(s) of its own running ({', '.join(alive[:4])}): a call's "
                          "work must be done when solve() returns, and work a thread does afterwards is not timed"]
                         if alive else [])

    def _solution_threads(self) -> dict:
        """ident -> name of the Python threads running now that the worker did not start itself."""
        if self.judge_threads is None:
            return {}
        found = {t.ident: t.name for t in threading.enumerate() if t.ident not in self.judge_threads and t.is_alive()}
        for ident in _current_frames():  # a thread of _thread.start_new_thread: threading does not list it
            if ident not in self.judge_threads and ident not in found:
                found[ident] = f"a thread threading does not list ({ident})"
        return found

    @staticmethod
    def modes_left() -> list[str]:
        """A torch function or dispatch mode solve() left behind (or changed): it ran inside the judge's own
        code after the call, where it could finish the outputs untimed (timed_loop.clear_hooks removed it)."""
        return [f"solve() left {what} active: it would run inside the judge's code after the call, so the call's "
                "results and times cannot be trusted" for what in timed_loop.modes_changed()]

    def code_kept(self) -> list[str]:
        """The judge's own code in this process, put back if the solution changed it (integrity.Fingerprint)."""
        changed = self.fingerprint.changed() if self.fingerprint is not None else []
        if not changed:
            return []
        return [f"solve() changed the judge's own code in its process ({', '.join(changed[:6])}"
                f"{' ...' if len(changed) > 6 else ''}): the call's results and times cannot be trusted"]

    def memory_share_kept(self) -> list[str]:
        """The worker's share of the GPU's memory, set again after every call: a solution that raised it
        (torch.cuda.set_per_process_memory_fraction) and took more is stopped here, before the judge's
        reference runs out of memory (judge/judging/runner.py says so when it does anyway)."""
        fraction = float(self.init.get("gpu_memory_fraction", 0.75))
        torch.cuda.set_per_process_memory_fraction(fraction)
        total = torch.cuda.get_device_properties(torch.device(self.device)).total_memory
        held = torch.cuda.memory_reserved(torch.device(self.device))
        if held <= fraction * total:
            return []
        return [f"solve() took {held / 1024**3:.1f} GiB of the GPU's memory, more than the worker's share of "
                f"{fraction:.0%} ({fraction * total / 1024**3:.1f} GiB): the rest is the judge's, for its reference"]

    def sent_tensors(self, args: list) -> list:
        """The tensors to send back: the judge's own buffers, whatever the Python objects point to now."""
        if self.sealed is None or self.sealed[3] is not args:
            return args
        originals = iter(self.sealed[2].originals())
        returned = self.kernelbench.returned if self.kernelbench is not None else frozenset()
        sent = []
        for index, value in enumerate(args):  # a KernelBench output is what forward returned, in its place
            original = next(originals) if isinstance(value, torch.Tensor) else value
            sent.append(value if index in returned else original)
        return sent

    def timed_call(self, args: list) -> float:
        """Run solve() once; milliseconds by CUDA events on GPU, by the host clock on CPU."""
        if not self.gpu:
            self.before_solve()
            start = self.clock()
            self.solve(*args)
            timed_loop.clear_hooks()  # a hook the solution set would run its code inside the judge's
            self.after_solve()
            self.last_call_host_s = self.clock() - start
            return self.last_call_host_s * 1e3
        begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _synchronize()
        begin.record()
        self.before_solve()
        start = self.clock()
        self.solve(*args)
        timed_loop.clear_hooks()
        self.last_call_host_s = self.clock() - start  # how long launching takes: sizes bench's launch guard
        end.record()
        self.after_solve()
        _synchronize()
        return begin.elapsed_time(end)

    def call(self, header: dict, blobs=()) -> None:
        if "inputs" in header:  # the judge built them (judge/challenge/shipped.py)
            args = self.shipped_arguments(header, blobs, Arena(self.device))
        else:
            args = self.arguments(header["params"], int(header["seed"]))
        if header.get("outputs") == "zero":  # the judge's diagnosis of a failure (runner.diagnose_uninitialised)
            kept = shipped.kept_outputs(self.spec.parameters, header["inputs"]) if "inputs" in header else ()
            for index, param in tensor_args.tensor_params(self.spec):
                if param.role == "out" and param.name not in kept:  # kept: they start as the challenge made them
                    args[index].zero_()
        launches.LAUNCHES.reset()
        elapsed_ms = self.timed_call(args)
        own_launches = launches.LAUNCHES.count
        self.check_call()
        header = {"ok": True, "op": "result", "time_ms": elapsed_ms, "own_launches": own_launches}
        if self.cpu_device is not None and self.cpu_device.count:
            header["cuda_on_cpu"] = self.cpu_device.count  # so far, import included: the run's note says so
        if self.cuda_stand_ins is not None and self.cuda_stand_ins.used:
            header["cuda_calls_on_cpu"] = sorted(self.cuda_stand_ins.used)  # likewise
        self.send_tensors(header, args)

    def send_tensors(self, header: dict, args: list, outputs_only: bool = False) -> None:
        """Reply with the tensor arguments' raw bytes, in parameter order: through the
        shared area when the judge made it large enough (judge/worker/area.py), else the pipe."""
        metas, tensors = [], []
        args = self.sent_tensors(args)
        for index, param in tensor_args.tensor_params(self.spec):
            if outputs_only and param.role == "in":
                continue
            metas.append({"name": param.name, "dtype": param.dtype, "shape": list(args[index].shape)})
            tensors.append(args[index])
        for name, value in [] if outputs_only else self.weights:
            metas.append({"name": name, "dtype": _DTYPE_NAMES[value.dtype], "shape": list(value.shape)})
            tensors.append(value.detach())
        header = dict(header, tensors=metas)
        if self.area is not None and self.area.fits(span([t.nbytes for t in tensors])):
            self.await_area_free()
            self.reply(dict(header, area=self.area.write(tensors)))
        else:
            self.reply(header, [_to_bytes(t) for t in tensors])

    def await_area_free(self) -> None:
        """Wait until the judge is done with the area's last contents (its ``area_free``)."""
        if self.area.owed:
            self._await_judge("area_free")

    def _await_judge(self, op: str) -> None:
        """Read the judge's messages up to ``op``; an ``area_free`` on the way releases the area."""
        while True:
            header, _ = protocol.receive(self.request_fd)
            got = header.get("op")
            if got == "area_free" and self.area is not None:
                self.area.owed = False
            if got == op:
                return
            if got != "area_free":
                raise protocol.ProtocolError(f"expected {op} from the judge, got {got!r}")

    def report_failure(self, exc: BaseException) -> bool:
        verdict = "compile_error" if loader.is_compile_error(exc) else "runtime_error"
        if isinstance(exc, (kernelbench_model.WrongReturn, kernelbench_model.TorchTampered)):
            verdict = exc.verdict
        if isinstance(exc, (ArgumentsTampered, kernelbench_model.WrongReturn, kernelbench_model.TorchTampered)):
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
        elif getattr(exc, "fatal", False):
            message += "\n(that thread runs on in the solution's process: a fresh one is started for the next call)"
            healthy = False
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
