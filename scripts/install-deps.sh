#!/usr/bin/env bash
# Installs every build and test dependency of Weft from Debian packages. Idempotent: when
# everything is already there it touches neither the network nor apt's lists.
# Later issues add package names to PACKAGES and nothing else.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev clang-format
  libboost-dev libboost-system-dev
  libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libdlpack-dev
  nlohmann-json3-dev
  libgloo-dev
  libucx-dev ucx-utils
  libssl-dev
  binutils
  iproute2 util-linux
  python3 python3-numpy python3-pytest
  libhwloc-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
