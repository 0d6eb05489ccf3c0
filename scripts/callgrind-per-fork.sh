#!/usr/bin/env bash
# Instructions per fork of forkjoin, and per call of the serial projection, counted by valgrind's callgrind
# (deterministic, unlike timings on a shared machine). Each variant runs the workload at two sizes; the
# difference of the totals divided by the difference of the fork counts cancels start-up, pool creation and
# thread start.
#
#   scripts/callgrind-per-fork.sh [path/to/fj-overhead [fib|integrate [variant[,variant...]]]]
# (defaults: build/clang-release/bin/fj-overhead, fib, serial,serial-out,unit,busy1,spawn-unit,spawn-busy1)
# A variant is one of fj-overhead --only's: the spawn-* variants run the workload as plain functions with
# fj::scope, so their Ir/fork is the instructions per spawn (one spawn and one call per internal node).
set -euo pipefail
cd "$(dirname "$0")/.."

exe="${1:-build/clang-release/bin/fj-overhead}"
if [[ ! -x "$exe" ]]; then
  echo "callgrind-per-fork.sh: $exe not found; build it with: cmake --preset clang-release && cmake --build --preset clang-release --target fj-overhead" >&2
  exit 1
fi
command -v valgrind >/dev/null || { echo "callgrind-per-fork.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

workload="${2:-fib}"
IFS=, read -r -a variants <<<"${3:-serial,serial-out,unit,busy1,spawn-unit,spawn-busy1}"
case "$workload" in
  fib) small=22 large=25 ;;
  integrate) small=100 large=300 ;;
  *) echo "callgrind-per-fork.sh: unknown workload $workload (fib or integrate)" >&2; exit 1 ;;
esac
# One fork per internal node of the call tree (a fork and a call each), counted by fj-overhead itself.
forks_small="$("$exe" --workload "$workload" --n "$small" --forks)"
forks_large="$("$exe" --workload "$workload" --n "$large" --forks)"
delta_forks=$((forks_large - forks_small))

count() {
  local variant="$1" n="$2" out
  out="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" --workload "$workload" --only "$variant" \
    --n "$n" 2>&1)"
  grep -Eo 'refs: +[0-9,]+' <<<"$out" | tr -d ', ' | sed 's/refs://'
}

printf '%-12s %16s %16s %14s %14s\n' variant "Ir $workload($small)" "Ir $workload($large)" "Ir/fork" "Ir/call"
for variant in "${variants[@]}"; do
  a=$(count "$variant" "$small")
  b=$(count "$variant" "$large")
  per_fork=$(awk -v a="$a" -v b="$b" -v d="$delta_forks" 'BEGIN { printf "%.1f", (b - a) / d }')
  per_call=$(awk -v a="$a" -v b="$b" -v d="$delta_forks" 'BEGIN { printf "%.1f", (b - a) / (2 * d) }')
  printf '%-12s %16s %16s %14s %14s\n' "$variant" "$a" "$b" "$per_fork" "$per_call"
done
echo "(a fork is one internal node of $workload's call tree: one fork + one call; there are about 2 calls (tasks)"
echo " per fork)"
