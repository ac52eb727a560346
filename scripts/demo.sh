#!/usr/bin/env bash
# demo.sh — set up, then trace a bundled MPI program (stencil2d, 4 ranks) and
# print what was captured: calls and bytes by function and rank, rank 1's
# folded loop structure, and its first events unrolled from it.
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
echo "== tracefold show --rank 1 (the loops rank 1 ran, each parameter as a value sequence)"
build/src/cli/tracefold show --rank 1 "$out/trace"
echo
echo "== tracefold unroll --rank 1 (first 12 of its events, regenerated from the loops)"
build/src/cli/tracefold unroll --rank 1 "$out/trace" >"$out/unrolled"
head -12 "$out/unrolled"
echo
echo "== rank 1: $(wc -l <"$out/unrolled") events in $(wc -c <"$out/trace/rank-1.tfc") bytes (a 14 KB function table included)"
echo
echo "The trace is in $out/trace"
