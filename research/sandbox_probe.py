"""Does the worker's sandbox (judge/worker/sandbox.py) leave CUDA, PyTorch and Triton working,
and does it stop what it should?  One child process per question, on this machine.

    python research/sandbox_probe.py [--gpu]

The child makes its CUDA context and compiles one Triton kernel first (as the worker does
before the solution loads), then applies the sandbox, then compiles a kernel of a new
signature, runs cuBLAS, events and the allocator, and tries each forbidden thing.  Prints
one JSON document.  docs/security.md has what it found.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def attempt(results: dict, name: str, action) -> None:
    try:
        value = action()
        results[name] = f"ALLOWED {str(value)[:80]}"
    except BaseException as exc:  # noqa: BLE001
        results[name] = f"denied: {type(exc).__name__}: {str(exc)[:100]}"


def child(scratch: str, judge_pid: int, gpu: bool) -> dict:
    results: dict = {}
    t0 = time.perf_counter()
    import torch
    import triton
    import triton.language as tl

    device = "cuda" if gpu else "cpu"

    @triton.jit
    def add_one(x, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x + offsets, tl.load(x + offsets, mask=offsets < n) + 1, mask=offsets < n)

    x = torch.zeros(1000, device=device)
    add_one[(4,)](x, 1000, BLOCK=256)
    results["before_sandbox_kernel"] = float(x.sum())
    results["import_and_first_kernel_s"] = round(time.perf_counter() - t0, 2)

    from judge.worker import sandbox

    os.environ["TRITON_CACHE_DIR"] = str(Path(scratch) / "solution-triton")
    os.environ["TMPDIR"] = str(Path(scratch) / "tmp")
    Path(os.environ["TMPDIR"]).mkdir(exist_ok=True)
    tempfile.tempdir = None
    policy = sandbox.policy_for(str(ROOT / "solutions"), scratch, writable=(os.environ["TRITON_CACHE_DIR"],))
    t1 = time.perf_counter()
    results["applied"] = sandbox.apply(policy)
    results["apply_ms"] = round((time.perf_counter() - t1) * 1e3, 2)

    @triton.jit
    def scale(x, y, n, factor, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(y + offsets, (tl.load(x + offsets, mask=mask) * factor).to(y.dtype.element_ty), mask=mask)

    def new_kernel():
        a = torch.rand(5000, device=device, dtype=torch.float64)
        b = torch.empty(5000, device=device, dtype=torch.float16)
        scale[(triton.cdiv(5000, 128),)](a, b, 5000, 3.0, BLOCK=128)
        return float((b.double() - 3 * a).abs().max())

    attempt(results, "after_sandbox_new_kernel", new_kernel)
    attempt(results, "cublas_matmul", lambda: float((torch.rand(512, 512, device=device) @ torch.rand(512, 512, device=device)).sum()))
    if gpu:
        def events():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); torch.rand(4096, 4096, device="cuda").sum(); b.record(); torch.cuda.synchronize()
            return a.elapsed_time(b)
        attempt(results, "cuda_events", events)
        attempt(results, "big_alloc_1GiB", lambda: torch.empty(1 << 28, device="cuda").fill_(1).sum().item())
        attempt(results, "memory_fraction", lambda: torch.cuda.set_per_process_memory_fraction(0.75))
        attempt(results, "new_stream", lambda: torch.cuda.Stream().query())
    attempt(results, "read_own_solution_dir", lambda: len(os.listdir(ROOT / "solutions")))
    attempt(results, "write_scratch", lambda: (Path(scratch) / "ok.txt").write_text("ok"))
    # What it must not do:
    secret = Path(os.environ.get("PROBE_SECRET", "/nonexistent"))
    attempt(results, "read_secret_beside_grader", lambda: secret.read_text())
    attempt(results, "list_repo_root", lambda: os.listdir(ROOT))
    attempt(results, "read_repo_readme", lambda: (ROOT / "README.md").read_text()[:20])
    attempt(results, "write_repo", lambda: (ROOT / "research" / "probe-was-here.txt").write_text("x"))
    attempt(results, "read_home", lambda: os.listdir(Path.home()))
    attempt(results, "write_tmp", lambda: Path("/tmp/probe-was-here").write_text("x"))
    attempt(results, "etc_shadow", lambda: Path("/etc/shadow").read_text()[:10])
    attempt(results, "judge_fd1", lambda: open(f"/proc/{judge_pid}/fd/1", "w").write(""))
    attempt(results, "judge_environ", lambda: Path(f"/proc/{judge_pid}/environ").read_bytes()[:20])
    attempt(results, "judge_mem", lambda: open(f"/proc/{judge_pid}/mem", "rb").read(1))
    attempt(results, "judge_cmdline", lambda: Path(f"/proc/{judge_pid}/cmdline").read_bytes()[:20])
    attempt(results, "signal_judge_0", lambda: os.kill(judge_pid, 0))
    attempt(results, "signal_all_0", lambda: os.kill(-1, 0))
    attempt(results, "unix_socket", lambda: socket.socket(socket.AF_UNIX).connect("/tmp/.X11-unix/X0"))
    attempt(results, "tcp_socket", lambda: socket.create_connection(("127.0.0.1", 22), timeout=1))
    attempt(results, "unshare_user", lambda: os.unshare(os.CLONE_NEWUSER) if hasattr(os, "unshare") else "no os.unshare")
    def fork_and_wait():
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        return os.waitpid(pid, 0)[1] >> 8

    attempt(results, "fork_and_wait", fork_and_wait)
    attempt(results, "subprocess_gcc", lambda: subprocess.run(["gcc", "--version"], capture_output=True).returncode)
    attempt(results, "thread", lambda: __import__("threading").Thread(target=lambda: None).start())
    return results


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        try:
            out = child(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")
        except BaseException as exc:  # noqa: BLE001
            out = {"crashed": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(out), flush=True)
        os._exit(0)
    gpu = "--gpu" in sys.argv
    from judge.worker import sandbox

    report = {"available": sandbox.available(), "uid": os.getuid(), "kernel": os.uname().release}
    secret_dir = Path(tempfile.mkdtemp(prefix="probe-grader-"))
    (secret_dir / "SECRET.txt").write_text("SECRET_TOKEN=hunter2")
    with tempfile.TemporaryDirectory(prefix="probe-worker-") as scratch:
        env = dict(os.environ, PROBE_SECRET=str(secret_dir / "SECRET.txt"), PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        if not gpu:
            env["TRITON_INTERPRET"] = "1"
        proc = subprocess.Popen([sys.executable, __file__, "child", scratch, str(os.getpid()), "1" if gpu else "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=scratch, text=True)
        out, err = proc.communicate(timeout=600)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    report["child"] = json.loads(lines[-1]) if lines else {"no output": err[-3000:]}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
