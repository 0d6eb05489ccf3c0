#!/usr/bin/env bash
# The main job: builds forkjoin with clang-19 -O3 and runs its benchmarks; installs what it needs first (apt).
#
#   scripts/bench.sh [fj-bench options]      e.g. scripts/bench.sh --scale quick --workloads fib,nqueens
#
# 1. fj-overhead: per-fork overhead on fib and integrate, tasks and fj::scope spawns (T1/Ts, T2/Ts, ns and
#    instructions per fork or spawn);
#    fj-sleep (lazy_pool idle CPU, wake-up latency); fj-scratch (fj::scratch against heap arrays);
#    fj-steal-contention (k thieves aimed at one victim: heavy fences per successful steal, steal latency),
#    when it is built; its Markdown is appended to fj-bench's report.md and fails the job if it fails
# 2. fj-bench:    the suite against serial, oneTBB and OpenMP; arguments are passed on (see fj-bench --help),
#                 results go to ./results unless --out is given
# 2b. fj-sweep:   fib and quicksort against their sequential cutoff (serial, fj tasks, fj::scope spawns, oneTBB,
#                 OpenMP), ns per spawn and a parallel loop's memory; results/sweep/, appended to report.md.
#                 --scale quick is passed on to it (FJ_SWEEP_ARGS: more fj-sweep options)
# 3. fj-memory:   stack memory and maximum resident set against Theorem 2 (docs/verification/memory-bound.md);
#                 results in results/memory/, its table appended to fj-bench's report.md; fails the job if a
#                 stack peak exceeds the bound. --scale quick is passed on to it.
# 4. compile time: examples/fib.cpp against the same program with oneTBB (scripts/compile-time.sh); its table
#                 is appended to fj-bench's report.md.
# 5. fj-algorithms: the parallel algorithms against serial std::, oneTBB, OpenMP and std::execution::par
#                 (bench/algorithms/README.md); results in results/algorithms/, its table appended to fj-bench's
#                 report.md. FJ_ALGORITHMS_ARGS passes options to it (e.g. --big for 10^8 elements).
# The job fails (after running everything) if fj-memory, fj-steal-contention or fj-algorithms fails.
# Environment: FJ_BUILD_ROOT (default: build), FJ_JOBS (default: 2), FJ_MEMORY_ARGS (more fj-memory options),
# FJ_ALGORITHMS_ARGS (fj-algorithms options).
set -euo pipefail

cd "$(dirname "$0")/.."

preset=clang-release
build_root="${FJ_BUILD_ROOT:-build}"
dir="$build_root/$preset"
jobs="${FJ_JOBS:-2}"
results=results

scripts/install-deps.sh bench

echo "=== bench: configure and build $preset in $dir"
cmake --preset "$preset" -B "$dir" >/dev/null
targets="$(cmake --build "$dir" --target help)"
has_target() { grep -Eq "^$1: " <<<"$targets"; }

ran=0
steal_contention_failed=0
mkdir -p "$results"
rm -f "$results/steal-contention.md"

wants_help=0
for arg in "$@"; do
  [[ "$arg" == --help || "$arg" == -h ]] && wants_help=1
done

if [[ $wants_help -eq 1 ]]; then
  echo "bench: --help: showing fj-bench's options, running nothing"
elif has_target fj-overhead; then
  cmake --build "$dir" -j "$jobs" --target fj-overhead
  echo "=== fj-overhead: fib and integrate (also in $results/overhead.txt)"
  "$dir/bin/fj-overhead" </dev/null | tee "$results/overhead.txt"
  "$dir/bin/fj-overhead" --workload integrate </dev/null | tee -a "$results/overhead.txt"
  echo "=== instructions per fork (valgrind --tool=callgrind; also in $results/overhead.txt)"
  scripts/callgrind-per-fork.sh "$dir/bin/fj-overhead" fib | tee -a "$results/overhead.txt"
  scripts/callgrind-per-fork.sh "$dir/bin/fj-overhead" integrate | tee -a "$results/overhead.txt"
  cmake --build "$dir" -j "$jobs" --target fj-sleep fj-scratch
  echo "=== fj-sleep: lazy_pool idle CPU and wake-up latency (also in $results/sleep.txt)"
  "$dir/bin/fj-sleep" </dev/null | tee "$results/sleep.txt"
  echo "=== fj-scratch: per-task arrays on the segmented stack against the heap (also in $results/scratch.txt)"
  "$dir/bin/fj-scratch" </dev/null | tee "$results/scratch.txt"
  if has_target fj-steal-contention; then
    cmake --build "$dir" -j "$jobs" --target fj-steal-contention
    echo "=== fj-steal-contention: k thieves on one victim, heavy fences per steal (also in $results/steal-contention.md)"
    if ! "$dir/bin/fj-steal-contention" </dev/null | tee "$results/steal-contention.md"; then
      steal_contention_failed=1
      echo "bench: fj-steal-contention failed (see above)" >&2
    fi
  else
    echo "bench: no fj-steal-contention target yet (bench/overhead), skipped"
  fi
  ran=$((ran + 1))
else
  echo "bench: no fj-overhead target yet (bench/overhead), skipped"
fi

if has_target fj-bench; then
  cmake --build "$dir" -j "$jobs" --target fj-bench
  args=("$@")
  if [[ $wants_help -eq 0 && " $* " != *" --out "* && " $* " != *" --out="* ]]; then
    args+=(--out "$results")
  fi
  echo "=== fj-bench ${args[*]}"
  "$dir/bin/fj-bench" "${args[@]}" </dev/null
  ran=$((ran + 1))
