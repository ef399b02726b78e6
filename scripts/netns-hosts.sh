#!/usr/bin/env bash
# Several "hosts" on one machine, as network namespaces joined by veth pairs and a bridge, and
# one Weft job across them (issue 26 item 4: multi-host runs without a cluster).
#
#   scripts/netns-hosts.sh check
#       exit 0 when namespaces can be made here (root, iproute2), 77 otherwise (ctest: skipped)
#   scripts/netns-hosts.sh run --hosts H --per-host M [--rate RATE] [--backend B]
#                              [--timeout SECONDS] -- prog [args...]
#       makes H hosts, starts M ranks of prog on each (ranks h*M .. h*M+M-1 on host h), waits,
#       tears everything down; exit status as weftrun's (0 all ok, 1 a rank failed, 124 timeout)
#
# Each host is a namespace with one interface, eth0, at 10.77.X.(h+1)/24 (X per job, so jobs
# can run side by side), its other end on a bridge of its own in the root namespace (no
# address there: the hosts talk among themselves). --rate shapes both directions of every
# host's link with tc tbf (e.g. 1gbit; netem, and so added delay, is not in these kernels).
# Every rank gets the launch variables weftrun gives (WEFT_RANK, WEFT_WORLD_SIZE,
# WEFT_LOCAL_RANK, WEFT_LOCAL_WORLD_SIZE, WEFT_STORE at host 0's address, WEFT_STORE_TOKEN),
# WEFT_GLOO_IFACE=eth0 and UCX_NET_DEVICES=eth0 (UCX: TCP between hosts, shared memory
# within). Output lines are prefixed "[rank] ". WEFT_NETNS_HOOK, when set, is run in the root
# namespace once every rank has started, with the job's prefix as $1 (the fault tests use it
# to cut a link: ip link set "$1h1" down).
set -euo pipefail

usage() { sed -n '3,12p' "$0" >&2; exit 2; }

can_run() {
  [[ $(id -u) == 0 ]] && command -v ip >/dev/null && command -v tc >/dev/null || return 1
  local probe="wftprobe$$"
  ip netns add "$probe" 2>/dev/null || return 1
  ip netns del "$probe"
}

# up PREFIX HOSTS SUBNET RATE
up() {
  local p=$1 hosts=$2 net=$3 rate=$4
  ip link add "${p}br" type bridge
  ip link set "${p}br" up
  for ((h = 0; h < hosts; ++h)); do
    ip netns add "${p}n$h"
    ip link add "${p}h$h" type veth peer name eth0 netns "${p}n$h"
    ip link set "${p}h$h" master "${p}br" up
    ip netns exec "${p}n$h" ip addr add "$net.$((h + 1))/24" dev eth0
    ip netns exec "${p}n$h" ip link set eth0 up
    ip netns exec "${p}n$h" ip link set lo up
    if [[ -n $rate ]]; then
      tc qdisc add dev "${p}h$h" root tbf rate "$rate" burst 256kb latency 50ms
      ip netns exec "${p}n$h" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 50ms
    fi
  done
}

down() {
  local p=$1 hosts=$2
  for ((h = 0; h < hosts; ++h)); do
    ip netns del "${p}n$h" 2>/dev/null || true
    ip link del "${p}h$h" 2>/dev/null || true
  done
  ip link del "${p}br" 2>/dev/null || true
}

run() {
  local hosts=2 per=1 rate="" backend="${WEFT_BACKEND:-gloo}" timeout=600
  while [[ $# -gt 0 ]]; do
    case $1 in
      --hosts) hosts=$2; shift 2 ;;
      --per-host) per=$2; shift 2 ;;
      --rate) rate=$2; shift 2 ;;
      --backend) backend=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --) shift; break ;;
      *) usage ;;
    esac
  done
  [[ $# -ge 1 && $hosts -ge 1 && $per -ge 1 ]] || usage
  can_run || { echo "netns-hosts: network namespaces are not available here (root and iproute2 needed)" >&2; exit 77; }
  local id=$(( ($$ + RANDOM) % 250 ))
  local p="wft${id}" net="10.77.${id}"
  # shellcheck disable=SC2064  # expanded now: the locals are gone when the trap runs
  trap "down '$p' '$hosts'" EXIT
  up "$p" "$hosts" "$net" "$rate"
  local token port world=$((hosts * per))
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  port=$((20000 + RANDOM % 20000))
  local -a pids=()
  for ((h = 0; h < hosts; ++h)); do
    for ((l = 0; l < per; ++l)); do
      local r=$((h * per + l))
      ip netns exec "${p}n$h" env WEFT_RANK=$r WEFT_WORLD_SIZE=$world WEFT_LOCAL_RANK=$l \
        WEFT_LOCAL_WORLD_SIZE=$per WEFT_STORE="$net.1:$port" WEFT_STORE_TOKEN="$token" \
        WEFT_BACKEND="$backend" WEFT_GLOO_IFACE=eth0 UCX_NET_DEVICES=eth0 "$@" \
        < /dev/null > >(sed -u "s/^/[$r] /") 2>&1 &
      pids+=($!)
    done
  done
  if [[ -n ${WEFT_NETNS_HOOK:-} ]]; then bash -c "$WEFT_NETNS_HOOK" hook "$p" || true; fi
  local status=0 deadline=$((SECONDS + timeout)) left=${#pids[@]}
  while ((left > 0)); do
    if ((SECONDS >= deadline)); then status=124; break; fi
    local code=0
    wait -n -p done_pid "${pids[@]}" 2>/dev/null || code=$?
    # wait -n returns 127 when none is left to wait for (all reaped already).
    [[ -z ${done_pid:-} ]] && break
    left=$((left - 1))
    if ((code != 0)); then status=1; break; fi
    unset done_pid
  done
  if ((status != 0)); then
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 1
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  fi
  wait 2>/dev/null || true
  return $status
}

case ${1:-} in
  check) can_run && exit 0 || exit 77 ;;
  run) shift; run "$@" ;;
  *) usage ;;
esac
