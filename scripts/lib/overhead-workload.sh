# shellcheck shell=bash
# Shared by scripts/ab-overhead.sh and scripts/ab-layouts.sh (sourced, not run): the workload option they
# both take and how they time one run of fj-overhead.
# The variables it sets (workload, default_n, serial) and reads (n) are its callers'.
# shellcheck disable=SC2034,SC2154

# overhead_workload NAME FIB_N INTEGRATE_N: sets `workload`, `default_n` (the caller's default size for that
# workload) and `serial` (the serial projection T/Ts is quoted against: fib against serial-out, writing
# through a pointer as libfork's serial fib does; integrate against serial, as fj-bench and libfork compare
# it). Exits on an unknown workload.
overhead_workload() {
  workload="$1"
  case "$workload" in
    fib) default_n="$2" serial=serial-out ;;
    integrate) default_n="$3" serial=serial ;;
    *) echo "$(basename "$0"): unknown workload '$workload' (fib or integrate)" >&2; exit 1 ;;
  esac
}

# overhead_seconds EXE VARIANT: one run of VARIANT on `workload` at size `n`, in seconds (fj-overhead --only
# prints "<variant> <workload>(<n>): <seconds> s").
overhead_seconds() { "$1" --workload "$workload" --only "$2" --n "$n" | awk '{print $(NF-1)}'; }
