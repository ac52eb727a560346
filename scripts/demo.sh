#!/usr/bin/env bash
# demo.sh — set up, then trace a bundled MPI program (stencil2d, 4 ranks) and
# print what was captured: calls and bytes by function and rank, the
# folded loop structure with its times, the imbalance across ranks, a search
# in time, rank 1's first events unrolled from the trace, a replay of the
# trace (its MPI calls run again, with its compute delays) and a what-if
# simulation of it in SimGrid.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh mpich
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
out=$(mktemp -d "${TMPDIR:-/tmp}/tracefold-demo.XXXXXX")
echo
echo "== mpirun -np 4 env LD_PRELOAD=build/src/recorder/libtracefold.so TRACEFOLD_VERBOSE=1 wl_stencil2d -i 20"
mpirun.mpich -np 4 env LD_PRELOAD="$PWD/build/src/recorder/libtracefold.so" TRACEFOLD_OUTPUT="$out/trace" \
  TRACEFOLD_VERBOSE=1 build/workloads/wl_stencil2d -i 20   # (a clean run is silent; VERBOSE says where the trace went)
echo
echo "== tracefold stats $out/trace"
build/src/cli/tracefold stats "$out/trace"
echo
echo "== tracefold show (the loops of all 4 ranks in one structure: rank lists, per-rank values)"
build/src/cli/tracefold show "$out/trace"
echo
echo "== tracefold imbalance --top 3 (events by compute-time spread across ranks)"
build/src/cli/tracefold imbalance --top 3 "$out/trace"
echo
echo "== tracefold time --rank 1 (the event rank 1 was in at 75% and at 95% of its timeline)"
build/src/cli/tracefold time --rank 1 75% 95% "$out/trace"
echo
echo "== tracefold unroll --rank 1 (first 12 of its events, regenerated from the merged trace)"
build/src/cli/tracefold unroll --rank 1 "$out/trace" >"$out/unrolled"
head -12 "$out/unrolled"
echo
echo "== tracefold replay --compute mean (its MPI calls run again on 4 ranks, with the trace's compute delays)"
TRACEFOLD_MPIRUN=mpirun.mpich build/src/cli/tracefold replay --compute mean "$out/trace"
echo
echo "== tracefold simulate --sweep bandwidth=... (the same trace in SimGrid, on 4 simulated nodes: what if the network were slower)"
build/src/cli/tracefold simulate --compute mean --sweep bandwidth=100Mbps,1Gbps,10Gbps "$out/trace"
echo
echo "== one file for all ranks: $(ls "$out/trace"), $(wc -c <"$out/trace/trace.tf") bytes"
echo
echo "The trace is in $out/trace"
