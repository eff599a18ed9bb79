"""The defences' two opt-out switches, read from the environment in this one place.

``JUDGE_SANDBOX=0`` turns Landlock and seccomp off for the workers and the judge's build steps;
``JUDGE_NAMESPACES=0`` runs the worker without namespaces of its own (a container that forbids them).  Every
report says which is off.  The switches are read when asked (a test sets the variable and asks again), and the
worker reads the same variables (its environment is allow-listed to carry them: judge/defence/sandbox.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SANDBOX_ENV", "NAMESPACES_ENV", "Switches", "switches"]

SANDBOX_ENV = "JUDGE_SANDBOX"  # =0: no Landlock or seccomp for the workers (said in every report)
NAMESPACES_ENV = "JUDGE_NAMESPACES"  # =0: the worker runs without namespaces of its own (said in every report)


@dataclass(frozen=True)
class Switches:
    """Which of the defences that can be switched off are on."""

    sandbox: bool  # Landlock and seccomp
    namespaces: bool  # the worker's own namespaces, read-only mounts, dropped capabilities

    @property
    def opted_out(self) -> bool:
        """Whether either was switched off on purpose."""
        return not (self.sandbox and self.namespaces)

    @staticmethod
    def off(variable: str) -> str:
        """The state a switched-off mechanism reports: "off: JUDGE_SANDBOX=0"."""
        return f"off: {variable}=0"


def switches(environ: Mapping[str, str] | None = None) -> Switches:
    """The switches as the environment sets them now (``environ``: os.environ unless given)."""
    environ = os.environ if environ is None else environ
    return Switches(sandbox=environ.get(SANDBOX_ENV) != "0", namespaces=environ.get(NAMESPACES_ENV) != "0")
