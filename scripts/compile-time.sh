#!/usr/bin/env bash
# How long a user's translation unit takes to compile: the README's fib example (examples/fib.cpp) against the
# same program written with oneTBB's task_group (bench/compile_time/fib_tbb.cpp), compiled alternately, each
# to an object file, and the time to parse <forkjoin/forkjoin.hpp> alone (-fsyntax-only).
#
#   scripts/compile-time.sh [--runs N] [--root DIR] [--markdown]
#
# --runs N    compilations of each program (default 5); medians are printed
# --root DIR  the forkjoin checkout whose headers and fib example are compiled (default: this one), e.g. a
#             `git worktree add` of an older commit, to compare before and after side by side
# --markdown  print a small Markdown table instead of plain lines (scripts/bench.sh's report)
# Environment: CXX (default clang++-19). The target of issue 19: fib at most 1.5 times oneTBB's.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
root="$here"
runs=5
markdown=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --root) root="$(cd "$2" && pwd)"; shift 2 ;;
    --markdown) markdown=1; shift ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "compile-time: unknown argument $1" >&2; exit 2 ;;
  esac
done

cxx="${CXX:-clang++-19}"
flags=(-O2 -std=c++20)
fib="$root/examples/fib.cpp"
tbb="$here/bench/compile_time/fib_tbb.cpp"
if ! command -v "$cxx" >/dev/null; then
  echo "compile-time: $cxx not found, skipped"
  exit 0
fi
if ! echo '#include <tbb/task_group.h>' | "$cxx" -std=c++20 -fsyntax-only -x c++ - 2>/dev/null; then
  echo "compile-time: oneTBB headers not found (scripts/install-deps.sh installs libtbb-dev), skipped"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Milliseconds one command takes.
milliseconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

fj_times=()
tbb_times=()
syntax_times=()
# One untimed round first, so that both programs start with the same warm file cache.
"$cxx" "${flags[@]}" "-I$root/include" -c "$fib" -o "$work/fj.o"
"$cxx" "${flags[@]}" -c "$tbb" -o "$work/tbb.o"
for ((i = 0; i < runs; ++i)); do
  fj_times+=("$(milliseconds "$cxx" "${flags[@]}" "-I$root/include" -c "$fib" -o "$work/fj.o")")
  tbb_times+=("$(milliseconds "$cxx" "${flags[@]}" -c "$tbb" -o "$work/tbb.o")")
  syntax_times+=("$(milliseconds "$cxx" -std=c++20 "-I$root/include" -fsyntax-only -x c++ - <<<'#include <forkjoin/forkjoin.hpp>')")
done

fj_median="$(median "${fj_times[@]}")"
tbb_median="$(median "${tbb_times[@]}")"
syntax_median="$(median "${syntax_times[@]}")"
ratio="$(awk -v a="$fj_median" -v b="$tbb_median" 'BEGIN { printf "%.2f", a / b }')"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"

if [[ $markdown -eq 1 ]]; then
  echo "| $cxx ${flags[*]} -c, median of $runs (forkjoin $commit) | ms |"
  echo "|---|---|"
  echo "| examples/fib.cpp (forkjoin) | $fj_median |"
  echo "| the same with oneTBB task_group | $tbb_median |"
  echo "| ratio forkjoin / oneTBB (target <= 1.5) | $ratio |"
  echo "| -fsyntax-only <forkjoin/forkjoin.hpp> | $syntax_median |"
else
  echo "compile time, $cxx ${flags[*]} -c, median of $runs, alternating (forkjoin at $commit, $root)"
  echo "  fib with forkjoin:               $fj_median ms   (runs: ${fj_times[*]})"
  echo "  fib with oneTBB task_group:      $tbb_median ms   (runs: ${tbb_times[*]})"
  echo "  ratio forkjoin / oneTBB:         $ratio   (target <= 1.5)"
  echo "  -fsyntax-only forkjoin.hpp:      $syntax_median ms   (runs: ${syntax_times[*]})"
fi
