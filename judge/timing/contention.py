"""Is anyone else using the GPU while the judge times?  (docs/timing.md, "A shared GPU")

On a shared GPU (a lab's, a second ``judge watch``) the timed calls share the
SMs and the memory with someone else's kernels: an H100 running another
process's fp32 matmuls read the tuned transpose 16-29x slow, with no word of
it.  Around each case's timed calls the judge, in its own process:

- takes its **turn**: a lock per GPU (``gpu_turn``), held while it judges (tests
  and timing: a second judge's functional tests would run beside the first's timed
  calls), so two judges on one GPU go one after the other instead of spoiling each
  other's numbers;
- times a **calibration**: 16 copies of 256 MiB back to back (about 2 ms), by
  the host clock from their launch to a synchronize, three times, and compares
  the median with the copy peak measured on this device (peaks.py): slower by
  more than ``SLOWDOWN`` means someone else's work ran beside it.  By the host
  clock, because the GPU gives each process time slices: on an H200 busy with
  another process's matmuls, CUDA events around these copies read 1.00x (they
  ran within one slice, after a wait the events do not see) while the judge's
  timed calls, which outlast a slice, read 30x;
- asks the driver (NVML, through ``pynvml`` where it is installed, else
  ``nvidia-smi``) which **other compute processes** hold the GPU (only those
  visible in this PID namespace: inside a container NVML may report the
  host's), named as the likely cause when the calibration is slow.

A case measured on a contended GPU keeps its time but says so
(``contention`` in the JSON, a note), and such a run is not stored in the
history or the leaderboard.  ``--wait-for-gpu S`` waits up to S seconds for the
other processes to leave before timing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from contextlib import contextmanager
from typing import Iterator

__all__ = ["gpu_turn", "Probe", "other_processes", "wait_for_gpu", "contention_note", "SLOWDOWN"]

SLOWDOWN = 1.15  # the calibration copy this much slower than the device's copy peak: contended
CALIBRATION_BYTES = 256 * 1024**2
CALIBRATION_COPIES = 16


def contention_note(before: dict, after: dict) -> str:
    """What a case's checks found, as one sentence ("" when the GPU was the judge's alone).  Pure.

    The calibration decides: a process that merely holds a CUDA context (an idle notebook, another
    judge waiting for its turn) costs nothing; the other processes are named as the likely cause."""
    slow = [check["slowdown"] for check in (before, after) if (check.get("slowdown") or 0) > SLOWDOWN]
    if not slow:
        return ""
    found = [f"a calibration copy {max(slow):.2f}x slower than this GPU's measured copy peak"]
    pids = sorted({p for check in (before, after) for p in check.get("other_processes", [])})
    if pids:
        found.append(f"other compute processes on it: pid {', '.join(map(str, pids[:6]))}")
    return ("the GPU was not the judge's alone while it timed (" + "; ".join(found) + "): these times are not "
            "trustworthy and are not stored in the history; run again on an idle GPU, or with --wait-for-gpu S")


@contextmanager
def gpu_turn(environment: dict, device: str, say=None) -> Iterator[None]:
    """Hold this GPU's lock (one judge of this host times on it at a time); ``say`` is told if it waits."""
    from judge.timing.peaks import cache_lock, lock_is_free

    name = "gpu-" + str(environment.get("gpu_uuid") or f"{environment.get('host')}-{device}").replace("/", "_")
    if say is not None and not lock_is_free(name):
        say("waiting for another judge timing on this GPU")
    with cache_lock(name):
        yield


class Probe:
    """The calibration copy on ``device``, against ``copy_gbps`` (the device's measured peak)."""

    def __init__(self, device: str, copy_gbps: float | None, own_pids):
        self.device, self.copy_gbps, self.own_pids = device, copy_gbps, own_pids
        self._buffers = None

    def check(self) -> dict:
        """{"slowdown": calibration / expected, "other_processes": [pid, ...]} (keys left out when unknown)."""
        out = {}
        if not str(self.device).startswith("cuda"):  # CPU mode, and the tests' stand-ins: nothing to share
            return out
        others = other_processes(self.device, self.own_pids())
        if others is not None:
            out["other_processes"] = others
        if self.copy_gbps:
            expected_ms = CALIBRATION_COPIES * 2 * CALIBRATION_BYTES / (self.copy_gbps * 1e9) * 1e3
            out["slowdown"] = round(self._copies_ms() / expected_ms, 3)
        return out

    def _copies_ms(self) -> float:
        """The median of three runs of CALIBRATION_COPIES back-to-back copies (ms, host clock), after one untimed."""
        import torch

        if self._buffers is None:
            src = torch.empty(CALIBRATION_BYTES // 4, dtype=torch.float32, device=self.device).fill_(1.0)
            self._buffers = (src, torch.empty_like(src))
        src, dst = self._buffers
        dst.copy_(src)
        torch.cuda.synchronize(self.device)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            for _ in range(CALIBRATION_COPIES):
                dst.copy_(src)
            torch.cuda.synchronize(self.device)
            times.append((time.perf_counter() - started) * 1e3)
        return sorted(times)[1]

    def close(self) -> None:
        self._buffers = None


def other_processes(device: str, own: set) -> list[int] | None:
    """PIDs of compute processes on ``device`` other than ``own`` that this PID namespace can see; None
    when the driver cannot be asked."""
    pids = _nvml_pids(device)
    if pids is None:
        pids = _smi_pids(device)
    if pids is None:
        return None
    return sorted(p for p in pids if p not in own and p != os.getpid() and os.path.exists(f"/proc/{p}"))


def _uuid(device: str) -> str | None:
    import torch

    uuid = getattr(torch.cuda.get_device_properties(torch.device(device)), "uuid", None)
    if uuid is None:
        return None
    text = str(uuid)
    return text if text.startswith("GPU-") else f"GPU-{text}"


_NVML: list = []  # [pynvml] once initialised (nvmlInit costs tens of ms: once a process)


def _nvml_pids(device: str) -> list[int] | None:
    try:
        import pynvml
    except ImportError:
        return None
    try:
        if not _NVML:
            pynvml.nvmlInit()
            _NVML.append(pynvml)
        uuid = _uuid(device)
        handle = pynvml.nvmlDeviceGetHandleByUUID(uuid.encode() if isinstance(uuid, str) else uuid)
        return [int(p.pid) for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)]
    except Exception:  # noqa: BLE001 - NVML missing, another driver, no permission: not known
        return None


def _smi_pids(device: str) -> list[int] | None:
    uuid = _uuid(device)
    if uuid is None or shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=gpu_uuid,pid", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    pids = []
    for line in out.stdout.splitlines():
        gpu, _, pid = line.partition(",")
        if gpu.strip() == uuid and pid.strip().isdigit():
            pids.append(int(pid))
    return pids


def wait_for_gpu(device: str, own: set, seconds: float, say=None) -> bool:
    """Wait up to ``seconds`` until no other compute process is on ``device``; whether it is free."""
    deadline = time.monotonic() + seconds
    while True:
        others = other_processes(device, own)
        if not others:
            return True
        if time.monotonic() >= deadline:
            return False
        if say is not None:
            say(f"waiting for the GPU: pid {', '.join(map(str, others[:4]))} use it")
        time.sleep(1.0)
