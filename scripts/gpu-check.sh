#!/usr/bin/env bash
# The GPU check (issue 24 item 4), for a machine with one NVIDIA GPU and 16 cores, from the
# repository root:
#
#   bash scripts/gpu-check.sh [--dry-run]
#
# Builds (Release, $WEFT_BUILD, default build/gpu; an existing build is brought up to date, so
# that a build made elsewhere can be carried to a machine without network), then, each step
# bounded so that the whole stays under $GPU_CHECK_SECONDS (default 480):
#   1. the NCCL tables on the real libraries: one rank's collectives on device memory through
#      the real NCCL (nccl_api_test; on a machine without a GPU it checks the runtime says so);
#   2. the fake CUDA runtime and fake NCCL between processes (what CI runs);
#   3. with 8 or more cores, the CPU comparisons a 2-core machine cannot settle:
#      bench/openmpi/compare.sh at 2, 4 and 8 ranks (a core per rank) and collbench's
#      --pattern S0-S1 at 4 and 8 ranks on ucx and gloo.
#   4. the NCCL plugin: conformance, redistribute and halo at one rank on the real NCCL (host
#      buffers, staged through device memory), and the conformance suite at 2 ranks on the
#      fakes.
#   5. the CUDA device operations' kernels on the GPU against the references of their tests
#      (device_cuda_ops_test), and their host build with redistribute on device buffers on the
#      fakes.
#   6. collbench -d cuda --raw nccl: Weft-over-NCCL next to NCCL's own calls, one rank.
#   7. conformance, redistribute and halo again at one rank on device buffers (the runtime's
#      managed memory, tests/support/device_buffers.hpp); on the fakes, redistribute at 2 ranks
#      with every device pointer checked against the fake runtime's allocations.
# --dry-run: the build and the fake steps only (what a machine without a GPU can run).
# Prints one summary table; exits 1 if a step that ran failed.
set -uo pipefail
cd "$(dirname "$0")/.."
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
BUILD=${WEFT_BUILD:-build/gpu}
LIMIT=${GPU_CHECK_SECONDS:-480}
CORES=$(nproc)
start=$(date +%s)
failed=0
rows=()
left() { echo $((LIMIT - ($(date +%s) - start))); }
row() { rows+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")"); }

# step NAME LOG COMMAND...: runs within the time left, records pass/FAIL and the seconds.
step() {
  local name=$1 log=$2 t0 rc budget
  shift 2
  budget=$(left)
  if [ "$budget" -le 15 ]; then
    row "$name" "skipped" "the ${LIMIT} s budget is spent"
    return
  fi
  t0=$(date +%s)
  timeout "$budget" "$@" >"$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    row "$name" "pass" "$(($(date +%s) - t0)) s, log $log"
  else
    failed=1
    row "$name" "FAIL" "exit $rc after $(($(date +%s) - t0)) s, log $log"
  fi
}

mkdir -p "$BUILD"
LOGS=$BUILD/gpu-check
mkdir -p "$LOGS"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$LOGS/configure.log" 2>&1 ||
    { cat "$LOGS/configure.log"; exit 1; }
fi
targets="nccl_api_test fake_nccl_test weftrun collbench weft-backend-nccl weft-fake-nccl
  weft-fake-cudart weft_conformance weft_redistribute_test weft_halo_test device_cuda_ops_test
  weft-device-cuda-fake weft_checkpoint_test weft-backend-self nccl_dispatch_bench"
# The nvcc build of the CUDA operations, where CMake found nvcc.
grep -q "weft-device-cuda.so" "$BUILD/build.ninja" 2>/dev/null && targets="$targets weft-device-cuda"
step "build" "$LOGS/build.log" ninja -C "$BUILD" -j"$CORES" $targets

if [ $DRY -eq 0 ]; then
  step "nccl tables on the real GPU" "$LOGS/nccl_api.log" "$BUILD/tests/backends/nccl/nccl_api_test"
  if grep -q "no CUDA device is visible" "$LOGS/nccl_api.log" 2>/dev/null; then
    row "  (device)" "none" "the runtime sees no GPU: the device steps checked that message only"
  fi
fi
step "fake NCCL between processes" "$LOGS/fake_nccl.log" "$BUILD/tests/fakes/fake_nccl_test"
step "nccl tables on the fakes" "$LOGS/nccl_api_fakes.log" \
  "$BUILD/tests/backends/nccl/nccl_api_test" --gtest_filter='NcclApi.Fakes*:NcclApi.AMissing*'

