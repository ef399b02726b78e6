#!/usr/bin/env bash
# link_cut.sh NETNS_SCRIPT BACKEND COLLBENCH: 2 hosts x 2 ranks run all-reduces for far longer
# than the test lasts; host 1's link is cut after CUT_AFTER seconds. Passes if every one of
# the 4 ranks exits with an error (not 0, not killed by the job timeout) and the job ends
# within the ranks' deadline (WEFT_TIMEOUT_MS) plus a margin after the cut. Exit 77: no
# namespaces here (skipped).
set -uo pipefail
script=$1 backend=$2 collbench=$3
CUT_AFTER=4
DEADLINE_MS=5000
MARGIN_S=15
bash "$script" check || exit 77
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s)
WEFT_TIMEOUT_MS=$DEADLINE_MS bash "$script" run --hosts 2 --ranks 2 --backend "$backend" \
  --timeout 90 --cut "1:$CUT_AFTER" --status-dir "$dir" -- \
  "$collbench" -b 256K -e 256K -n 1000000 -w 1 -c 0
status=$?
elapsed=$(($(date +%s) - start))
echo "link_cut: job exit status $status after ${elapsed} s"
fail=0
[ "$status" -ne 124 ] || { echo "link_cut: FAIL: the job hung until its timeout"; fail=1; }
for r in 0 1 2 3; do
  s=$(cat "$dir/$r" 2>/dev/null || echo missing)
  echo "link_cut: rank $r exit status $s"
  if [ "$s" = missing ] || [ "$s" = 0 ] || [ "$s" -ge 128 ]; then
    echo "link_cut: FAIL: rank $r did not return an error"
    fail=1
  fi
done
limit=$((CUT_AFTER + DEADLINE_MS / 1000 + MARGIN_S))
if [ "$elapsed" -gt "$limit" ]; then
  echo "link_cut: FAIL: ranks took ${elapsed} s, more than ${limit} s (deadline + margin)"
  fail=1
fi
exit "$fail"
