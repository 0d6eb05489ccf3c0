#!/bin/sh
# Instructions per call of serial std:: and forkjoin for every algorithm at N elements (default 1000), counted
# by callgrind on the main thread as (count at 220 calls - count at 20 calls) / 200 (bench/algorithms/README.md).
#   bench/algorithms/count.sh build/clang-release/bin/fj-algorithms-count [N]
set -eu
bin=$1
n=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
count() {  # algorithm implementation calls
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/out" "$bin" "$1" "$2" "$3" "$n" \
    >/dev/null 2>&1
  awk '/^totals:/ {print $2; exit}' "$dir/out-01"
  rm -f "$dir"/out*
}
printf '%-17s %10s %10s %7s\n' algorithm serial forkjoin ratio
for a in for_each transform reduce transform_reduce inclusive_scan exclusive_scan count_if find sort stable_sort; do
  s=$(( ($(count "$a" serial 220) - $(count "$a" serial 20)) / 200 ))
  f=$(( ($(count "$a" forkjoin 220) - $(count "$a" forkjoin 20)) / 200 ))
  printf '%-17s %10d %10d %7s\n' "$a" "$s" "$f" "$(awk "BEGIN {printf \"%.2f\", $f / $s}")"
done
