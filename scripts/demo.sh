#!/usr/bin/env bash
# The README's demo command: installs the dependencies, builds Weft (Release, allreduce_demo
# included) and runs the multi-rank demo on this machine through weftrun: domain_conv
# (examples/domain_conv.cpp), a 2-D convolution sharded unevenly over a 2x2 mesh of 4 ranks,
# forward through a halo exchange and backward through its adjoint, checked against one rank.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_TESTS=OFF >/dev/null
ninja -C build/release -j"${JOBS:-2}"
build/release/examples/layout_explain 2x2 5x8 S0,S1
exec build/release/tools/weftrun/weftrun -n 4 --backend gloo build/release/examples/domain_conv
