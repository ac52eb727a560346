#!/usr/bin/env bash
# export_traces.sh — the traces the export and report tests read (ctest
# fixture export_traces): every workload traced once at 4 ranks, and
# stencil2d at 1 rank, with TRACEFOLD_MODE=both (the merged trace.tf and
# each rank's flat file: --flat exports read those, with exact times), into
# OUT/<workload>.np<P>/. OUT is emptied first.
#
# usage: export_traces.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --wldir BUILD/workloads --out OUT -- WORKLOAD_NAME...
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib wldir out --:workloads" "$@"

rm -rf "$out"
mkdir -p "$out"
record() { # WORKLOAD NP
  local wl=$1 np=$2 prog="$wldir/wl_$1" dir="$out/$1.np$2"
  [ -x "$prog" ] || fail "no workload program $prog"
  tf_traced "$np" "$dir" TRACEFOLD_MODE=both -- "$prog" -i 5 >"$dir.run" 2>&1 ||
    { tail "$dir.run" >&2; fail "$wl at $np ranks: the traced run failed"; }
  [ -f "$dir/trace.tf" ] || fail "$wl at $np ranks: no trace.tf"
}
for wl in "${workloads[@]}"; do record "$wl" 4; done
record stencil2d 1
say "OK: $(ls -d "$out"/*.np* | grep -vc '\.run$') traces in $out"
