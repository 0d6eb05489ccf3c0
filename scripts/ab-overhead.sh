#!/usr/bin/env bash
# Compare two builds of fj-overhead (before and after a hot-path change) by alternating their runs, so that
# drift on a shared machine hits both alike, and print the median time of each, of the serial projection
# (serial-out: fib writing through a pointer) and the ratios. docs/performance.md says why alternating runs
# of two binaries, and not two separate fj-overhead runs, are how we accept or reject a change.
#
#   scripts/ab-overhead.sh OLD_BINARY NEW_BINARY [ROUNDS (11)] [N (34)] [VARIANT (unit)]
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: scripts/ab-overhead.sh OLD_BINARY NEW_BINARY [ROUNDS] [N] [VARIANT]" >&2
  exit 1
fi
old="$1"
new="$2"
rounds="${3:-11}"
n="${4:-34}"
variant="${5:-unit}"
for exe in "$old" "$new"; do
  [[ -x "$exe" ]] || { echo "ab-overhead.sh: $exe is not an executable" >&2; exit 1; }
done

# fj-overhead --only prints "<variant> fib(<n>): <seconds> s".
seconds() { "$1" --only "$2" --n "$n" | awk '{print $(NF-1)}'; }

times_old=()
times_new=()
times_serial=()
for ((i = 0; i < rounds; ++i)); do
  times_old+=("$(seconds "$old" "$variant")")
  times_new+=("$(seconds "$new" "$variant")")
  times_serial+=("$(seconds "$old" serial-out)")
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_old="$(median "${times_old[@]}")"
m_new="$(median "${times_new[@]}")"
m_serial="$(median "${times_serial[@]}")"
echo "fib($n), $variant, medians of $rounds alternating runs"
awk -v o="$m_old" -v w="$m_new" -v s="$m_serial" 'BEGIN {
  printf "old         %.4f s   T/Ts-out %.2f\n", o, o / s
  printf "new         %.4f s   T/Ts-out %.2f\n", w, w / s
  printf "serial-out  %.4f s\n", s
  printf "new / old   %.3f\n", w / o
}'
