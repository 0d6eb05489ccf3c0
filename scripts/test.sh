#!/usr/bin/env bash
# Builds forkjoin and runs its tests in every configuration CI checks; installs what it needs first (apt).
#
#   scripts/test.sh
#
# Configurations (CMake presets, see CMakePresets.json) and the ctest labels each one runs:
#   format                       scripts/format-check.sh (clang-format-19, .clang-format)
#   docs                         scripts/check-doc-refs.sh (every file and section a comment or document cites
#                                exists; its --self-test first)
#   tidy                         scripts/tidy.sh (clang-tidy-19, .clang-tidy, over the clang-debug compile commands
#                                of tests/unit, tests/stress, examples and bench; configures, does not build)
#   gcc-release, clang-release   all labels (unit, stress, compile_fail, example, package, fuzz (clang), bench-quick)
#   clang-tsan, gcc-tsan         unit, stress   (the examples are not built; g++ without the algorithm tests)
#   clang-asan, gcc-asan         unit, stress   (ASan + UBSan; the examples are not built; g++ likewise)
# Environment:
#   FJ_TEST_CONFIGS  presets to run instead, e.g. FJ_TEST_CONFIGS="clang-release clang-tsan"; "format", "docs" and
#                    "tidy" run scripts/format-check.sh, scripts/check-doc-refs.sh and scripts/tidy.sh, each as one
#                    more configuration
#   FJ_BUILD_ROOT    where the build trees go (default: build, one build/<preset> per configuration)
#   FJ_JOBS          parallel build and test jobs, and files clang-tidy checks at once (default: 2)
#   FJ_TEST_SEED     seed for the randomised tests (default: each test's fixed seed; tests print it)
# Commit messages: `git config core.hooksPath .githooks` makes .githooks/commit-msg reject subjects over 72 characters.
# The last line is `N passed, N failed`, summed over configurations (ctest's counts; format, docs and tidy count as
# one test each). A configuration that fails to configure, has build errors, or runs no test adds one failure; a
# test whose program did not build fails as "Not Run". The exit status is non-zero iff anything failed.
set -uo pipefail

cd "$(dirname "$0")/.."

default_configs="format docs tidy gcc-release clang-release clang-tsan gcc-tsan clang-asan gcc-asan"
configs="${FJ_TEST_CONFIGS:-$default_configs}"
configs="${configs//,/ }"
build_root="${FJ_BUILD_ROOT:-build}"
jobs="${FJ_JOBS:-2}"

scripts/install-deps.sh test || {
  echo "test.sh: dependencies are missing (see above)" >&2
  echo "0 passed, 1 failed"
  exit 1
}

labels_for() {
  case "$1" in
    *-asan | *-tsan) echo '^(unit|stress)$' ;;
    *) echo '' ;;
  esac
}

# The g++ sanitizer builds leave out the parallel algorithms' test programs: the algorithms are templates in
# headers, the same code in both compilers, and clang-tsan and clang-asan run those programs; g++ keeps the
# runtime's own tests, where its coroutine code (trampolined transfers under the sanitizers) differs.
skip_for() {
  case "$1" in
    gcc-asan | gcc-tsan) echo '^algorithm_' ;;
    *) echo '' ;;
  esac
}

# The examples run as tests of the "example" label only, which the sanitizer configurations do not run.
examples_for() {
  case "$1" in
    *-asan | *-tsan) echo OFF ;;
    *) echo ON ;;
  esac
}

total_passed=0
total_failed=0
summary=()
started=$SECONDS

