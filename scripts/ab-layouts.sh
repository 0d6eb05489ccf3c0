#!/usr/bin/env bash
# Compare two versions of the library's headers on fib (fj-overhead's source) over eight code placements.
# Each side is compiled eight times with clang-19 -O3, moving the hot code by 0, 16, ..., 112 bytes
# (FJ_BENCH_LAYOUT_PAD in bench/overhead/fib_overhead.cpp); the runs alternate between the two sides, pad by
# pad, round by round. Printed: the median time per side and placement, the median over the placements, and
# in how many placements the new side was faster. A single pair of binaries is one draw of the layout lottery
# (docs/performance.md, "Measuring a change"); this is several.
#
#   scripts/ab-layouts.sh OLD NEW [ROUNDS (5)] [N (32)] [VARIANT (unit)]
# OLD and NEW are each a git revision (its include/ is extracted) or the path of an include directory (the
# one holding forkjoin/); `.` means this checkout's include/ as it is now, uncommitted edits included.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: scripts/ab-layouts.sh OLD NEW [ROUNDS] [N] [VARIANT]" >&2
  exit 1
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${3:-5}"
n="${4:-32}"
variant="${5:-unit}"
pads=(0 16 32 48 64 80 96 112)
cxx="${CXX:-clang++-19}"
command -v "$cxx" >/dev/null || { echo "ab-layouts.sh: $cxx not found (set CXX)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# include_dir SIDE SPEC: the include directory for OLD or NEW.
include_dir() {
  local side="$1" spec="$2"
  if [[ "$spec" == "." ]]; then
    echo "$root/include"
  elif [[ -d "$spec/forkjoin" ]]; then
    (cd "$spec" && pwd)
  elif git -C "$root" rev-parse --verify --quiet "$spec^{commit}" >/dev/null; then
    mkdir -p "$work/$side"
    git -C "$root" archive "$spec" include | tar -x -C "$work/$side"
    echo "$work/$side/include"
  else
    echo "ab-layouts.sh: $spec is neither a git revision nor an include directory with forkjoin/ in it" >&2
    exit 1
  fi
}
inc_old="$(include_dir old "$1")"
inc_new="$(include_dir new "$2")"

echo "building 2 x ${#pads[@]} binaries of bench/overhead/fib_overhead.cpp with $cxx -O3 ..."
build() {
  local side="$1" pad="$2" inc="$inc_old"
  [[ "$side" == new ]] && inc="$inc_new"
  "$cxx" -std=c++20 -O3 -DNDEBUG -DFJ_BENCH_LAYOUT_PAD="$pad" -I"$inc" \
    "$root/bench/overhead/fib_overhead.cpp" -o "$work/$side-$pad" -pthread
}
jobs="$(nproc)"
for side in old new; do
  for pad in "${pads[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
    build "$side" "$pad" &
  done
done
while (($(jobs -rp | wc -l) > 0)); do wait -n; done
for side in old new; do
  for pad in "${pads[@]}"; do
    [[ -x "$work/$side-$pad" ]] || { echo "ab-layouts.sh: building the $side side failed" >&2; exit 1; }
  done
done

# fj-overhead --only prints "<variant> fib(<n>): <seconds> s".
seconds() { "$1" --only "$variant" --n "$n" | awk '{print $(NF-1)}'; }
for ((r = 0; r < rounds; ++r)); do
  for pad in "${pads[@]}"; do
    echo "old $pad $(seconds "$work/old-$pad")" >>"$work/times"
    echo "new $pad $(seconds "$work/new-$pad")" >>"$work/times"
  done
done

echo "fib($n), $variant: medians of $rounds alternating runs per placement (seconds)"
awk -v pads="${pads[*]}" '
  function median(list,   v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 2; i <= k; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  { times[$1, $2] = times[$1, $2] " " $3 }
  END {
    np = split(pads, p, " ")
    printf "%-6s %10s %10s %8s\n", "pad", "old", "new", "new/old"
    faster = 0
    for (i = 1; i <= np; ++i) {
      o = median(times["old", p[i]]); w = median(times["new", p[i]])
      olds = olds " " o; news = news " " w
      if (w < o) ++faster
      printf "%-6s %10.4f %10.4f %8.3f\n", p[i], o, w, w / o
    }
    mo = median(olds); mw = median(news)
    printf "%-6s %10.4f %10.4f %8.3f\n", "median", mo, mw, mw / mo
    printf "new faster in %d of %d placements\n", faster, np
  }' "$work/times"
