"""The defence room: everything that confines a solution's process, and the one interface the rest of the judge
asks it through (``judge.defence.policy``).

- ``switches``: the two opt-outs (JUDGE_SANDBOX=0, JUDGE_NAMESPACES=0), read here and nowhere else;
- ``policy``: what the judge asks of the room: a worker's or a build step's sandbox policy, and the run's
  protections with the report line for those that are off;
- ``namespaces``: the worker's own user, PID, mount, network and IPC namespaces, its read-only mounts and the
  capabilities it drops;
- ``sandbox``: Landlock and seccomp, applied by the worker to itself just before the solution loads;
- ``limits``: rlimits and the memory and disk watchdogs over the worker's whole process tree;
- ``tree``: the worker's processes as the kernel shows them (/proc): frozen between calls, stopped and reaped;
- ``folders``: the worker's scratch folders and what they hold;
- ``confined_exec``: one command of the judge's own tools (nvcc, ninja) confined as a worker is.

The room imports nothing of the judge's outside itself (tests/test_layout.py): a red-team round's fix lands here
and in its tests.  docs/security.md holds the incident history.
"""
