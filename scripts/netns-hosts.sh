#!/usr/bin/env bash
# Several "hosts" on one machine, for multi-host runs without a cluster: each host is a network
# namespace with its own eth0, joined to the others through veth pairs and a bridge that lives
# in a switch namespace of its own (the machine's own network is never touched). Each host's
# ranks also get their own UTS, IPC, PID and mount namespaces, so that Weft and UCX see
# different host names and cannot take shared-memory or CMA shortcuts between hosts: traffic
# between hosts goes over TCP, through the (optionally shaped) links.
#
#   netns-hosts.sh run [options] -- PROG [ARGS...]   make the hosts, run one job, tear down
#   netns-hosts.sh check                              exit 0 if namespaces can be made, else 77
#
# Options of `run`:
#   --hosts N        hosts, 2..4 (default 2)
#   --ranks N        ranks per host (default 2); rank = host * ranks + local rank
#   --backend B      WEFT_BACKEND of every rank
#   --rate RATE      shape every host link to RATE in both directions with tc tbf (e.g.
#                    1gbit); without it the links are unshaped
#   --delay D        add D of latency with netem (e.g. 100us) where the kernel has netem;
#                    a warning, and no delay, where it does not
#   --timeout S      stop the whole job after S seconds (exit 124; default 300)
#   --cut H:S        cut host H's link (ip link set down, both ends) S seconds after start
#   --status-dir D   write each rank's exit status to D/RANK
#
# Host h has address 10.77.0.(h+1) on its eth0; the store runs on rank 0 (host 0), at
# WEFT_STORE=10.77.0.1:29400, with a fresh WEFT_STORE_TOKEN. Each rank's output is prefixed
# "[rank] ". The exit status is 0 if every rank exited 0, 124 on timeout, else 1. Teardown
# (namespaces, links, processes) runs on every exit path, including Ctrl-C.
#
# Needs root (or CAP_NET_ADMIN + CAP_SYS_ADMIN), iproute2 and util-linux's unshare; without
# them `check` and `run` exit 77, the status ctest's SKIP_RETURN_CODE reports as skipped.
set -euo pipefail

SKIP=77
PREFIX="wf$$"
SWITCH="${PREFIX}sw"
PORT=29400
hosts=2 ranks=2 backend="" rate="" delay="" timeout_s=300 cut="" status_dir=""
host_pids=()

die() { echo "netns-hosts: $*" >&2; exit 2; }
ns_of() { echo "${PREFIX}h$1"; }

can_make_namespaces() {
  command -v ip >/dev/null && command -v unshare >/dev/null || return 1
  [ "$(id -u)" -eq 0 ] || return 1
  local probe="${PREFIX}probe"
  ip netns add "$probe" 2>/dev/null || return 1
  ip netns del "$probe"
}

teardown() {
  local pid h
  for pid in "${host_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${host_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for ((h = 0; h < hosts; h++)); do ip netns del "$(ns_of "$h")" 2>/dev/null || true; done
  ip netns del "$SWITCH" 2>/dev/null || true
}

# tc on one end of a link: tbf shapes the rate; netem (when asked and present) adds delay.
shape() {
  local ns=$1 dev=$2
  if [ -n "$delay" ]; then
    if ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem delay "$delay" 2>/dev/null; then
      [ -z "$rate" ] || ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: \
        tbf rate "$rate" burst 256kb latency 50ms
      return
    fi
    echo "netns-hosts: warning: netem is not available on this kernel; --delay $delay ignored" >&2
    delay=""
  fi
  [ -z "$rate" ] || ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$rate" \
    burst 256kb latency 50ms
}

make_hosts() {
  local h ns
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link add br0 type bridge
  ip -n "$SWITCH" link set br0 up
  for ((h = 0; h < hosts; h++)); do
    ns=$(ns_of "$h")
    ip netns add "$ns"
    ip -n "$SWITCH" link add "port$h" type veth peer name eth0 netns "$ns"
    ip -n "$SWITCH" link set "port$h" master br0 up
    ip -n "$ns" addr add "10.77.0.$((h + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    shape "$SWITCH" "port$h"
    shape "$ns" eth0
  done
}

