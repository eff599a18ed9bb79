#!/usr/bin/env bash
# This session's GPU tests: the judge server's (served runs, a device-side hang), judge ui's (Submit timed
# through the warm server, Stop), and the worker isolation tests (the forked worker changed: a frozen heap).
source scripts/gpu_setup.sh > /dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site
timeout 420 python3 -m pytest -q -m gpu tests/test_server_gpu.py tests/test_ui_gpu.py tests/test_gpu_isolation.py \
  -p no:randomly -s 2>&1 | grep -E "passed|failed|error|ui gpu phases|served gpu run|^E |^FAILED" | head -40
