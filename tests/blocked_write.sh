#!/usr/bin/env bash
# blocked_write.sh — no disk write under the recorder's lock (issue 23,
# point 3a): rank 0's flat file is a FIFO, so the write of the first full
# 1 MiB buffer blocks until someone reads it. blocked_write_program's
# second thread then makes 100 MPI calls; they must not wait for that
# write. The FIFO is read only once they are done (or after 20 s, when
# they were held up). Then the run ends normally and the trace read from
# the FIFO is a complete flat trace.
#
# usage: blocked_write.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD BLOCKED_WRITE_PROGRAM
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 cli=$3 program=$4
tf_workdir blocked_write

mkdir "$work/t"
mkfifo "$work/t/rank-0.flat.part"
tf_traced 1 "$work/t" TRACEFOLD_MODE=flat -- "$program" "$work/marker" >"$work/run.out" 2>"$work/run.err" &
run=$!
for _ in $(seq 200); do [ -e "$work/marker" ] && break; sleep 0.1; done
held=no
[ -e "$work/marker" ] || held=yes
cat "$work/t/rank-0.flat.part" >"$work/rank-0.flat" # unblocks the writer
wait $run || { cat "$work/run.err" >&2; fail "the traced run failed"; }
cat "$work/run.out"
[ $held = no ] || fail "the other thread's MPI calls waited for the blocked write (the recorder wrote under its lock)"
tf_must "$work/stats" "the flat trace read from the FIFO is not a complete trace" "$cli" stats "$work/rank-0.flat"
grep -q MPI_Comm_rank "$work/stats.out" || fail "tracefold stats found no MPI_Comm_rank in the trace"
say "ok: $(cat "$work/run.out") while the first write was blocked; the trace is complete"
