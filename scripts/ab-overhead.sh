#!/usr/bin/env bash
# Compare two builds of fj-overhead (before and after a hot-path change) by alternating their runs, so that
# drift on a shared machine hits both alike, and print the median time of each, of a serial projection
# (lib/overhead-workload.sh says which) and the ratios. docs/performance.md says why alternating runs of two
# binaries, and not two separate fj-overhead runs, are how we accept or reject a change.
#
#   scripts/ab-overhead.sh [--workload fib|integrate] OLD_BINARY NEW_BINARY [ROUNDS (11)] [N] [VARIANT (unit)]
# N defaults to 34 for fib and 1000 for integrate.
set -euo pipefail

# shellcheck source=lib/overhead-workload.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/overhead-workload.sh"
name=fib
if [[ "${1:-}" == --workload ]]; then
  name="${2:-}"
  shift 2 || true
fi
overhead_workload "$name" 34 1000
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/ab-overhead.sh [--workload fib|integrate] OLD_BINARY NEW_BINARY [ROUNDS] [N] [VARIANT]" >&2
  exit 1
fi
old="$1"
new="$2"
rounds="${3:-11}"
n="${4:-$default_n}"
variant="${5:-unit}"
for exe in "$old" "$new"; do
  [[ -x "$exe" ]] || { echo "ab-overhead.sh: $exe is not an executable" >&2; exit 1; }
done


times_old=()
times_new=()
times_serial=()
for ((i = 0; i < rounds; ++i)); do
  times_old+=("$(overhead_seconds "$old" "$variant")")
  times_new+=("$(overhead_seconds "$new" "$variant")")
  times_serial+=("$(overhead_seconds "$old" "$serial")")
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_old="$(median "${times_old[@]}")"
m_new="$(median "${times_new[@]}")"
m_serial="$(median "${times_serial[@]}")"
echo "$workload($n), $variant, medians of $rounds alternating runs"
awk -v o="$m_old" -v w="$m_new" -v s="$m_serial" -v name="$serial" 'BEGIN {
  printf "old         %.4f s   T/%s %.2f\n", o, name, o / s
  printf "new         %.4f s   T/%s %.2f\n", w, name, w / s
  printf "%-10s  %.4f s\n", name, s
  printf "new / old   %.3f\n", w / o
}'
