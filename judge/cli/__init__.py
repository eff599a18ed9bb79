"""The ``judge`` command line: thin click commands over the pipeline.

Each command group lives in its own module and registers itself here.
"""

from __future__ import annotations

from judge.cli.base import JudgeGroup, main_group
from judge.cli import challenges as _challenges  # noqa: F401 - registers list/show/init
from judge.cli import run as _run  # noqa: F401 - registers run
from judge.cli import authoring as _authoring  # noqa: F401 - registers new and validate
from judge.cli import grade as _grade  # noqa: F401 - registers grade
from judge.cli import worker as _worker  # noqa: F401 - registers worker (Dask workers for grade --cluster)
from judge.cli import rank as _rank  # noqa: F401 - registers rank and sweep
from judge.cli import history as _history  # noqa: F401 - registers leaderboard and history

main = main_group

__all__ = ["main", "JudgeGroup"]