# The host's ranks, run inside its namespaces by a shell that is PID 1 there: when it is
# killed, the kernel kills every rank with it.
host_script() {
  cat <<'EOF'
hostname "$NETNS_HOST"
pids=()
for ((l = 0; l < NETNS_RANKS; l++)); do
  r=$((NETNS_HOST_INDEX * NETNS_RANKS + l))
  ( set -o pipefail
    WEFT_RANK=$r WEFT_LOCAL_RANK=$l "$@" 2>&1 | sed -u "s/^/[$r] /"
    s=$?; [ -z "$NETNS_STATUS_DIR" ] || echo "$s" >"$NETNS_STATUS_DIR/$r"; exit "$s" ) &
  pids+=($!)
done
worst=0
for p in "${pids[@]}"; do wait "$p" || worst=1; done
exit "$worst"
EOF
}

launch_host() {
  local h=$1; shift
  local ns
  ns=$(ns_of "$h")
  ip netns exec "$ns" env NETNS_HOST="$ns" NETNS_HOST_INDEX="$h" NETNS_RANKS="$ranks" \
    NETNS_STATUS_DIR="$status_dir" WEFT_WORLD_SIZE=$((hosts * ranks)) \
    WEFT_LOCAL_WORLD_SIZE="$ranks" WEFT_STORE="10.77.0.1:$PORT" WEFT_STORE_TOKEN="$token" \
    WEFT_GLOO_IFACE=eth0 ${backend:+WEFT_BACKEND="$backend"} \
    unshare --uts --ipc --pid --mount --mount-proc --kill-child \
    bash -c "$(host_script)" host "$@" &
  host_pids+=($!)
}

cut_link() {
  local h=${cut%%:*} after=${cut#*:}
  sleep "$after"
  echo "netns-hosts: cutting host $h's link" >&2
  ip -n "$SWITCH" link set "port$h" down
  ip -n "$(ns_of "$h")" link set eth0 down
}

run_job() {
  local h status=0 start cutter=""
  trap teardown EXIT
  trap 'exit 130' INT TERM
  make_hosts
  token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  for ((h = 0; h < hosts; h++)); do launch_host "$h" "$@"; done
  [ -z "$cut" ] || { cut_link & cutter=$!; }
  start=$(date +%s)
  for ((h = 0; h < hosts; h++)); do
    while kill -0 "${host_pids[$h]}" 2>/dev/null; do
      if (($(date +%s) - start >= timeout_s)); then
        echo "netns-hosts: timed out after ${timeout_s} s" >&2
        exit 124
      fi
      sleep 0.2
    done
    wait "${host_pids[$h]}" || status=1
  done
  [ -z "$cutter" ] || wait "$cutter" 2>/dev/null || true
  exit "$status"
}

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  case "$cmd" in
    check) can_make_namespaces && exit 0; exit "$SKIP" ;;
    run) ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
  while [ $# -gt 0 ]; do
    case "$1" in
      --hosts) hosts=$2; shift 2 ;;
      --ranks) ranks=$2; shift 2 ;;
      --backend) backend=$2; shift 2 ;;
      --rate) rate=$2; shift 2 ;;
      --delay) delay=$2; shift 2 ;;
      --timeout) timeout_s=$2; shift 2 ;;
      --cut) cut=$2; shift 2 ;;
      --status-dir) status_dir=$2; shift 2 ;;
      --) shift; break ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ $# -gt 0 ] || die "no program given"
  ((hosts >= 2 && hosts <= 4)) || die "--hosts must be 2..4"
  ((ranks >= 1)) || die "--ranks must be >= 1"
  if ! can_make_namespaces; then
    echo "netns-hosts: cannot make network namespaces here (needs root and iproute2): skipped" >&2
    exit "$SKIP"
  fi
  run_job "$@"
}

main "$@"