RUN="$BUILD/tools/weftrun/weftrun"
if [ $DRY -eq 0 ]; then
  step "plugin conformance, 1 rank, GPU" "$LOGS/plugin_conformance.log" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/backends/conformance/weft_conformance" --gtest_brief=1
  step "plugin redistribute, 1 rank, GPU" "$LOGS/plugin_redistribute.log" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/redistribute/weft_redistribute_test" --gtest_brief=1 \
    '--gtest_filter=-TwoD.*:ThreeD.*:PlanCheck.*:Concurrency.*:BadBuffer.*:BatchedTwoD.*:CrossMesh*'
  step "plugin halo, 1 rank, GPU" "$LOGS/plugin_halo.log" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/halo/weft_halo_test" --gtest_brief=1
fi
if [ $DRY -eq 0 ]; then
  # The same suites on device buffers: the real runtime's managed memory, tagged kDLCUDA, so
  # that plans, halos and collectives run the nvcc kernels and NCCL on GPU memory.
  GPU_ENV=(env WEFT_PLUGIN_PATH="$BUILD/lib" WEFT_CUDART_LIBRARY=libcudart.so.13 WEFT_TEST_DEVICE_BUFFERS=1)
  step "conformance, device buffers, GPU" "$LOGS/device_conformance.log" "${GPU_ENV[@]}" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/backends/conformance/weft_conformance" --gtest_brief=1 \
    '--gtest_filter=-Mismatch.*'
  step "redistribute, device buffers, GPU" "$LOGS/device_redistribute.log" "${GPU_ENV[@]}" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/redistribute/weft_redistribute_test" --gtest_brief=1 \
    '--gtest_filter=-TwoD.*:ThreeD.*:PlanCheck.*:Concurrency.*:BadBuffer.*:BatchedTwoD.*:CrossMesh*'
  step "halo, device buffers, GPU" "$LOGS/device_halo.log" "${GPU_ENV[@]}" \
    "$RUN" -n 1 --backend nccl "$BUILD/tests/halo/weft_halo_test" --gtest_brief=1
fi
if [ $DRY -eq 0 ]; then
  # The nvcc build's kernels on the GPU against the same references as the host build.
  step "CUDA kernels vs host, GPU" "$LOGS/cuda_ops.log" \
    env WEFT_PLUGIN_PATH="$BUILD/lib" WEFT_CUDART_LIBRARY=libcudart.so.13 \
    "$BUILD/tests/device/cuda/device_cuda_ops_test" --gtest_brief=1
fi
if [ $DRY -eq 0 ]; then
  # Checkpoints of cudaMalloc'd blocks (strided too), saved and loaded on a stream.
  step "checkpoint of device buffers, GPU" "$LOGS/ckpt_device.log" \
    env WEFT_PLUGIN_PATH="$BUILD/lib" WEFT_CUDART_LIBRARY=libcudart.so.13 WEFT_CKPT_DIR="$LOGS" \
    "$RUN" -n 1 --backend self "$BUILD/tests/checkpoint/weft_checkpoint_test" --gtest_brief=1 \
    '--gtest_filter=DeviceRoundTrip.*'
fi
FAKES="$BUILD/lib/fakes"
step "checkpoint of device buffers, fakes" "$LOGS/ckpt_device_fakes.log" \
  env WEFT_PLUGIN_PATH="$FAKES" WEFT_CUDART_LIBRARY="$FAKES/libweft-fake-cudart.so" WEFT_CKPT_DIR="$LOGS" \
  "$RUN" -n 1 --backend self "$BUILD/tests/checkpoint/weft_checkpoint_test" --gtest_brief=1 \
  '--gtest_filter=DeviceRoundTrip.*'
step "plugin conformance, 2 ranks, fakes" "$LOGS/plugin_fakes.log" \
  env WEFT_NCCL_LIBRARY="$FAKES/libweft-fake-nccl.so" WEFT_CUDART_LIBRARY="$FAKES/libweft-fake-cudart.so" \
  "$RUN" -n 2 --backend nccl "$BUILD/tests/backends/conformance/weft_conformance" --gtest_brief=1
step "CUDA kernels (host build), fakes" "$LOGS/cuda_ops_fakes.log" \
  "$BUILD/tests/device/cuda/device_cuda_ops_test" --gtest_brief=1
step "redistribute, device buffers, fakes" "$LOGS/device_fakes.log" \
  env WEFT_NCCL_LIBRARY="$FAKES/libweft-fake-nccl.so" WEFT_CUDART_LIBRARY="$FAKES/libweft-fake-cudart.so" \
  WEFT_PLUGIN_PATH="$FAKES" WEFT_TEST_DEVICE_BUFFERS=1 FAKE_CUDA_CHECK_POINTERS=1 \
  "$RUN" -n 2 --backend nccl "$BUILD/tests/redistribute/weft_redistribute_test" --gtest_brief=1 \
  '--gtest_filter=-TwoD.*:ThreeD.*:BadBuffer.*:BatchedTwoD.*:CrossMesh*'

