#!/usr/bin/env bash
# Weft's checkpoints next to PyTorch DCP in one run (issue 27 item 7): ckpt_bench (Weft save and
# resharding loads against plain file I/O), then bench/checkpoint/dcp_compare.py (DCP saving and
# loading the same tensors over gloo), on the same ranks and directory, back to back.
#   scripts/ckpt-vs-dcp.sh [ranks=4] [total_mib=1024] [tensors=64]
# Needs the release build (build/rel: weft, weftrun, the gloo backend, ckpt_bench) and a Python
# with torch: PYTHON (default python3); e.g. python3 -m venv /tmp/torchvenv &&
# /tmp/torchvenv/bin/pip install torch numpy, then PYTHON=/tmp/torchvenv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-4} mib=${2:-1024} tensors=${3:-64}
python=${PYTHON:-python3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/weft-ckpt-vs-dcp.XXXXXX")
trap 'rm -rf "$dir"' EXIT
run="build/rel/tools/weftrun/weftrun -n $ranks --backend gloo --timeout 900"
$run build/rel/bench/checkpoint/ckpt_bench "$dir" "$mib" "$tensors"
PYTHONPATH=python/src WEFT_LIBRARY="$PWD/build/rel/lib/libweft.so.1" \
  $run "$python" bench/checkpoint/dcp_compare.py "$dir" "$mib" "$tensors" 2>&1 | grep -v -i warn
