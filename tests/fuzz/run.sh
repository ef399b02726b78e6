#!/usr/bin/env bash
# Runs the layout fuzzer for a bounded time on a scratch copy of the committed corpus, so that
# the inputs it discovers never land in the repository.
#
#   tests/fuzz/run.sh <build-dir> <seconds>
#
# <build-dir> is configured with -DWEFT_FUZZ=ON -DCMAKE_C_COMPILER=clang
# -DCMAKE_CXX_COMPILER=clang++. A crashing input is written to <build-dir>/fuzz-artifacts/;
# the script then exits non-zero. To keep an input as a regression seed, copy it into
# tests/fuzz/corpus/layout/ by hand.
set -euo pipefail

if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 <build-dir> <seconds>" >&2
  exit 2
fi
build_dir=$1
seconds=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fuzzer=$build_dir/tests/fuzz/layout_fuzz
if [[ ! -x $fuzzer ]]; then
  echo "$0: no $fuzzer; configure $build_dir with -DWEFT_FUZZ=ON and build it" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/corpus/layout" "$work/corpus"
artifacts=$(cd "$build_dir" && pwd)/fuzz-artifacts
mkdir -p "$artifacts"

# -timeout: one input may take at most 10 s (a hang is a bug); -rss_limit_mb: so does a blow-up
# of memory. New inputs go into the scratch copy only.
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$work/corpus"
