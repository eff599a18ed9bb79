"""What the judge asks of its defences: the one interface of judge/defence/.

The runner, the worker's client, ``judge grade`` and ``judge doctor`` ask here, never the mechanisms' modules
or the environment's switches directly:

- ``worker_policy``: the sandbox policy a worker or one of the judge's build steps is sent (None when
  JUDGE_SANDBOX=0: limits only);
- ``protections``, ``sealed``: each mechanism's state as the judge reports it for a run (the kernel's word and the
  judge's own checks, never the worker's alone) and the one report line for those that are off;
- ``missing_layers``: the layers this machine cannot give (what ``judge grade`` refuses to start without);
- ``availability``: what ``judge doctor`` shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.defence import sandbox
from judge.defence.switches import SANDBOX_ENV, switches

__all__ = ["worker_policy", "Protections", "protections", "sealed", "missing_layers", "availability"]


def worker_policy(solution_dir: str, scratch: str, writable: tuple[str, ...] = (), readable: tuple[str, ...] = (),
                  *, strict: bool, hidden: tuple[str, ...] = ()) -> dict | None:
    """The sandbox's policy as a worker's init message (or a confined build step) carries it: it reads
    ``readable`` and the Python installation, writes ``scratch`` and ``writable`` (sandbox.policy_for).
    None with JUDGE_SANDBOX=0."""
    if not switches().sandbox:
        return None
    return sandbox.policy_for(solution_dir, scratch, writable, readable, strict=strict, hidden=hidden).as_message()


@dataclass(frozen=True)
class Protections:
    """A run's mechanisms as the judge reports them (``environment.protections``) and the note for those off."""

    layers: dict  # mechanism -> "on (...)" / "off: why" / "kept: why" (sandbox.MECHANISMS, in order)
    note: str | None  # one report line naming each mechanism that is off; None when all hold


def protections(claimed: dict, kernel: dict | None = None) -> Protections:
    """The worker's mechanisms judged from its claim (``claimed``), the switches, what this machine allows and
    what the kernel showed of the worker (``kernel``, from /proc): sandbox.judged_layers."""
    layers = sandbox.judged_layers(claimed, requested=switches().sandbox, kernel=kernel)
    off = [f"{name} {state.removeprefix('off: ')}" for name, state in layers.items() if state.startswith(("off", "kept"))]
    note = None
    if off:
        note = (f"the worker's sandbox is incomplete ({'; '.join(off)}): what a solution can then reach is in "
                f"docs/security.md; {SANDBOX_ENV}=0 turns Landlock and seccomp off on purpose")
    return Protections(layers, note)


def sealed(layers: dict) -> bool:
    """Whether a run's worker was sealed (its ``environment.protections``): sandbox.sealed."""
    return sandbox.sealed(layers)


def missing_layers() -> list[str]:
    """The sandbox's layers this kernel or installation cannot give, "landlock off: why" each; none when
    JUDGE_SANDBOX=0 switched them off on purpose."""
    if not switches().sandbox:
        return []
    return [f"{layer} {state}" for layer, state in sandbox.available().items() if not state.startswith("on")]


def availability() -> tuple[dict[str, str], bool]:
    """What ``judge doctor`` shows: each layer's state here (namespaces included), and whether a switch is off."""
    return sandbox.available(namespaces=True), switches().opted_out
