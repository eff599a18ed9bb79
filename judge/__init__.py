"""judge: an offline challenge runner and judge for Triton GPU kernels.

The pipeline, bottom-up, one folder per layer (docs/architecture.md; a folder imports
only folders below it, tests/test_layout.py checks it):

    base        paths, the socket wire format, exit codes, signals, bytecode, profiling
    challenge   the spec model and loader, cases and inputs, LeetGPU folders
    timer       the worker-side timed loop: launch guard, flush, one measured call
    worker      the solution's sandboxed process, and the judge's client of it
    timing      the judge-side timing method: statistics, audits, floors, peaks, contention
    judging     checks against the reference, verdicts, the runner and its benchmark stage
    authoring   judge new / validate / init / show;   report: tables and exporters
    ranking     judge rank and sweep;                 grading: many submissions
    history     SQLite history, leaderboard;          watch: judge watch's changes
    server      the judge server's client side
    cli         thin click commands
    daemon      the judge server, which runs cli commands
"""

__version__ = "0.1.0"
