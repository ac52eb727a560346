#!/usr/bin/env bash
# merge_mpi_error.sh — an MPI error during the merge at MPI_Finalize does not
# break the program (doc/RECORDED.md, "Failure policy"): merge_fault.so,
# preloaded ahead of the recorder, makes rank 0's first receive of the merge
# fail with MPI_ERR_OTHER through the communicator's error handler. The
# recorder's communicator returns errors instead of aborting, so the run
# ends with exit 0 and the program's own output; every rank keeps its
# rank-R.tfc, rank 0 warns once that the traces could not be merged, and
# `tracefold merge` merges the directory afterwards.
#
# usage: merge_mpi_error.sh "MPIRUN ARGS" LIBTRACEFOLD MERGE_FAULT_SO TRACEFOLD WL_RING
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 recorder=$2 fault=$3 cli=$4 ring=$5
tf_workdir merge_mpi_error
np=2

# shellcheck disable=SC2086
$mpirun -np $np "$ring" -i 50 >"$work/plain.out" 2>/dev/null || fail "the untraced run failed"
lib="$fault:$recorder"
tf_traced $np "$work/t" -- "$ring" -i 50 >"$work/t.out" 2>"$work/t.err" ||
  { cat "$work/t.err" >&2; fail "the traced run failed on an MPI error in the merge (the recorder must never break the program)"; }
cmp -s "$work/plain.out" "$work/t.out" || fail "the program's output differs when the merge fails"
[ -e "$work/t/trace.tf" ] && fail "a trace.tf was written although the merge failed"
for r in 0 1; do [ -f "$work/t/rank-$r.tfc" ] || fail "rank $r kept no rank-$r.tfc"; done
grep -q "tracefold: warning: the ranks' traces could not be merged (rank 0: receiving from rank 1 failed in MPI: .*); each rank's file is in" "$work/t.err" ||
  { cat "$work/t.err" >&2; fail "no warning naming the MPI error"; }
[ "$(grep -c 'tracefold: warning' "$work/t.err")" -eq 1 ] || { cat "$work/t.err" >&2; fail "more than one warning for the job"; }
say "$(grep -m1 'could not be merged' "$work/t.err" | cut -c1-140)..."
tf_must "$work/merge" "tracefold merge failed on the ranks' files" "$cli" merge "$work/t"
tf_must "$work/stats" "tracefold stats failed on the merged trace" "$cli" stats "$work/t"
say "ok: exit 0, output unchanged, $np per-rank files, merged afterwards"
