#!/usr/bin/env bash
# ctest bench_size_option: fj-bench --size, good and bad input.
#   bench/suite/tests/size_option.sh <fj-bench> <scratch directory>
# Bad sizes must stop fj-bench before it measures anything, with exit status 2 and a message naming the
# problem; good ones must reach --list, the child processes, runs.csv and report.md.
set -uo pipefail

bench="$1"
scratch="$2"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# rejects <size argument> <expected message>
rejects() {
  local output status
  output="$("$bench" --scale quick --workloads fib --reps 1 --workers 1 --out "$scratch/never" --size "$1" 2>&1)"
  status=$?
  [[ $status -eq 2 ]] || fail "--size '$1': exit status $status, expected 2"
  grep -qF -- "$2" <<<"$output" || fail "--size '$1': no message '$2' in: $output"
  [[ ! -e "$scratch/never" ]] || fail "--size '$1': results were written"
}

rm -rf "$scratch"
mkdir -p "$scratch"

rejects "nosuch=10" "unknown workload 'nosuch'"
rejects "fib=abc" "'abc' is not a positive whole number"
rejects "fib=-3" "'-3' is not a positive whole number"
rejects "fib=0" "'0' is not a positive whole number"
rejects "fib=3.5" "'3.5' is not a positive whole number"
rejects "fib=99999999999999999999" "is not a positive whole number"
rejects "fib" "'fib' is not workload=N"
rejects "=30" "'=30' is not workload=N"
rejects "fib=51" "n of fib(n) must be from 2 to 50"
rejects "nqueens=17" "must be from 4 to 16"
rejects "matmul=96" "must be a power of two"
rejects "blkmul=100" "must be a multiple of 64"
rejects "fib=20,fib=21" "fib is given two sizes"
rejects "" "expected workload=N"

# --list shows the chosen sizes, at every scale.
for scale in quick default paper; do
  listing="$("$bench" --list --scale "$scale" --size fib=21,T3=150)" || fail "--list --scale $scale --size: failed"
  grep -qE '^ +N=21 \(--size\): n of fib\(n\)' <<<"$listing" || fail "--list --scale $scale: fib's N=21 not shown"
  grep -qE '^  T3 +binomial b=150 ' <<<"$listing" || fail "--list --scale $scale: T3 with b=150 not shown"
done

# A measured run: the size reaches the children, the CSV, the JSON and the report; forkjoin's steal counters
# come back from the children. T3 with b=150 has no recorded count: it is checked by a serial search.
out="$scratch/run"
if ! "$bench" --scale quick --workloads fib,T3 --impls fj-busy --workers 1,2 --reps 1 --size fib=21,T3=150 \
  --out "$out" >"$scratch/run.log" 2>&1; then
  cat "$scratch/run.log" >&2
  fail "measured run with --size failed"
else
  grep -q '^fib,fj-busy,2,quick,21,1,' "$out/runs.csv" || fail "runs.csv: no fj-busy P=2 row with size 21"
  # The last column, work, is empty for workloads that do not count it (work_counts.hpp).
  grep -qE '^T3,serial,1,quick,150,1,[0-9.]+,[0-9]+,,,,,$' "$out/runs.csv" || fail "runs.csv: serial T3 row"
  grep -qE '^fib,fj-busy,2,quick,21,1,[0-9.]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,$' "$out/runs.csv" ||
    fail "runs.csv: fj-busy row without steal counters"
  grep -qF 'N = 21 (n of fib(n), from `--size`)' "$out/report.md" || fail "report.md: fib's size not shown"
  grep -qF '| sizes (`--size`) | T3=150, fib=21' "$out/report.md" || fail "report.md: --size row missing"
  grep -qF '| impl | P | steals | steal attempts | heavy fences | heavy fences / steal |' "$out/report.md" ||
    fail "report.md: no steal table"
  grep -qF '"sizes_given": {"T3": 150, "fib": 21}' "$out/results.json" || fail "results.json: sizes_given"
  grep -qF '"steal_stats": {"steals": ' "$out/results.json" || fail "results.json: no steal_stats"
  if command -v gnuplot >/dev/null 2>&1; then
    for plot in fib-scaling T3-scaling; do
      [[ -s "$out/plots/$plot.png" ]] || fail "no plots/$plot.png"
      grep -qF "(plots/$plot.png)" "$out/report.md" || fail "report.md does not link plots/$plot.png"
    done
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "size_option: $failures failure(s)" >&2
  exit 1
fi
echo "size_option: all checks passed"
