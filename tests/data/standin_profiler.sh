#!/bin/sh
# A stand-in for Nsight Compute's ncu in CPU mode (tests/test_tools_in_sandbox.py): ncu starts the program it
# profiles below a launcher of its own that stays beside it (TreeLauncherSubreaper), whose command line holds
# the program's.  So: this script -> a launcher (sh, "-m judge.worker" in its command line) -> the program.
sh -c '"$@"; exit $?' standin-launcher "$@"
exit $?
