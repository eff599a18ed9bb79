set -u
bash research/served_trace.sh > $OUT/trace.log 2>&1; tail -75 $OUT/trace.log
source scripts/gpu_setup.sh > /dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site
python3 -c "import flask, nh3; print('flask', flask.__version__)"
timeout 240 python3 -m pytest -q -m gpu tests/test_ui_gpu.py tests/test_server_gpu.py -p no:randomly -s 2>&1 | grep -E "passed|failed|Error|ui gpu phases|served gpu run|^E " | head -30
timeout 120 python3 scripts/ui_gpu.py --out $OUT/ui_gpu.json 2>&1 | grep -v "^127.0.0.1\|started a judge" | tail -8
