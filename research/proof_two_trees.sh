#!/usr/bin/env bash
# The timing proof (scripts/timing_proof.py --quick) of two checkouts on one machine, alternating,
# to tell a change of the judge from a change of the machine: did a commit move the judge's
# medians against do_bench?  Each tree is run with itself first on PYTHONPATH, so its workers
# import its own judge.  Prints each run's table; the JSON lands in $OUT/NAME-ROUND/.
#   git archive OLD_COMMIT | tar -x -C /tmp/before     (on a machine with the repository)
#   OUT=/tmp/out bash research/proof_two_trees.sh /tmp/before . [ROUNDS]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); ROUNDS=${3:-1}
export JUDGE_SERVER=0 NO_COLOR=1
for round in $(seq 1 "$ROUNDS"); do
  for tree in "$A" "$B"; do
    name=$(basename "$tree"); SECONDS=0
    mkdir -p "$OUT/$name-$round"
    (cd "$tree" && PYTHONPATH=$tree python3 scripts/timing_proof.py --quick --out "$OUT/$name-$round" \
      > "$OUT/$name-$round/log.txt" 2>&1)
    echo "== $name, round $round: exit $?, ${SECONDS} s"
    grep -E "^\| (transpose|copy|matmul|kernel)" "$OUT/$name-$round/log.txt"
  done
done
