#!/usr/bin/env bash
# Instructions per fork of forkjoin, and per call of the serial projection, counted by valgrind's callgrind
# (deterministic, unlike timings on a shared machine). Each variant runs fib at two sizes; the difference of the
# totals divided by the difference of the fork counts cancels start-up, pool creation and thread start.
#
#   scripts/callgrind-per-fork.sh [path/to/fj-overhead]     (default: build/clang-release/bin/fj-overhead)
set -euo pipefail
cd "$(dirname "$0")/.."

exe="${1:-build/clang-release/bin/fj-overhead}"
if [[ ! -x "$exe" ]]; then
  echo "callgrind-per-fork.sh: $exe not found; build it with: cmake --preset clang-release && cmake --build --preset clang-release --target fj-overhead" >&2
  exit 1
fi
command -v valgrind >/dev/null || { echo "callgrind-per-fork.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

small=22
large=25
# fib(n) forks fib(n + 1) - 1 times (one fork per internal node of its call tree).
fib() { local a=0 b=1 i t; for ((i = 0; i < $1; i++)); do t=$((a + b)); a=$b; b=$t; done; echo "$a"; }
forks_small=$(($(fib $((small + 1))) - 1))
forks_large=$(($(fib $((large + 1))) - 1))
delta_forks=$((forks_large - forks_small))

count() {
  local variant="$1" n="$2" out
  out="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$exe" --only "$variant" --n "$n" 2>&1)"
  grep -Eo 'refs: +[0-9,]+' <<<"$out" | tr -d ', ' | sed 's/refs://'
}

printf '%-8s %16s %16s %14s %14s\n' variant "Ir fib($small)" "Ir fib($large)" "Ir/fork" "Ir/call"
for variant in serial serial-out unit busy1; do
  a=$(count "$variant" "$small")
  b=$(count "$variant" "$large")
  per_fork=$(awk -v a="$a" -v b="$b" -v d="$delta_forks" 'BEGIN { printf "%.1f", (b - a) / d }')
  per_call=$(awk -v a="$a" -v b="$b" -v d="$delta_forks" 'BEGIN { printf "%.1f", (b - a) / (2 * d + 1) }')
  printf '%-8s %16s %16s %14s %14s\n' "$variant" "$a" "$b" "$per_fork" "$per_call"
done
echo "(a fork is one internal node of fib's call tree: one fork + one call; there are about 2 calls per fork)"
