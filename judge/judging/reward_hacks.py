"""Named rules for the known reward hacks of generated kernels (docs/kernelbench.md, issue 47), each
with a one-line rationale that the report shows when it fires, as KernelBench's static checker
(src/kernelbench/kernel_static_checker.py) and GPU MODE's kernelguard name theirs.

Most rules name what the judge's checks already catch (the check says what it found; the rule
says which hack that is); a few read the solution's source (``static_findings``, with ``ast``,
never running it): a try/except that falls back to torch, patched timers, other CUDA streams,
threads, casts to a lower precision.  A static finding alone rejects nothing: the fallback
rejects a call only where that call also launched none of the solution's kernels (the runner's
evidence), and streams and patched timers cannot fool the judge's timer, so they are noted.

Pure: source text and messages in, findings out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["Rule", "RULES", "Finding", "static_findings", "rule_of_message", "defines_triton_kernel", "rule_note"]


@dataclass(frozen=True)
class Rule:
    name: str
    rationale: str


RULES = {rule.name: rule for rule in (
    Rule("beyond-kernelbench-inputs", "KernelBench's get_inputs() draws torch.rand (all in [0, 1)): an answer wrong for "
                                      "negative, wider or tied inputs (a ReLU that returns x) passes its five trials"),
    Rule("degenerate-output", "where every reference value lies within atol of zero, zeros pass the tolerance "
                              "(KernelBench#165): such an output is judged relative to its own scale"),
    Rule("seed-independent-output", "an output that stays bit-identical while the reference's changes ignores its "
                                    "inputs: a constant, or a result kept from an earlier call"),
    Rule("fallback-to-reference", "a try/except that returns torch's answer when the kernel fails passes every check "
                                  "while the kernel never runs (KernelBench's code_bypass)"),
    Rule("precision-downgrade", "an answer computed in float16 or bfloat16 is faster, not the same answer; atol hides "
                                "its rounding on small outputs (KernelBench's precision_downgrade)"),
    Rule("output-reuse", "an output that aliases an input or the previous call's output is a cache, not a "
                         "computation"),
    Rule("input-modified", "a kernel that writes its inputs (KernelBench's zero_out_kernel) can make a later "
                           "reference agree with it"),
    Rule("lazy-output", "a tensor subclass runs code when the harness reads it, after the timer stopped "
                        "(KernelBench's lazy_tensor)"),
    Rule("draw-patch", "a solution that patches the functions that draw the inputs sees them before its call and "
                       "computes the answer untimed"),
    Rule("side-stream", "work on another CUDA stream escapes timers that record events on the current stream "
                        "(KernelBench#82, its stream_injection); the judge synchronizes the whole device and audits "
                        "its events with the host clock, so that work is timed"),
    Rule("timing-patch", "patched timers (torch.cuda.Event.elapsed_time, synchronize, time.perf_counter) fake the "
                         "measurement (KernelBench's timing_event_patch); the judge bound its own before the solution "
                         "loaded, so they change nothing"),
    Rule("thread-injection", "a thread of the solution's can work outside the timed call (KernelBench's "
                             "thread_injection); the judge ends a worker that leaves one running after a call"),
)}


@dataclass(frozen=True)
class Finding:
    """What one rule found in the solution's source: the line and a few words of evidence."""

    rule: str
    line: int
    evidence: str

    def text(self) -> str:
        return f"{self.evidence} (line {self.line})"


def rule_note(name: str, evidence: str) -> str:
    """The report's line for a rule that fired: its name, its rationale, and what set it off."""
    return f"rule {name}: {RULES[name].rationale}; here: {evidence}"


# -- messages of the judge's own checks, by rule ------------------------------------------------
_MESSAGES = (
    ("shares memory with the previous call's output", "output-reuse"),
    ("shares memory with an input", "output-reuse"),
    ("(a subclass of torch.Tensor)", "lazy-output"),
    ("a lower precision is no speed-up", "precision-downgrade"),
    ("which the judge's draw of the inputs runs", "draw-patch"),
    ("was modified:", "input-modified"),
)