if [ $DRY -eq 0 ]; then
  # What Weft adds on the host to an 8-byte ncclAllReduce enqueued on a stream (target +3 us).
  step "dispatch over NCCL, GPU" "$LOGS/nccl_dispatch.log" \
    env WEFT_PLUGIN_PATH="$BUILD/lib" WEFT_CUDART_LIBRARY=libcudart.so.13 \
    WEFT_NCCL_LIBRARY=libnccl.so.2 "$BUILD/bench/nccl_dispatch_bench" --benchmark_min_time=0.5
  # The same without the event each device-buffer op records for its deadline.
  step "dispatch, no device timeouts, GPU" "$LOGS/nccl_dispatch_notimeouts.log" \
    env WEFT_PLUGIN_PATH="$BUILD/lib" WEFT_CUDART_LIBRARY=libcudart.so.13 \
    WEFT_NCCL_LIBRARY=libnccl.so.2 WEFT_NCCL_DEVICE_TIMEOUTS=0 \
    "$BUILD/bench/nccl_dispatch_bench" --benchmark_min_time=0.5
  # nccl-tests' columns for Weft-over-NCCL and NCCL alone, one rank on the GPU.
  step "collbench -d cuda --raw nccl, GPU" "$LOGS/collbench_nccl.log" \
    "$RUN" -n 1 --backend nccl "$BUILD/tools/collbench/collbench" -d cuda --raw nccl \
    -op allreduce,allgather,reduce_scatter,broadcast,alltoall -b 8 -e 256M -f 8 -n 20 -w 5
  # Host buffers: staged through the page-locked bounce block and device scratch; against the
  # device-buffer rows above, the staging's cost.
  step "collbench host buffers, GPU" "$LOGS/collbench_nccl_host.log" \
    "$RUN" -n 1 --backend nccl "$BUILD/tools/collbench/collbench" \
    -op allreduce,allgather -b 8 -e 256M -f 8 -n 20 -w 5
fi
step "dispatch over NCCL, fakes" "$LOGS/nccl_dispatch_fakes.log" \
  "$BUILD/bench/nccl_dispatch_bench" --benchmark_min_time=0.1
step "collbench -d cuda --raw nccl, fakes" "$LOGS/collbench_nccl_fakes.log" \
  env WEFT_NCCL_LIBRARY="$FAKES/libweft-fake-nccl.so" WEFT_CUDART_LIBRARY="$FAKES/libweft-fake-cudart.so" \
  WEFT_PLUGIN_PATH="$FAKES" "$RUN" -n 2 --backend nccl "$BUILD/tools/collbench/collbench" -d cuda \
  --raw nccl -op allreduce,allgather,alltoall -b 8 -e 1M -f 32 -n 5 -w 1

if [ $DRY -eq 0 ] && [ "$CORES" -ge 8 ]; then
  for n in 2 4 8; do
    step "openmpi compare, $n ranks" "$LOGS/openmpi_$n.log" \
      env WEFT_BUILD="$BUILD" bash bench/openmpi/compare.sh -n "$n" -r 1 -C -o "$BUILD/openmpi_$n"
  done
  for backend in ucx gloo; do
    for n in 4 8; do
      step "collbench S0-S1 $backend, $n ranks" "$LOGS/s0s1_${backend}_$n.log" \
        "$BUILD/tools/weftrun/weftrun" -n "$n" --backend "$backend" \
        "$BUILD/tools/collbench/collbench" --pattern S0-S1 -b 1M -e 64M -f 4 -n 5 -w 2
    done
  done
elif [ $DRY -eq 0 ]; then
  row "CPU comparisons" "skipped" "$CORES cores: they need 8 or more"
fi

echo
echo "== gpu-check: $(($(date +%s) - start)) s of ${LIMIT} s, $CORES cores$([ $DRY -eq 1 ] && echo ', dry run')"
printf '%s\n' "${rows[@]}"
for f in "$LOGS"/nccl_dispatch*.log; do
  [ -f "$f" ] || continue
  echo
  echo "-- $(basename "$f")"
  grep -E '^(BM_|ratio)' "$f"
done
for f in "$LOGS"/openmpi_*.log "$LOGS"/s0s1_*.log "$LOGS"/collbench_nccl*.log; do
  [ -f "$f" ] || continue
  echo
  echo "-- $(basename "$f")"
  grep -v '^#' "$f" | tail -n 20
done
exit $failed
