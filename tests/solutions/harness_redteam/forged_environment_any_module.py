# Red team of issue 46, idea 7: an internal error the solution chose, by naming a module that does not exist.
#
# A worker that cannot import the judge's own modules prints "judge-worker-environment: MODULE: error" and exits
# with status 78; the judge believes it (an internal error, exit 3, "not your solution") only if MODULE fails to
# import in a fresh Python with the worker's environment (Worker._raise_if_broken_environment).  The red team of
# an earlier round claimed numpy, which imports there, and stayed a runtime_error.  A module name that exists
# nowhere fails to import everywhere: the claim is "checked" and believed.  Under `judge grade`, that is one
# submission's failure turned into the judge's.
# Seen twice: `judge run` exit 3, "importing judge_runtime_support fails ... That is the judge's own environment, not
# your solution. Install it: pip install judge_runtime_support"; under `judge grade` beside an honest submission it
# is contained ("internal error in judge while grading this submission", runtime_error) with the same advice.
import os
import sys

print("judge-worker-environment: judge_runtime_support: ModuleNotFoundError: No module named "
      "'judge_runtime_support'", file=sys.stderr, flush=True)
os._exit(78)


def solve(input, output, rows, cols):
    output.copy_(input.T)
