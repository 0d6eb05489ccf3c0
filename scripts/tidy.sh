#!/usr/bin/env bash
# Runs clang-tidy-19 with .clang-tidy over the tests, examples and benchmarks (and through them the headers).
#   scripts/tidy.sh [files...]      default: every .cpp under tests/unit, tests/stress, examples, bench
# Uses the clang-debug preset's compile_commands.json (configured here if missing). Exits non-zero on findings.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_tidy=clang-tidy-19
if ! command -v "$clang_tidy" >/dev/null 2>&1; then
  echo "tidy: $clang_tidy not found (apt-get install -y clang-tidy-19)" >&2
  exit 1
fi

dir="${FJ_BUILD_ROOT:-build}/clang-debug"
[[ -f "$dir/compile_commands.json" ]] || cmake --preset clang-debug -B "$dir" >/dev/null

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(find tests/unit tests/stress examples bench -name '*.cpp' 2>/dev/null | sort)
fi

status=0
for file in "${files[@]}"; do
  echo "--- $file"
  "$clang_tidy" -p "$dir" --quiet --warnings-as-errors='*' "$file" 2>/dev/null || status=1
done
exit $status
