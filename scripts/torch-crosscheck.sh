#!/usr/bin/env bash
# Weft against PyTorch DTensor (issue 25 item 4): python/crosscheck/dtensor_crosscheck.py under
# weftrun, 2 and 4 ranks, Weft over gloo and ucx, torch over its gloo process group; 120
# random placement pairs per mesh (1-D; and 2x2 on 4 ranks), compared element by element.
#
# Not part of scripts/test.sh: PyTorch from PyPI pulls the CUDA build, 3.0 GB to download and
# 5.3 GB installed (142 s on the 2-core machine class, 2026-11-28), for every CI run without
# a cache. Run it by hand or in a job with a cached venv (VENV, reused when present).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/rel}
VENV=${VENV:-build/torch-venv}
PAIRS=${PAIRS:-120}

if [ ! -f "$BUILD/lib/libweft.so" ] || [ ! -x "$BUILD/tools/weftrun/weftrun" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_TESTS=OFF \
    -DWEFT_BUILD_EXAMPLES=OFF >/dev/null
  ninja -C "$BUILD" -j"${JOBS:-2}" weft weftrun weft-backend-self weft-backend-gloo \
    weft-backend-ucx
fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
start=$(date +%s)
"$VENV/bin/pip" install -q numpy torch
echo "torch-crosscheck: pip install numpy torch: $(( $(date +%s) - start )) s," \
  "venv $(du -sh "$VENV" | cut -f1)"

export PYTHONPATH=$PWD/python/src WEFT_LIBRARY=$PWD/$BUILD/lib/libweft.so
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none WEFT_TIMEOUT_MS=60000
for launch in "2 gloo" "4 gloo" "2 ucx" "4 ucx"; do
  set -- $launch
  echo "torch-crosscheck: $1 ranks, Weft over $2"
  "$BUILD/tools/weftrun/weftrun" -n "$1" --backend "$2" --timeout 600 \
    "$VENV/bin/python" python/crosscheck/dtensor_crosscheck.py --pairs "$PAIRS"
done
