"""judge: an offline challenge runner and judge for Triton GPU kernels.

The pipeline, one module (or package) per stage:

    spec  ->  cases  ->  worker  ->  checks  ->  timing  ->  verdict  ->  report
  spec.py   cases.py   worker/     checks.py   timing/    verdict.py   report/

``runner.py`` drives the stages for one ``judge run``; ``cli/`` holds the thin
click commands.
"""

__version__ = "0.1.0"