run_config() {
  local config="$1" dir="$build_root/$1" labels log
  labels="$(labels_for "$config")"
  log="$build_root/$config.log"
  mkdir -p "$build_root"
  local t0=$SECONDS

  echo
  echo "=== $config: configure and build ($dir, -j$jobs; log in $log)"
  if ! cmake --preset "$config" -B "$dir" -DFJ_BUILD_TESTS=ON -DFJ_BUILD_EXAMPLES="$(examples_for "$config")" \
    -DFJ_TEST_SKIP="$(skip_for "$config")" \
    >"$log" 2>&1; then
    tail -n 60 "$log"
    summary+=("$config: CONFIGURE FAILED (see $log)")
    total_failed=$((total_failed + 1))
    return
  fi
  # Keep going past a broken target: its tests then fail as "Not Run" and the others still run.
  local build_failed=0
  if ! cmake --build "$dir" -j "$jobs" -- -k 0 >>"$log" 2>&1; then
    build_failed=1
    echo "--- $config: build errors (first lines; all of them in $log)"
    grep -E -A 12 '^FAILED:' "$log" | head -n 150
    total_failed=$((total_failed + 1))
  fi
  local built=$((SECONDS - t0))

  echo "=== $config: ctest ${labels:+-L '$labels'}"
  local ctest_args=(--test-dir "$dir" -j "$jobs" --output-on-failure --no-tests=error)
  [[ -n "$labels" ]] && ctest_args+=(-L "$labels")
  local ctest_out="$build_root/$config.ctest.log"
  ctest "${ctest_args[@]}" </dev/null 2>&1 | tee "$ctest_out"
  local line passed failed total
  line="$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$ctest_out" | tail -n 1)"
  local note=""
  [[ $build_failed -eq 1 ]] && note=" + BUILD ERRORS (counted as 1 failure; see $log)"
  if [[ -z "$line" ]]; then
    summary+=("$config: NO TESTS RUN (see $ctest_out)$note")
    total_failed=$((total_failed + 1))
    return
  fi
  failed="$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")"
  total="$(sed -E 's/.*out of ([0-9]+)/\1/' <<<"$line")"
  passed=$((total - failed))
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$(printf '%-14s %4d passed, %d failed  (build %ds, tests %ds)%s' "$config:" "$passed" "$failed" \
    "$built" $((SECONDS - t0 - built)) "$note")")
  local name
  while read -r name; do
    summary+=("    failed: $name")
  done < <(sed -n '/The following tests FAILED:/,$p' "$ctest_out" | grep -E '^[[:space:]]+[0-9]+ - ' |
    sed -E 's/^[[:space:]]+[0-9]+ - //')
}

run_format() {
  echo
  echo "=== format: scripts/format-check.sh"
  if scripts/format-check.sh; then
    total_passed=$((total_passed + 1))
    summary+=("format:           1 passed, 0 failed")
  else
    total_failed=$((total_failed + 1))
    summary+=("format:           0 passed, 1 failed")
  fi
}

# scripts/check-doc-refs.sh (its self-test, then the repository) as one test.
run_docs() {
  echo
  echo "=== docs: scripts/check-doc-refs.sh"
  if scripts/check-doc-refs.sh --self-test && scripts/check-doc-refs.sh; then
    total_passed=$((total_passed + 1))
    summary+=("docs:             1 passed, 0 failed")
  else
    total_failed=$((total_failed + 1))
    summary+=("docs:             0 passed, 1 failed")
  fi
}

# scripts/tidy.sh as one test: its per-file progress goes to the log; the findings and its last line are shown.
run_tidy() {
  local log="$build_root/tidy.log" t0=$SECONDS
  mkdir -p "$build_root"
  echo
  echo "=== tidy: scripts/tidy.sh ($build_root/clang-debug, $jobs jobs; log in $log)"
  if FJ_BUILD_ROOT="$build_root" FJ_JOBS="$jobs" scripts/tidy.sh >"$log" 2>&1; then
    tail -n 1 "$log"
    total_passed=$((total_passed + 1))
    summary+=("$(printf '%-14s %4d passed, %d failed  (%ds)' "tidy:" 1 0 $((SECONDS - t0)))")
  else
    grep -v -E '^--- ' "$log" | head -n 200
    total_failed=$((total_failed + 1))
    summary+=("$(printf '%-14s %4d passed, %d failed  (%ds; see %s)' "tidy:" 0 1 $((SECONDS - t0)) "$log")")
  fi
}

for config in $configs; do
  case "$config" in
    format) run_format ;;
    docs) run_docs ;;
    tidy) run_tidy ;;
    *) run_config "$config" ;;
  esac
done

echo
echo "=== summary (${FJ_TEST_SEED:+FJ_TEST_SEED=$FJ_TEST_SEED, }$((SECONDS - started)) s)"
for line in "${summary[@]}"; do
  echo "  $line"
done
echo "$total_passed passed, $total_failed failed"
[[ $total_failed -eq 0 ]]
