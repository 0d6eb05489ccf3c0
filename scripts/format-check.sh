#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format; prints the offending places and fails if not.
#   scripts/format-check.sh          check
#   scripts/format-check.sh --fix    reformat in place
# Pinned to clang-format-19, the same LLVM as the clang++-19 we build with: formatting differs between versions.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format=clang-format-19
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "format-check: $clang_format not found (apt-get install -y clang-format-19)" >&2
  exit 1
fi

mapfile -t files < <(find include src tests examples bench -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \) \
  -not -path 'tests/package/compile_fail_selftest/*' | sort)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "format-check: no files"
  exit 0
fi

if [[ "${1:-}" == --fix ]]; then
  "$clang_format" -i "${files[@]}"
  echo "format-check: formatted ${#files[@]} files"
else
  "$clang_format" --dry-run -Werror "${files[@]}"
  echo "format-check: ${#files[@]} files formatted as .clang-format says"
fi
