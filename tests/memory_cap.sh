#!/usr/bin/env bash
# memory_cap.sh — a run whose folded trace reaches TRACEFOLD_MEMORY: each
# rank warns once, the program's output is unchanged, its folded trace is
# kept in several segments (merged into one trace at MPI_Finalize), and it
# still unrolls exactly to the reference trace of the same run. Memory stays
# bounded by the cap.
#
# usage: memory_cap.sh "MPIRUN ARGS" LIBTRACEFOLD IRREGULAR_PROGRAM TRACEFOLD_CLI
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 prog=$3 cli=$4
tf_workdir cap
cd "$work"

np=3
tf_must traced "capped run failed" tf_traced $np trace TRACEFOLD_MODE=both TRACEFOLD_MEMORY=4K -- "$prog" -i 600
# shellcheck disable=SC2086
$mpirun -np $np "$prog" -i 600 >plain.out 2>/dev/null || fail "plain run failed"
cmp -s plain.out traced.out || fail "output differs when the memory cap is reached"
warned=$(grep -c 'reached TRACEFOLD_MEMORY' traced.err || true)
[ "$warned" -ge 1 ] && [ "$warned" -le $np ] || { cat traced.err >&2; fail "expected at most one cap warning per rank, got $warned"; }
[ -f trace/trace.tf ] || fail "no merged trace.tf"
"$cli" dump --no-time trace >reference || fail "tracefold dump failed"
"$cli" unroll --no-time trace >unrolled || fail "tracefold unroll failed"
cmp -s reference unrolled || { diff reference unrolled | head >&2; fail "the capped trace does not unroll to the reference"; }
echo "ok: TRACEFOLD_MEMORY=4K: $warned warning(s), unroll = reference ($(wc -l <reference) events)"
