#!/usr/bin/env bash
# Compare two versions of the library's headers on fib or integrate (fj-overhead's source) over eight code
# placements. Each side is compiled eight times with clang-19 -O3, moving the hot code by 0, 16, ..., 112
# bytes (FJ_BENCH_LAYOUT_PAD in bench/overhead/fork_overhead.cpp); the runs alternate between the two sides,
# pad by pad, round by round. Printed: the median time per side and placement, the median over the
# placements, and in how many placements the new side was faster; also each side's T/Ts against its own serial
# projection at that placement (lib/overhead-workload.sh says which). A single pair of binaries is one draw
# of the layout lottery (docs/performance.md, "Measuring a change"); this is several. With the same revision
# on both sides it measures how far placement alone moves one source.
#
#   scripts/ab-layouts.sh [--workload fib|integrate] OLD NEW [ROUNDS (5)] [N] [VARIANT (unit)]
# OLD and NEW are each a git revision (its include/ is extracted) or the path of an include directory (the
# one holding forkjoin/); `.` means this checkout's include/ as it is now, uncommitted edits included. N
# defaults to 32 for fib and 300 for integrate (about 35 ms each on fj::unit_pool).
set -euo pipefail

# shellcheck source=lib/overhead-workload.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/overhead-workload.sh"
name=fib
if [[ "${1:-}" == --workload ]]; then
  name="${2:-}"
  shift 2 || true
fi
overhead_workload "$name" 32 300
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/ab-layouts.sh [--workload fib|integrate] OLD NEW [ROUNDS] [N] [VARIANT]" >&2
  exit 1
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${3:-5}"
n="${4:-$default_n}"
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

echo "building 2 x ${#pads[@]} binaries of bench/overhead/fork_overhead.cpp with $cxx -O3 ..."
build() {
  local side="$1" pad="$2" inc="$inc_old"
  [[ "$side" == new ]] && inc="$inc_new"
  "$cxx" -std=c++20 -O3 -DNDEBUG -DFJ_BENCH_LAYOUT_PAD="$pad" -I"$inc" -I"$root/bench/suite/workloads/fib" \
    -I"$root/bench/suite/workloads/integrate" "$root/bench/overhead/fork_overhead.cpp" -o "$work/$side-$pad" \
    -pthread
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

for ((r = 0; r < rounds; ++r)); do
  for pad in "${pads[@]}"; do
    for side in old new; do
      echo "$side $pad $(overhead_seconds "$work/$side-$pad" "$variant")" >>"$work/times"
      echo "$side-serial $pad $(overhead_seconds "$work/$side-$pad" "$serial")" >>"$work/times"
    done
  done
done

echo "$workload($n), $variant: medians of $rounds alternating runs per placement (seconds); T/Ts against $serial"
awk -v pads="${pads[*]}" '
  function median(list,   v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 2; i <= k; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  { times[$1, $2] = times[$1, $2] " " $3 }
  END {
    np = split(pads, p, " ")
    printf "%-6s %10s %10s %8s %9s %9s\n", "pad", "old", "new", "new/old", "old T/Ts", "new T/Ts"
    faster = 0
    for (i = 1; i <= np; ++i) {
      o = median(times["old", p[i]]); w = median(times["new", p[i]])
      ro = o / median(times["old-serial", p[i]]); rw = w / median(times["new-serial", p[i]])
      olds = olds " " o; news = news " " w; old_ratios = old_ratios " " ro; new_ratios = new_ratios " " rw
      if (w < o) ++faster
      printf "%-6s %10.4f %10.4f %8.3f %9.2f %9.2f\n", p[i], o, w, w / o, ro, rw
    }
    mo = median(olds); mw = median(news)
    printf "%-6s %10.4f %10.4f %8.3f %9.2f %9.2f\n", "median", mo, mw, mw / mo, median(old_ratios), median(new_ratios)
    printf "new faster in %d of %d placements\n", faster, np
  }' "$work/times"
