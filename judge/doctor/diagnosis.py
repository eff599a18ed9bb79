"""*Pure*: ``judge doctor``'s findings from the facts gathered about this machine (judge/doctor/facts.py).

Each check turns facts into one ``Finding``: ``ok``, ``info`` (worth knowing, nothing to do),
``warn`` (the judge works, something it could do it cannot) or ``fail`` (the judge cannot judge, or
not as the user expects), with the command or setting that fixes it.  Facts are plain data, so every
missing piece can be faked in a test; nothing here looks at the machine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["Facts", "Finding", "diagnose", "exit_status", "text_lines", "document", "STATES"]

STATES = ("ok", "info", "warn", "fail")
TORCH_CPU = "pip install torch==2.13.0  (the CPU wheel; on a GPU machine a CUDA build of torch >= 2.4)"
SANDBOX_FIX = "pip install landlockpy pyseccomp (dependencies of the judge on Linux; reinstall it: pip install -e .)"


@dataclass
class Facts:
    """What the doctor found.  Versions are strings (None: not installed); probes are dicts."""

    python: str = ""
    python_ok: bool = True
    judge_root: str = ""
    packages: dict = field(default_factory=dict)  # module -> version or None
    torch_cuda: str | None = None  # the CUDA torch was built with; None: a CPU build (or no torch)
    gpus: list = field(default_factory=list)  # names of the CUDA devices torch sees
    driver: str | None = None  # the NVIDIA driver's version, where one answers
    nvcc: str | None = None  # "path (release x.y)", None when not found
    sandbox: dict = field(default_factory=dict)  # layer -> "on (...)" or "off: why"
    sandbox_opt_out: bool = False  # JUDGE_SANDBOX=0
    probe_alone: dict | None = None  # {"verdict", "message", "mode"} of the tiny kernel judged alone
    probe_served: dict | None = None  # the same through the judge server; {"skipped": why} when not run
    servers: list = field(default_factory=list)  # {"pid", "socket", "here", "answering", "current", "triton_mode"}
    server_allowed: bool = True  # not JUDGE_SERVER=0, not CI
    chromium: str | None = None
    chromedriver: str | None = None
    folders: dict = field(default_factory=dict)  # "cache"/"history" -> {"path", "writable"}


@dataclass(frozen=True)
class Finding:
    check: str
    state: str  # one of STATES
    detail: str
    fix: str = ""


def diagnose(facts: Facts) -> list[Finding]:
    """Every check, in the order a user with a problem should read them."""
    return [_python(facts), *_packages(facts), _gpu(facts), _nvcc(facts), _sandbox(facts),
            _probe("kernel, alone", facts.probe_alone, facts),
            _probe("kernel, through the judge server", facts.probe_served, facts), _servers(facts),
            _browser(facts), *_folders(facts)]


def exit_status(findings: list[Finding]) -> int:
    """0 when nothing failed, 1 otherwise."""
    return 1 if any(f.state == "fail" for f in findings) else 0


def _python(facts: Facts) -> Finding:
    if not facts.python_ok:
        return Finding("python", "fail", f"Python {facts.python}: the judge needs 3.10 or newer",
                       "install Python >= 3.10 and the judge in a virtual environment of it")
    return Finding("python", "ok", f"Python {facts.python}; judge at {facts.judge_root}")


def _packages(facts: Facts) -> list[Finding]:
    needed = {"torch": TORCH_CPU, "triton": "pip install triton",
              "numpy": "pip install numpy (Triton's interpreter, CPU mode, imports it)",
              "click": "pip install click", "rich": "pip install rich", "yaml": "pip install pyyaml"}
    found = []
    for module, fix in needed.items():
        version = facts.packages.get(module)
        found.append(Finding(module, "ok", version) if version else
                     Finding(module, "fail", "not installed: the judge cannot judge without it", fix))
    optional = {"matplotlib": "plot", "watchfiles": "watch", "dask": "cluster", "flask": "ui", "selenium": "browser"}
    missing = [f"{m} ([{extra}])" for m, extra in optional.items() if not facts.packages.get(m)]
    if missing:
        found.append(Finding("optional extras", "info", "not installed: " + ", ".join(missing),
                             "pip install -e '.[plot,watch,cluster,ui,browser]' for all of them"))
    return found


def _gpu(facts: Facts) -> Finding:
    if not facts.packages.get("torch"):
        return Finding("gpu", "info", "unknown without torch")
    if facts.gpus:
        driver = f", driver {facts.driver}" if facts.driver else ""
        return Finding("gpu", "ok", f"{', '.join(facts.gpus)} (torch built for CUDA {facts.torch_cuda}{driver}): "
                                    "GPU mode, with timings")
    if facts.torch_cuda is None:
        return Finding("gpu", "info", "a CPU build of torch: CPU mode (Triton's interpreter) judges correctness, "
                                      "without timings", "on a machine with an NVIDIA GPU, a CUDA build of torch")
    why = f"driver {facts.driver} answers, but " if facts.driver else "no NVIDIA driver answers and "
    return Finding("gpu", "warn", f"torch is built for CUDA {facts.torch_cuda}, but {why}torch sees no device: "
                                  "CPU mode only", "check nvidia-smi and CUDA_VISIBLE_DEVICES")


def _nvcc(facts: Facts) -> Finding:
    if facts.nvcc:
        return Finding("nvcc", "ok", f"{facts.nvcc}: CUDA C++ solutions can be built")
    if not facts.gpus:
        return Finding("nvcc", "info", "not found; CUDA C++ solutions need a GPU and nvcc anyway")
    return Finding("nvcc", "warn", "not found: CUDA C++ (.cu) solutions cannot be built",
                   "install the CUDA toolkit, or set CUDA_HOME to it (nvcc in $CUDA_HOME/bin)")


def _sandbox(facts: Facts) -> Finding:
    layers = "; ".join(f"{name} {state}" for name, state in facts.sandbox.items()) or "unknown"
    if facts.sandbox_opt_out:
        return Finding("sandbox", "warn", f"turned off (JUDGE_SANDBOX=0 or JUDGE_NAMESPACES=0): every report says "
                                          f"UNSEALED, and judge grade refuses to grade ({layers})",
                       "unset JUDGE_SANDBOX and JUDGE_NAMESPACES")
    off = [name for name, state in facts.sandbox.items() if str(state).startswith("off")]
    if not facts.sandbox or off:
        fix = SANDBOX_FIX if any("not installed" in str(facts.sandbox.get(n, "")) for n in off) else \
            "a Linux kernel >= 5.13 with Landlock in its LSM list, and seccomp"
        return Finding("sandbox", "warn", f"incomplete: {layers}. Solutions run less confined; every report says "
                                          "so and judge grade refuses to grade", fix)
    return Finding("sandbox", "ok", layers)


def _probe(check: str, probe: dict | None, facts: Facts) -> Finding:
    if probe is None:
        return Finding(check, "info", "not run")
    if probe.get("skipped"):
        return Finding(check, "info", f"not run: {probe['skipped']}")
    what = f"a Triton matmul with tl.dot and tl.sum, {probe.get('mode', '?')} mode"
    if probe.get("verdict") == "accepted":
        return Finding(check, "ok", f"{what}: accepted in {probe.get('seconds', 0):.1f} s")
    fix = ("judge server stop, then run again (JUDGE_SERVER=0 judges without the server); please report it with "
           "this output" if "server" in check else "see the message; 'judge --debug run ...' shows more")
    return Finding(check, "fail", f"{what}: {probe.get('verdict')}: {probe.get('message', '')}"[:600], fix)


def _servers(facts: Facts) -> Finding:
    if not facts.server_allowed:
        return Finding("judge server", "info", "off here (JUDGE_SERVER=0 or $CI set): every command starts alone")
    stale = [s for s in facts.servers if not s.get("answering") or not s.get("current")]
    here = [s for s in facts.servers if s.get("here") and s.get("answering")]
    desc = "; ".join(f"pid {s['pid']} ({'this checkout' if s.get('here') else s.get('socket')}"
                     f"{', ' + s['triton_mode'] if s.get('triton_mode') else ''})" for s in facts.servers)
    if stale:
        return Finding("judge server", "warn", f"{len(stale)} not answering or out of date: {desc}",
                       "judge server stop --all (the next judge run starts a fresh one)")
    if here:
        return Finding("judge server", "ok", desc)
    return Finding("judge server", "info", (desc + "; " if desc else "") +
                   "none for this checkout: the next judge run starts one")


def _browser(facts: Facts) -> Finding:
    if facts.chromium and facts.chromedriver:
        return Finding("chromium", "ok", f"{facts.chromium}, {facts.chromedriver}: judge ui's browser tests can run")
    return Finding("chromium", "info", "Chromium or its driver not found: only judge ui's browser tests need them",
                   "apt-get install chromium chromium-driver")


def _folders(facts: Facts) -> list[Finding]:
    found = []
    for name, folder in facts.folders.items():
        if folder.get("writable"):
            found.append(Finding(name, "ok", folder["path"]))
        else:
            found.append(Finding(name, "fail", f"{folder['path']} cannot be written",
                                 "JUDGE_HOME, JUDGE_CACHE_DIR or JUDGE_DATA_DIR to a folder of yours"))
    return found


def text_lines(findings: list[Finding]) -> list[str]:
    """The report as plain lines: ``[ok]   torch  2.13.0``, a fix indented under what needs one."""
    width = max((len(f.check) for f in findings), default=0)
    lines = []
    for f in findings:
        lines.append(f"[{f.state}]{' ' * (5 - len(f.state))}{f.check.ljust(width)}  {f.detail}")
        if f.fix and f.state != "ok":
            lines.append(f"{' ' * (8 + width)}fix: {f.fix}")
    failed = sum(f.state == "fail" for f in findings)
    warned = sum(f.state == "warn" for f in findings)
    lines.append(f"{failed} problem(s), {warned} warning(s)" if failed or warned else "no problems found")
    return lines


def document(facts: Facts, findings: list[Finding]) -> dict:
    """``judge doctor --json``: the facts and the findings."""
    return {"schema": 1, "ok": exit_status(findings) == 0, "findings": [asdict(f) for f in findings],
            "facts": asdict(facts)}
