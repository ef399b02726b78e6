#!/usr/bin/env bash
# Weft's UCX backend next to Open MPI (shared memory: pml ob1, btl self,vader) and Weft over
# Gloo, N ranks on this host, in one command from the repository root:
#
#   bash bench/openmpi/compare.sh [-n RANKS] [-r ROUNDS] [-o DIR] [-C]
#
#   -n RANKS   ranks of every run (default 2)
#   -r ROUNDS  rounds (default 3); each round runs every program once, in turn, so that all
#              see the same machine state; the tables give the median over rounds
#   -o DIR     where mpi_collbench is built and the raw outputs go (default build/openmpi)
#   -C         leave out the Weft-UCX run without single copy (WEFT_UCX_CMA_BYTES=0)
#
# Per round: the bandwidth sweep (256K..64M, x4; allgather, reduce_scatter, allreduce,
# alltoall; float32 sum; 50 iterations after 20 warm-up: fewer leave the first sizes of a fresh
# process in its start-up noise) through mpi_collbench (Open MPI) and
# collbench (Weft on UCX, on UCX without single copy, on Gloo); then the 8-byte all-reduce
# latency (1000 iterations after 100) of each, and UCX's own one-way tag latency
# (ucx_perftest -t tag_lat, with the UCX settings the plugin applies). combine.py prints the
# tables. See bench/openmpi/README.md.
#
# Open MPI and ucx_perftest are installed with apt-get only when missing; nothing else in the
# repository needs them. Weft's release build is taken from $WEFT_BUILD (default
# build/release), configured there if it has none, and brought up to date with ninja
# (-j$JOBS, default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
  sed -n '5,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}
N=2
ROUNDS=3
OUT=build/openmpi
NOCMA=1
while getopts "n:r:o:Ch" opt; do
  case $opt in
    n) N=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    o) OUT=$OPTARG ;;
    C) NOCMA=0 ;;
    h) usage 0 ;;
    *) usage ;;
  esac
done
[[ $N =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage
B=${WEFT_BUILD:-build/release}
JOBS=${JOBS:-2}
log() { echo "compare.sh: $*" >&2; }
mkdir -p "$OUT"

# step NAME CMD...: runs CMD with its output in $OUT/NAME.log; stops the script if it fails.
step() {
  local name=$1
  shift
  if ! "$@" >"$OUT/$name.log" 2>&1; then
    log "$name failed: $*"
    tail -n 20 "$OUT/$name.log" >&2
    exit 1
  fi
}

# --- tools -------------------------------------------------------------------------------
need=()
command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
  need+=(openmpi-bin libopenmpi-dev)
command -v ucx_perftest >/dev/null || need+=(ucx-utils) # Debian ships it there
if ((${#need[@]})); then
  log "installing ${need[*]}"
  sudo_=()
  ((EUID == 0)) || sudo_=(sudo)
  "${sudo_[@]}" apt-get update -q
  "${sudo_[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi

# --- builds ------------------------------------------------------------------------------
if [[ ! -f $B/CMakeCache.txt ]]; then
  log "configuring the release build in $B"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BACKENDS="self;gloo;ucx" \
    -DWEFT_BUILD_TESTS=OFF >/dev/null
fi
log "building collbench, weftrun and the ucx and gloo plugins in $B"
step build ninja -C "$B" -j"$JOBS" collbench weftrun weft-backend-ucx weft-backend-gloo
step mpicc mpicc -O2 -std=c99 -o "$OUT/mpi_collbench" bench/openmpi/mpi_collbench.c
step cc cc -O2 -std=c11 -pthread -o "$OUT/line_latency" bench/openmpi/line_latency.c

# --- commands ----------------------------------------------------------------------------
BIND=core
((N <= $(nproc))) || BIND=none # binding more ranks than cores to cores is refused
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -n "$N" --mca pml ob1 --mca btl "self,vader"
  --bind-to "$BIND")
WEFTRUN=("$B/tools/weftrun/weftrun" -n "$N" --no-prefix)
CB=$B/tools/collbench/collbench
SWEEP=(-b 256K -e 64M -f 4 -n 50 -w 20 -op "allgather,reduce_scatter,allreduce,alltoall")
LAT=(-b 8 -e 8 -n 1000 -w 100 -op allreduce)
# What the plugin sets when the user has not (backends/ucx/config.cpp); -e below: endpoints
# with peer-failure handling, as the plugin creates them.
UCX_SETTINGS=(UCX_MM_ERROR_HANDLING=y UCX_KEEPALIVE_INTERVAL=1s)
PERFTEST=(ucx_perftest -t tag_lat -s 8 -n 10000 -e)

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# UCX's one-way latency: a server in the background, a client on loopback (retried while the
# server is not listening yet); the client's "Final:" line goes to $OUT/tag_lat.R.log.
tag_lat() {
  local r=$1 port srv
  port=$(free_port)
  env "${UCX_SETTINGS[@]}" timeout 120 "${PERFTEST[@]}" -p "$port" >"$OUT/tag_lat_server.$r.log" 2>&1 &
  srv=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.5
    if env "${UCX_SETTINGS[@]}" timeout 120 ucx_perftest 127.0.0.1 "${PERFTEST[@]:1}" -p "$port" \
      >"$OUT/tag_lat.$r.log" 2>&1; then
      wait "$srv" || true
      return 0
    fi
  done
  kill "$srv" 2>/dev/null || true
  wait "$srv" 2>/dev/null || true
  log "ucx_perftest failed:"
  tail -n 20 "$OUT/tag_lat.$r.log" >&2
  exit 1
}

{
  echo "ranks $N, rounds $ROUNDS, $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "$(mpirun --version 2>/dev/null | head -n 1); UCX $(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -n 1)"
  echo "Open MPI: ${MPIRUN[*]}"
} >"$OUT/setup.txt"

for r in $(seq 1 "$ROUNDS"); do
  log "round $r/$ROUNDS: bandwidth sweep"
  # Where the host placed the vCPUs (line_latency.c), before and after the round's sweeps.
  "$OUT/line_latency" >"$OUT/line.$r.log"
  step "mpi.$r" "${MPIRUN[@]}" "$OUT/mpi_collbench" "${SWEEP[@]}"
  step "ucx.$r" "${WEFTRUN[@]}" --backend ucx "$CB" "${SWEEP[@]}" --json "$OUT/ucx.$r.json"
  if ((NOCMA)); then
    step "ucxnocma.$r" env WEFT_UCX_CMA_BYTES=0 "${WEFTRUN[@]}" --backend ucx "$CB" "${SWEEP[@]}" \
      --json "$OUT/ucxnocma.$r.json"
  fi
  step "gloo.$r" "${WEFTRUN[@]}" --backend gloo "$CB" "${SWEEP[@]}" --json "$OUT/gloo.$r.json"
  "$OUT/line_latency" >>"$OUT/line.$r.log"
  log "round $r/$ROUNDS: 8-byte latency"
  step "mpi_lat.$r" "${MPIRUN[@]}" "$OUT/mpi_collbench" "${LAT[@]}"
  step "ucx_lat.$r" "${WEFTRUN[@]}" --backend ucx "$CB" "${LAT[@]}" --json "$OUT/ucx_lat.$r.json"
  step "gloo_lat.$r" "${WEFTRUN[@]}" --backend gloo "$CB" "${LAT[@]}" \
    --json "$OUT/gloo_lat.$r.json"
  tag_lat "$r"
done

cat "$OUT/setup.txt"
python3 bench/openmpi/combine.py "$OUT" "$ROUNDS" "$NOCMA" | tee "$OUT/table.txt"
