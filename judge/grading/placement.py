"""Where ``judge grade`` runs: the mode (GPU or Triton's interpreter), and the devices of
this host graded on at once (--gpus, --jobs, --device) or a Dask cluster (--cluster)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from judge.base.cuda_driver import torch_has_cuda, visible_device_count
from judge.grading.cluster import LOCAL
from judge.grading.plan import GradeError
from judge.grading.pool import parse_gpus

__all__ = ["Placement", "place", "resolve_mode", "choose_slots", "cluster_workers"]


@dataclass(frozen=True)
class Placement:
    """The resolved mode, and this host's slots or the cluster to grade on."""

    interpret: bool  # True: the CPU interpreter
    slots: list | None = None  # this host: the devices graded on at once
    cluster: str | None = None  # --cluster: a scheduler's address, or LOCAL
    gpus: list[int] | None = None  # a local cluster's GPUs (None: CPU mode, or a scheduler's workers decide)
    jobs: int = 0  # a local cluster's number of workers

    @property
    def where(self) -> str:
        """Where the grade runs, as its opening line says it."""
        if self.cluster is None:
            return f"{len(self.slots)} at a time"
        if self.cluster != LOCAL:
            return f"on the Dask scheduler at {self.cluster}"
        return f"on a local Dask cluster of {self.jobs} worker(s)"

    def grader(self, session) -> Callable[[list[int]], None]:
        """``session``'s way of grading a list of entry indices here (grading/session.py)."""
        if self.cluster is None:
            return partial(session.grade_here, self.slots)
        return partial(session.grade_on_cluster, self.cluster, self.gpus, self.jobs)


def place(cluster: str | None, gpus: str | None, jobs: int | None, device: str | None,
          interpret: bool) -> Placement:
    """The placement that --cluster, --gpus, --jobs, --device and --interpret ask for."""
    if cluster is None:
        mode = resolve_mode(interpret)
        return Placement(mode, slots=choose_slots(gpus, jobs, device, mode))
    count = None if cluster != LOCAL or interpret else visible_device_count()
    if count and torch_has_cuda() is False:
        count = None  # a CPU build of torch sees no GPU however many the driver has: torch decides, as without --cluster
    if cluster != LOCAL:
        mode = interpret  # a remote cluster's GPUs are not ours
    else:  # without torch where the driver answers: the workers import it, and start sooner
        mode = interpret or count == 0 or (count is None and resolve_mode(interpret))
    workers, slots = cluster_workers(cluster, gpus, jobs, device, mode, count)
    return Placement(mode, cluster=cluster, gpus=workers, jobs=slots)


def resolve_mode(interpret: bool) -> bool:
    """Whether this grade runs in CPU mode: --interpret, or no CUDA device here."""
    from judge.judging.runner import Options, detect_mode

    return detect_mode(Options(interpret=interpret))[0]


def choose_slots(gpus: str | None, jobs: int | None, device: str | None, interpret: bool,
                 count: int | None = None) -> list:
    """The devices to grade on at once: one per GPU, N CPU jobs, or one.  ``count``: the GPUs
    visible, if known (else torch is asked)."""
    if gpus is not None:
        if interpret:
            raise GradeError("--gpus needs CUDA GPUs, but this grade runs in CPU mode (no CUDA device, or "
                             "--interpret); use --jobs N to grade N submissions at a time on the CPU")
        if device or jobs:
            raise GradeError("--gpus picks the devices: drop --device and --jobs")
        if count is None:
            import torch

            count = torch.cuda.device_count()
        try:
            return [f"cuda:{i}" for i in parse_gpus(gpus, count)]
        except ValueError as exc:
            raise GradeError(f"--gpus: {exc}") from None
    if jobs and jobs > 1:
        if not interpret:
            raise GradeError("--jobs is for CPU mode; on GPUs use --gpus, one submission per GPU at a time, "
                             "so that benchmarks do not disturb each other")
        return [None] * jobs
    return [device]


def cluster_workers(cluster: str, gpus: str | None, jobs: int | None, device: str | None,
                    interpret: bool, count: int | None = None) -> tuple[list[int] | None, int]:
    """For ``--cluster``: the GPUs (GPU mode) or the number of workers (CPU mode)
    of a local cluster; ``(None, 0)`` for a scheduler's address, whose workers decide.
    ``count``: the GPUs visible here, if known (else torch is asked)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise GradeError("--cluster needs Dask: pip install 'judge[cluster]' (dask and distributed)") from None
    if device:
        raise GradeError("--cluster places each submission on a worker's GPU: drop --device")
    if cluster != LOCAL:
        if gpus is not None or jobs:
            raise GradeError(f"--cluster {cluster}: the scheduler's workers are the GPUs (start one per GPU, "
                             "docs/grading.md); --gpus and --jobs are for --cluster local")
        return None, 0
    slots = choose_slots(gpus if gpus is not None or interpret else "all", jobs, None, interpret, count)
    if interpret:
        return None, len(slots)
    return [int(slot.split(":")[1]) for slot in slots], len(slots)
