#!/usr/bin/env bash
# Runs clang-tidy-19 with .clang-tidy over the library's sources, the tests, examples and benchmarks (and through
# them the headers).
#   scripts/tidy.sh [files...]      default: every .cpp under src, tests/unit, tests/stress, examples, bench
#                                   (not bench/compile_time: a oneTBB program that scripts/compile-time.sh times)
# The static analyzer (clang-analyzer-*) runs in its shallow mode on tests/ and bench/: deep analysis of their
# GoogleTest bodies and benchmark drivers was most of the lint time, and the tests run under the sanitizers.
# The library's sources (src/) and the examples, which use the public API as users do, get the full analysis.
# Uses the clang-debug preset's compile_commands.json, configured here each time so that new files are in it (a
# file built twice, as the chaos and fault-injection variants are, is checked once per compile command).
# Environment:
#   FJ_JOBS        files checked at once (default: 2)
#   FJ_BUILD_ROOT  where the clang-debug tree goes (default: build, so build/clang-debug)
# Prints a line per file as it finishes, then every finding; exits non-zero on any finding or error.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_tidy=clang-tidy-19
if ! command -v "$clang_tidy" >/dev/null 2>&1; then
  echo "tidy: $clang_tidy not found (scripts/install-deps.sh test installs it)" >&2
  exit 1
fi

dir="${FJ_BUILD_ROOT:-build}/clang-debug"
jobs="${FJ_JOBS:-2}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if ! cmake --preset clang-debug -B "$dir" -DFJ_BUILD_TESTS=ON -DFJ_BUILD_EXAMPLES=ON -DFJ_BUILD_BENCHMARKS=ON \
  >"$tmp/configure.log" 2>&1; then
  cat "$tmp/configure.log" >&2
  echo "tidy: configuring clang-debug in $dir failed" >&2
  exit 1
fi

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(find src tests/unit tests/stress examples bench -name '*.cpp' -not -path 'bench/compile_time/*' 2>/dev/null | sort)
fi

# Checks file $2 into $tmp/$1.log (stderr too, less clang's "N warnings generated." count: those warnings are
# in headers outside HeaderFilterRegex, and clang-tidy does not show them).
check_file() {
  local log="$tmp/$1.log" t0=$SECONDS status=0 depth=()
  [[ "$2" == tests/* || "$2" == bench/* ]] && depth=(--extra-arg=-Xclang --extra-arg=-analyzer-config --extra-arg=-Xclang
    --extra-arg=mode=shallow)
  "$clang_tidy" -p "$dir" --quiet --warnings-as-errors='*' "${depth[@]}" "$2" >"$log" 2>"$log.stderr" || status=$?
  grep -v -E '^[0-9]+ warnings?( and [0-9]+ errors?)? generated\.$' "$log.stderr" >>"$log" || true
  if [[ $status -ne 0 ]]; then
    printf -- '--- %s (%ds): FAILED\n' "$2" $((SECONDS - t0))
  else
    printf -- '--- %s (%ds)\n' "$2" $((SECONDS - t0))
  fi
  return $status
}
export -f check_file
export clang_tidy dir tmp

started=$SECONDS
status=0
for i in "${!files[@]}"; do
  printf '%s\0%s\0' "$i" "${files[$i]}"
done | xargs -0 -n 2 -P "$jobs" bash -c 'check_file "$@"' _ || status=1

failed=0
for i in "${!files[@]}"; do
  if [[ -s "$tmp/$i.log" ]]; then
    failed=$((failed + 1))
    echo
    echo "=== ${files[$i]}"
    cat "$tmp/$i.log"
  fi
done
# Output with a zero exit status, or a failure without output (a silent crash), still counts.
[[ $failed -gt 0 ]] && status=1
[[ $status -ne 0 && $failed -eq 0 ]] && failed=1
echo "tidy: ${#files[@]} files, $failed with findings or errors ($((SECONDS - started)) s, $jobs jobs)"
exit $status