def rule_of_message(message: str) -> str | None:
    """The rule a failure's message (written by the judge's own checks) is an instance of, else None."""
    return next((rule for words, rule in _MESSAGES if words in message), None)


# -- the solution's source -----------------------------------------------------------------------
_TORCH_ROOTS = ("torch.", "F.", "nn.", "functional.")
_TIMERS = ("torch.cuda.Event", "torch.cuda.synchronize", "torch.cuda.elapsed_time", "torch.cuda.Event.elapsed_time",
           "torch.cuda.Event.record", "torch.cuda.Event.synchronize", "torch.cuda.current_stream", "time.perf_counter",
           "time.perf_counter_ns", "time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns",
           "triton.testing.do_bench", "torch.synchronize", "torch.cuda.Stream.synchronize")
_STREAMS = ("torch.cuda.Stream", "torch.cuda.stream", "torch.Stream", "torch.cuda.ExternalStream", "torch.stream")
_THREADS = ("threading.Thread", "Thread", "_thread.start_new_thread", "ThreadPoolExecutor",
            "concurrent.futures.ThreadPoolExecutor", "threading.Timer")
_LOWER = ("torch.float16", "torch.half", "torch.bfloat16")


def _dotted(node: ast.AST) -> str:
    """``torch.cuda.synchronize`` for that attribute chain, ``super().forward`` for a call on super(); else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        return "super()"
    return ""


def static_findings(source: str) -> list[Finding]:
    """Every finding of the source rules in ``source``, in line order; none for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            found += _fallbacks(node)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [Finding("timing-patch", node.lineno, f"assigns {_dotted(t)}") for t in targets
                      if _dotted(t) in _TIMERS]
        elif isinstance(node, ast.Call):
            found += _call_findings(node)
    return sorted(set(found), key=lambda f: (f.line, f.rule, f.evidence))


def _call_findings(node: ast.Call) -> list[Finding]:
    name = _dotted(node.func)
    if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
        target = f"{_dotted(node.args[0])}.{node.args[1].value}"
        return [Finding("timing-patch", node.lineno, f"sets {target}")] if target in _TIMERS else []
    if name in _STREAMS or name.endswith((".wait_stream", ".record_stream")):
        return [Finding("side-stream", node.lineno, f"calls {name}")]
    if name in _THREADS:
        return [Finding("thread-injection", node.lineno, f"calls {name}")]
    lower = name.endswith((".half", ".bfloat16")) or any(
        _dotted(a) in _LOWER for a in [*node.args, *(k.value for k in node.keywords)])
    if lower:
        return [Finding("precision-downgrade", node.lineno, f"casts to a lower precision ({name or 'a call'})")]
    return []


def _fallbacks(node: ast.Try) -> list[Finding]:
    """A try whose except computes with torch (or calls a forward) instead of re-raising: a fallback."""
    found = []
    for handler in node.handlers:
        if _only_import_errors(handler) or _reraises(handler):
            continue
        calls = [_dotted(c.func) for c in ast.walk(handler) if isinstance(c, ast.Call)]
        torch_calls = [c for c in calls if c.startswith(_TORCH_ROOTS) or c.endswith(".forward") or c == "Model"]
        if torch_calls:
            found.append(Finding("fallback-to-reference", handler.lineno,
                                 f"the except falls back to {torch_calls[0]}"))
    return found


def _only_import_errors(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type else []
    return bool(names) and all(_dotted(n) in ("ImportError", "ModuleNotFoundError") for n in names)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return bool(handler.body) and isinstance(handler.body[-1], ast.Raise)


def defines_triton_kernel(source: str) -> bool:
    """Whether ``source`` defines a function decorated with triton.jit (or triton.autotune / heuristics)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                name = _dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if name in ("triton.jit", "jit", "triton.autotune", "triton.heuristics"):
                    return True
    return False
