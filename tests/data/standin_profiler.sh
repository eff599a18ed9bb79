#!/bin/sh
# A stand-in for Nsight Compute's ncu in CPU mode (tests/test_tools_in_sandbox.py), started as ncu is:
#     standin_profiler.sh LAUNCHER PROGRAM ARGS...
# ncu stays as the parent of a launcher of its own (TreeLauncherSubreaper), which stays as the parent of the program
# and holds the program's arguments in its own command line (tests/data/standin_launcher.c).
launcher=$1
program=$2
shift 2
"$launcher" "$@" "$program"
exit $?
