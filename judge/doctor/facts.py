"""What ``judge doctor`` looks at on this machine (its findings come from judge/doctor/diagnosis.py).

Everything that can fail is looked at from the outside: the packages by their metadata and import
path, the GPU through torch in this process (the doctor is a command, never a process the judge
server forks from), nvcc where ``judge run`` finds it, the sandbox as the judge reports it, and a
tiny Triton matmul (judge/doctor/probe_matmul.py: tl.dot, tl.sum) judged by ``python -m judge run``
exactly as a user types it: once alone (``JUDGE_SERVER=0``) and once through this checkout's judge
server, started for it as a ``judge run`` would start one where none runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from judge.doctor.diagnosis import Facts

__all__ = ["gather", "PROBE", "PACKAGES"]

PROBE = Path(__file__).with_name("probe_matmul.py")
PACKAGES = ("torch", "triton", "numpy", "click", "rich", "yaml", "landlockpy", "pyseccomp", "matplotlib",
            "watchfiles", "dask", "flask", "nh3", "selenium")
_DISTRIBUTIONS = {"yaml": "pyyaml"}


def gather(probe: bool = True) -> Facts:
    """The facts; ``probe``: judge the probe kernel too (seconds: two judge runs, maybe a server start)."""
    from judge.server import autostart, compat

    facts = Facts(python=sys.version.split()[0], python_ok=sys.version_info >= (3, 10), judge_root=compat.PACKAGE_ROOT,
                  packages={m: _version(m) for m in PACKAGES}, server_allowed=autostart.allowed(),
                  chromium=shutil.which("chromium") or shutil.which("chromium-browser"),
                  chromedriver=shutil.which("chromedriver"), folders=_folders())
    if facts.packages.get("torch"):
        _gpu(facts)
    facts.nvcc = _nvcc()
    _sandbox(facts)
    if probe and facts.packages.get("torch") and facts.packages.get("triton"):
        facts.probe_alone = judge_probe(served=False)
        facts.probe_served = _served_probe(facts)
    facts.servers = _servers()
    return facts


def _version(module: str) -> str | None:
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except (ImportError, ValueError):
        return None
    from importlib import metadata

    try:
        return metadata.version(_DISTRIBUTIONS.get(module, module))
    except metadata.PackageNotFoundError:
        return "installed"


def _gpu(facts: Facts) -> None:
    import torch

    facts.torch_cuda = torch.version.cuda
    if torch.cuda.is_available():
        facts.gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            done = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                                  text=True, timeout=20)
            facts.driver = done.stdout.split("\n")[0].strip() or None if done.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            pass


def _nvcc() -> str | None:
    from judge.worker.cuda_build import find_nvcc

    nvcc = find_nvcc()
    if nvcc is None:
        return None
    try:
        done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
        release = next((line.split("release")[1].split(",")[0].strip() for line in done.stdout.splitlines()
                        if "release" in line), "?")
    except (OSError, subprocess.TimeoutExpired, IndexError):
        release = "?"
    return f"{nvcc} (release {release})"


def _sandbox(facts: Facts) -> None:
    from judge.defence.policy import availability

    facts.sandbox, facts.sandbox_opt_out = availability()


def _folders() -> dict:
    from judge.base.paths import cache_dir, data_dir

    found = {}
    for name, folder in (("cache", cache_dir()), ("history", data_dir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            writable = os.access(folder, os.W_OK)
        except OSError:
            writable = False
        found[name] = {"path": str(folder), "writable": writable}
    return found


def judge_probe(served: bool) -> dict:
    """``judge run matmul <probe> --seed 1 --no-bench --no-history --json`` in a fresh process, alone or as
    this user's commands go (through the server when one answers); its verdict, message and time."""
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_SERVER"}
    if not served:
        env["JUDGE_SERVER"] = "0"
    argv = [sys.executable, "-m", "judge", "run", "matmul", str(PROBE), "--seed", "1", "--no-bench", "--no-history",
            "--json"]
    started = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"verdict": "did not finish", "message": str(exc)}
    seconds = time.monotonic() - started
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        tail = " ".join(done.stderr.strip().splitlines()[-3:])
        return {"verdict": f"exit status {done.returncode}", "message": tail, "seconds": seconds}
    return {"verdict": doc.get("verdict"), "message": doc.get("message", ""), "mode": doc.get("mode"),
            "seconds": seconds}


def _served_probe(facts: Facts) -> dict:
    """The probe through this checkout's server: one is started (as a judge run starts one) if none runs;
    the server's count of commands must grow, or it was not served."""
    from judge.server import client
    from judge.server.starter import ServerStartError, start

    if not facts.server_allowed:
        return {"skipped": "the judge server is off here (JUDGE_SERVER=0 or $CI set)"}
    try:
        start(15 * 60.0)  # a running one of this code is kept
    except (ServerStartError, OSError) as exc:
        return {"verdict": "no server", "message": f"the judge server did not start: {exc}"}
    before = (client.ask("status") or {}).get("served", 0)
    result = judge_probe(served=True)
    after = (client.ask("status") or {}).get("served", 0)
    if after != before + 1:
        return {"verdict": "not served", "message": "the server refused the command (judge --debug run ... says why)"}
    return result


def _servers() -> list[dict]:
    from judge.server import census, compat

    here = str(compat.socket_path())
    found = []
    for server in census.find_servers():
        status = server.status or {}
        found.append({"pid": server.pid, "socket": server.socket, "here": server.socket == here,
                      "answering": bool(status),  # another checkout's server has other code: not out of date
                      "current": bool(status.get("fingerprint_ok")) or server.socket != here if status else False,
                      "triton_mode": status.get("triton_mode")})
    return found
