source scripts/gpu_setup.sh > /dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site
timeout 250 python3 scripts/ui_gpu.py --repeat 8 --out $OUT/ui_gpu.json 2>&1 | grep -v "^127.0.0.1\|started a judge" | python3 -c "
import sys, json
for line in sys.stdin:
    try: r = json.loads(line)
    except ValueError: print(line.rstrip()); continue
    print(r['wall_s'], r['worker'], r['verdict'], [round(m, 4) for m in r['medians_ms']], r['flags'], r['phases_s'].get('start_worker'))"