else
  echo "bench: no fj-bench target yet (bench/suite), skipped"
fi

# fj-bench's report: the --out it was given, else $results.
report_dir="$results"
previous=""
for arg in "$@"; do
  [[ "$previous" == --out ]] && report_dir="$arg"
  [[ "$arg" == --out=* ]] && report_dir="${arg#--out=}"
  previous="$arg"
done

if [[ $wants_help -eq 0 ]] && has_target fj-sweep; then
  cmake --build "$dir" -j "$jobs" --target fj-sweep
  sweep_args=(--out "$results/sweep")
  [[ " $* " == *" --scale quick "* || " $* " == *" --scale=quick "* ]] || sweep_args+=(--scale default)
  read -r -a extra_sweep_args <<<"${FJ_SWEEP_ARGS:-}"
  sweep_args+=("${extra_sweep_args[@]}")
  echo "=== fj-sweep ${sweep_args[*]}: time against sequential cutoff, ns per spawn (also in $results/sweep/)"
  rm -f "$results/sweep/sweep.md"
  "$dir/bin/fj-sweep" "${sweep_args[@]}" </dev/null
  if [[ -f "$report_dir/report.md" && -f "$results/sweep/sweep.md" ]]; then
    # Its plots are linked relative to results/sweep/.
    { echo; sed -e 's/^#/##/' -e 's|(plots/sweep-|(sweep/plots/sweep-|' "$results/sweep/sweep.md"; } >>"$report_dir/report.md"
  fi
  ran=$((ran + 1))
fi

memory_failed=0
if [[ $wants_help -eq 1 ]]; then
  :
elif has_target fj-memory; then
  cmake --build "$dir" -j "$jobs" --target fj-memory
  memory_args=(--out "$results/memory")
  [[ " $* " == *" --scale quick "* || " $* " == *" --scale=quick "* ]] && memory_args+=(--scale quick)
  read -r -a extra_memory_args <<<"${FJ_MEMORY_ARGS:-}"
  memory_args+=("${extra_memory_args[@]}")
  echo "=== fj-memory ${memory_args[*]}: stack memory against Theorem 2 (also in $results/memory/)"
  rm -f "$results/memory/memory.md" "$results/memory/memory.csv"
  if ! "$dir/bin/fj-memory" "${memory_args[@]}" </dev/null; then
    memory_failed=1
    echo "bench: fj-memory: a stack peak exceeded the bound, or a run failed (see above)" >&2
  fi
  if [[ -f "$report_dir/report.md" && -f "$results/memory/memory.md" ]]; then
    { echo; sed 's/^#/##/' "$results/memory/memory.md"; } >>"$report_dir/report.md"
  fi
  ran=$((ran + 1))
else
  echo "bench: no fj-memory target yet (bench/memory), skipped"
fi

# fj-steal-contention's section, measured before fj-bench wrote report.md.
if [[ -f "$report_dir/report.md" && -s "$results/steal-contention.md" ]]; then
  # A top-level heading becomes a section of the report, as fj-memory's does.
  if grep -q '^# ' "$results/steal-contention.md"; then
    { echo; sed 's/^#/##/' "$results/steal-contention.md"; } >>"$report_dir/report.md"
  else
    { echo; cat "$results/steal-contention.md"; } >>"$report_dir/report.md"
  fi
fi
if [[ -f "$report_dir/report.md" && $steal_contention_failed -ne 0 ]]; then
  { echo; echo "**fj-steal-contention failed** (its output, if any, is above; the job fails)."; } >>"$report_dir/report.md"
fi

if [[ $wants_help -eq 0 ]]; then
  echo "=== compile time: fib against oneTBB's task_group (scripts/compile-time.sh; also in $results/compile-time.md)"
  scripts/compile-time.sh --markdown | tee "$results/compile-time.md"
  if [[ -f "$report_dir/report.md" ]]; then
    { echo; echo "## Compile time"; echo; cat "$results/compile-time.md"; } >>"$report_dir/report.md"
  fi
fi

algorithms_failed=0
if [[ $wants_help -eq 0 ]] && has_target fj-algorithms; then
  cmake --build "$dir" -j "$jobs" --target fj-algorithms
  algorithms_args=(--out "$results/algorithms")
  [[ " $* " == *" --scale quick "* || " $* " == *" --scale=quick "* ]] && algorithms_args+=(--sizes 1000,100000 --reps 6)
  read -r -a extra_algorithms_args <<<"${FJ_ALGORITHMS_ARGS:-}"
  algorithms_args+=("${extra_algorithms_args[@]}")
  echo "=== fj-algorithms ${algorithms_args[*]} (also in $results/algorithms/)"
  if ! "$dir/bin/fj-algorithms" "${algorithms_args[@]}" </dev/null; then
    algorithms_failed=1
    echo "bench: fj-algorithms: an implementation gave a wrong answer (see above)" >&2
  fi
  if [[ -f "$report_dir/report.md" && -f "$results/algorithms/algorithms.md" ]]; then
    { echo; sed 's/^#/##/' "$results/algorithms/algorithms.md"; } >>"$report_dir/report.md"
  fi
  ran=$((ran + 1))
fi

if [[ $ran -eq 0 ]]; then
  echo "bench: nothing to run" >&2
  exit 1
fi
echo "=== results in $results/"
if [[ $memory_failed -ne 0 || $steal_contention_failed -ne 0 || $algorithms_failed -ne 0 ]]; then
  exit 1
fi
