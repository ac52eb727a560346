#!/usr/bin/env bash
# demo.sh — set up, then trace a bundled MPI program (stencil2d, 4 ranks) and
# print what was captured: calls and bytes by function and rank, and the
# first events of rank 1 as the reference trace holds them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh mpich
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
out=$(mktemp -d "${TMPDIR:-/tmp}/tracefold-demo.XXXXXX")
echo
echo "== mpirun -np 4 env LD_PRELOAD=build/src/recorder/libtracefold.so wl_stencil2d -i 20"
mpirun.mpich -np 4 env LD_PRELOAD="$PWD/build/src/recorder/libtracefold.so" TRACEFOLD_OUTPUT="$out/trace" \
  build/workloads/wl_stencil2d -i 20
echo
echo "== tracefold summary $out/trace"
build/src/cli/tracefold summary "$out/trace"
echo
echo "== tracefold dump (rank 1, first 12 events)"
build/src/cli/tracefold dump "$out/trace/rank-1.flat" | head -12
echo
echo "The trace is in $out/trace"
