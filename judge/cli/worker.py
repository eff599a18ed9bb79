"""``judge worker``: Dask workers for ``judge grade --cluster ADDRESS`` on a GPU host.

One command per host starts one worker per GPU, each pinned to its GPU and
offering the resource ``GPU=1`` (judge/grading/cluster.py); docs/grading.md
has the plain ``dask worker`` equivalent.
"""

from __future__ import annotations

import platform

import click

from judge.cli.base import UserError, user_errors, main_group


@main_group.command("worker")
@click.argument("scheduler", metavar="SCHEDULER")
@click.option("--gpus", default="all", show_default=True, help="The GPUs to serve: 'all' or indices like 0,1.")
@click.option("--interpret", is_flag=True, help="CPU workers for CPU-mode grades (--jobs of them), no GPU.")
@click.option("--jobs", type=click.IntRange(1), default=None, help="With --interpret: this many workers [default: 1].")
@click.option("--name", "prefix", default=None, help="Prefix of the workers' names [default: this host's name].")
def worker_command(scheduler, gpus, interpret, jobs, prefix) -> None:
    """Serve this host's GPUs to the Dask scheduler at SCHEDULER (tcp://host:8786).

    \b
    judge worker tcp://sched:8786              one worker per GPU, each pinned to it
    judge worker tcp://sched:8786 --gpus 0,1   only these GPUs
    judge grade --dir submissions/ --cluster tcp://sched:8786   then grade (docs/grading.md)

    Runs until Ctrl-C or SIGTERM.  Needs judge[cluster].
    """
    from judge.grading.cluster import ClusterError, serve_workers, worker_specs

    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError("judge worker needs Dask: pip install 'judge[cluster]' (dask and distributed)") from None
    prefix = f"{prefix or platform.node()}-"
    if interpret:
        specs = worker_specs(None, jobs or 1, host=None, prefix=prefix, silence_logs=None)
    else:
        if jobs:
            raise UserError("--jobs is for CPU workers (--interpret); on GPUs there is one worker per GPU")
        specs = worker_specs(_gpus(gpus), 0, host=None, prefix=prefix, silence_logs=None)
    click.echo(f"judge worker: {', '.join(specs)} for {scheduler} (Ctrl-C stops them)")
    with user_errors(ClusterError):
        serve_workers(scheduler, specs)


def _gpus(text: str) -> list[int]:
    import torch

    from judge.grading.pool import parse_gpus

    try:
        return parse_gpus(text, torch.cuda.device_count())
    except ValueError as exc:
        raise UserError(f"--gpus: {exc}; for CPU-mode grades start CPU workers with --interpret --jobs N") from None
