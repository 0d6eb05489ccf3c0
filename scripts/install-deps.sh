#!/usr/bin/env bash
# Installs the Debian packages forkjoin needs, and nothing when they are all there already.
#   scripts/install-deps.sh [test|bench|all]     (default: all)
#     test   compilers, build tools, clang-format, clang-tidy and the libraries needed to build and run every test
#            (relacy-dev: the Relacy model checker behind the "model" tests)
#     bench  the same plus valgrind (instruction counts) and gnuplot (plots)
set -euo pipefail

group="${1:-all}"

test_packages=(
  g++-12 clang-19 libomp-19-dev libclang-rt-19-dev
  cmake ninja-build clang-format-19 clang-tidy-19
  libgtest-dev libbenchmark-dev libtbb-dev libhwloc-dev pkg-config relacy-dev
)
bench_packages=(valgrind gnuplot-nox)

case "$group" in
  test) packages=("${test_packages[@]}") ;;
  bench | all) packages=("${test_packages[@]}" "${bench_packages[@]}") ;;
  *)
    echo "usage: $0 [test|bench|all]" >&2
    exit 2
    ;;
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages for '$group' are installed"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "install-deps: not root and no password-less sudo; run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
