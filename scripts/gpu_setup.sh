# Sourced by the GPU scripts kept beside scripts/gpu_check.sh (cuda_gpu.sh, cute_profile_gpu.sh, exact39_gpu.sh, served_trace.sh) on the device machine: $OUT, the sandbox's
# wheels from .whl (landlockpy, pyseccomp) into /tmp/site on PYTHONPATH, the judge installed editable, the GPU.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
