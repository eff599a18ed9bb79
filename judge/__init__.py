"""judge: an offline challenge runner and judge for Triton GPU kernels.

The pipeline, one folder per stage (docs/architecture.md):

    spec  ->  cases  ->  worker  ->  checks  ->  timing  ->  verdict  ->  report
      challenge/         worker/    judging/     timing/    judging/     report/

``judging/dispatch.py`` judges one solution (``judge_solution``) through
``judging/runner.py``; ``comparing/`` and ``grading/`` reuse it for rank and
grade; ``cli/`` holds the thin click commands.
"""

__version__ = "0.1.0"
