#!/usr/bin/env bash
# Checks the ABI surface of libweft against the committed list (SPEC §6.1, §10):
#  - the exported (dynamic, defined) symbols are exactly those of the list;
#  - each carries the default version WEFT_1.0 (set by api/weft.map);
#  - the SONAME is libweft.so.1.
#
#   scripts/check-symbols.sh <libweft.so> <api/weft.symbols>
#
# The list holds one symbol per line, sorted (LC_ALL=C), without the @@WEFT_1.0 suffix.
set -euo pipefail
export LC_ALL=C

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <libweft.so> <symbol-list>" >&2
  exit 2
fi
lib=$1
list=$2
expected_soname=libweft.so.1
expected_version=WEFT_1.0
for f in "$lib" "$list"; do
  [[ -r $f ]] || { echo "$0: cannot read $f" >&2; exit 2; }
done

failed=0
fail() {
  echo "check-symbols: $*" >&2
  failed=1
}

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
[[ $soname == "$expected_soname" ]] ||
  fail "$lib has SONAME '${soname:-<none>}' but must have $expected_soname"

# nm -D prints "<value> <type> name@@VERSION" (and "<value> A WEFT_1.0" for the version node
# itself, which is no symbol of ours). Keep the code and data symbols.
versioned=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWwiu]$/ { print $3 }' | sort)
if [[ -z $versioned ]]; then
  fail "$lib exports no symbols at all"
fi
unversioned=$(grep -v "@@$expected_version\$" <<<"$versioned" || true)
if [[ -n $unversioned ]]; then
  fail "exported without the default version @@$expected_version (is api/weft.map applied?):"$'\n'"$(
    sed 's/^/  ! /' <<<"$unversioned")"
fi

actual=$(sed 's/@.*//' <<<"$versioned" | sort -u)
if ! sort -c "$list" 2>/dev/null || [[ -n $(uniq -d "$list") ]]; then
  fail "$list is not sorted and unique; regenerate it with: LC_ALL=C sort -u"
fi
wanted=$(grep -v '^[[:space:]]*$' "$list" | sort -u)

added=$(comm -23 <(echo "$actual") <(echo "$wanted"))
removed=$(comm -13 <(echo "$actual") <(echo "$wanted"))
if [[ -n $added ]]; then
  fail "exported by $lib but not in $list (added):"$'\n'"$(sed 's/^/  + /' <<<"$added")"
fi
if [[ -n $removed ]]; then
  fail "in $list but not exported by $lib (removed; this breaks programs linked against" \
    "libweft.so.1):"$'\n'"$(sed 's/^/  - /' <<<"$removed")"
fi

if [[ $failed -ne 0 ]]; then
  echo "check-symbols: FAILED: update api/weft.symbols if intended ($list; symbols may be" \
    "added, never removed or renamed, within $expected_version)." >&2
  exit 1
fi
echo "check-symbols: $(wc -l <<<"$actual") symbols, all $expected_version, SONAME $soname: OK"
