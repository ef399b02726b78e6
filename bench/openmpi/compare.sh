#!/usr/bin/env bash
# Weft's UCX backend against Open MPI 4.1 (shared memory, ob1 + vader) and Weft over Gloo,
# 2 ranks on one host by default, in one run: R rounds alternate the programs so all of them
# see the same machine state; each figure is the median over rounds of collbench's median.
# Also the 8-byte all-reduce latency next to UCX's own one-way tag latency (ucx_perftest
# tag_lat, with the UCX settings the plugin applies).
#
#   bash bench/openmpi/compare.sh [-n RANKS] [-r ROUNDS]
#
# Installs Open MPI and ucx_perftest with apt-get when missing (never needed by the build or
# the tests). Uses the release build in $WEFT_BUILD (default build/release), configuring it if
# absent. Results: build/openmpi/*.json and the table on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=2
ROUNDS=3
while getopts "n:r:" o; do
  case $o in
    n) N=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    *) echo "usage: $0 [-n RANKS] [-r ROUNDS]" >&2; exit 2 ;;
  esac
done
B=${WEFT_BUILD:-build/release}
OUT=build/openmpi
mkdir -p "$OUT"

need=()
command -v mpicc >/dev/null || need+=(openmpi-bin libopenmpi-dev)
command -v ucx_perftest >/dev/null || need+=(ucx-utils)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q && apt-get install -y -q "${need[@]}"
fi
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_TESTS=OFF >/dev/null
fi
cmake "$B" -DWEFT_BACKENDS="self;gloo;ucx" >/dev/null
ninja -C "$B" -j2 collbench weftrun weft-backend-ucx weft-backend-gloo >/dev/null
mpicc -O2 -o "$OUT/mpi_collbench" bench/openmpi/mpi_collbench.c

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BIND=core
[ "$N" -gt "$(nproc)" ] && BIND=none
OPS=allgather,reduce_scatter,allreduce,alltoall
SWEEP=(-b 256K -e 64M -f 4 -n 20 -w 5)
LAT=(-b 8 -e 8 -n 2000 -w 200)
MPIRUN=(mpirun -n "$N" --oversubscribe --mca pml ob1 --mca btl self,vader --bind-to "$BIND")
WEFTRUN=("$B/tools/weftrun/weftrun" -n "$N")
CB="$B/tools/collbench/collbench"
UCX_SETTINGS=(UCX_MM_ERROR_HANDLING=y UCX_KEEPALIVE_INTERVAL=1s)

for r in $(seq 1 "$ROUNDS"); do
  echo "round $r/$ROUNDS" >&2
  "${MPIRUN[@]}" "$OUT/mpi_collbench" "${SWEEP[@]}" -op $OPS >"$OUT/mpi.$r.txt"
  "${MPIRUN[@]}" "$OUT/mpi_collbench" "${LAT[@]}" -op allreduce >"$OUT/mpi_lat.$r.txt"
  "${WEFTRUN[@]}" --backend ucx "$CB" "${SWEEP[@]}" -op $OPS --json "$OUT/ucx.$r.json" >/dev/null
  WEFT_UCX_CMA_BYTES=0 "${WEFTRUN[@]}" --backend ucx "$CB" "${SWEEP[@]}" -op $OPS \
    --json "$OUT/ucxnocma.$r.json" >/dev/null
  "${WEFTRUN[@]}" --backend ucx "$CB" "${LAT[@]}" -op allreduce --json "$OUT/ucx_lat.$r.json" \
    >/dev/null
  "${WEFTRUN[@]}" --backend gloo "$CB" "${SWEEP[@]}" -op $OPS --json "$OUT/gloo.$r.json" \
    >/dev/null
  "${WEFTRUN[@]}" --backend gloo "$CB" "${LAT[@]}" -op allreduce --json "$OUT/gloo_lat.$r.json" \
    >/dev/null
  # UCX's own one-way tag latency: a server in the background, a client on loopback.
  # -e: endpoints with peer-failure handling, as the plugin creates them.
  env "${UCX_SETTINGS[@]}" ucx_perftest -e -t tag_lat -s 8 -n 100000 -p 13337 >/dev/null 2>&1 &
  srv=$!
  sleep 1
  env "${UCX_SETTINGS[@]}" ucx_perftest 127.0.0.1 -e -p 13337 -t tag_lat -s 8 -n 100000 2>&1 |
    awk '/Final:/ {print $3}' >"$OUT/tag_lat.$r.txt"
  wait $srv || true
done

python3 - "$OUT" "$ROUNDS" "$N" <<'PY'
import json, statistics, sys
out, rounds, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def weft(name):
    rows = {}
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{out}/{name}.{r}.json"))["rows"]:
            rows.setdefault((row["op"], row["size"]), []).append((row["busbw_GBps"], row["time_us"]))
    return rows
def mpi(name):
    rows = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{name}.{r}.txt"):
            if line.startswith("#"): continue
            op, size, count, t, alg, bus, wrong = line.split()
            rows.setdefault((op, int(size)), []).append((float(bus), float(t)))
    return rows
med = lambda xs, k: statistics.median(x[k] for x in xs)
M, U, C, G = mpi("mpi"), weft("ucx"), weft("ucxnocma"), weft("gloo")
print(f"# busbw GB/s, {n} ranks, median of {rounds} rounds (each a median of 20 iterations)")
print("# Weft-UCX: the default (single copy from 8 KiB); no-cma: WEFT_UCX_CMA_BYTES=0")
print(f"# {'op':15s}{'size':>10s}{'OpenMPI':>9s}{'Weft-UCX':>10s}{'no-cma':>9s}{'Gloo':>8s}"
      f"{'UCX/MPI':>9s}{'nocma/MPI':>10s}{'UCX/Gloo':>9s}")
for key in sorted(M, key=lambda k: (k[0], k[1])):
    if key not in U: continue
    m, u, c, g = (med(D[key], 0) if key in D else float("nan") for D in (M, U, C, G))
    print(f"  {key[0]:15s}{key[1]:>10d}{m:9.2f}{u:10.2f}{c:9.2f}{g:8.2f}{u/m:9.2f}{c/m:10.2f}{u/g:9.2f}")
ML, UL, GL = mpi("mpi_lat"), weft("ucx_lat"), weft("gloo_lat")
tag = statistics.median(float(open(f"{out}/tag_lat.{r}.txt").read().strip() or "nan")
                        for r in range(1, rounds + 1))
key = ("allreduce", 8)
u, m, g = med(UL[key], 1), med(ML[key], 1), med(GL[key], 1)
print(f"# 8-byte all-reduce latency (us): Weft-UCX {u:.2f}, Open MPI {m:.2f}, Weft-Gloo {g:.1f}; "
      f"ucx_perftest tag_lat one-way {tag:.3f}; Weft-UCX / tag_lat = {u/tag:.2f}, "
      f"Weft-UCX / Open MPI = {u/m:.2f}")
PY
