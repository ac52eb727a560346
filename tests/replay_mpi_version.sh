#!/usr/bin/env bash
# replay_mpi_version.sh — a trace of MPI 4.0 calls (tests/data/mpi4) replays
# under an MPI 4.0 library and is refused, naming the function, under an
# older one (its replay engine is built without those calls, gen/mpi.table
# {mpi=4}).
#
# Usage: replay_mpi_version.sh --mpirun MPIRUN --cli TRACEFOLD --replay TRACEFOLD_REPLAY
#                              --mpi-version MAJOR --trace TRACE
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun cli replay mpi-version:version trace" "$@"
tf_workdir mpi-version

# shellcheck disable=SC2086 # $mpirun is a command line
if $mpirun -np 2 "$replay" --quiet --compute none "$trace" >"$work/out" 2>&1; then
  [ "$version" -ge 4 ] || fail "an MPI $version library replayed a trace of MPI 4.0 calls: $(head -3 "$work/out")"
  grep -q 'replay wall time' "$work/out" || fail "no replay report: $(cat "$work/out")"
  say "MPI $version: the MPI 4.0 trace replays"
else
  [ "$version" -lt 4 ] || fail "an MPI $version library did not replay the MPI 4.0 trace: $(cat "$work/out")"
  want="the trace calls MPI_Comm_idup_with_info, which is MPI 4.0: this MPI library implements MPI $version."
  grep -qF "$want" "$work/out" || fail "the refusal does not say \"$want\": $(cat "$work/out")"
  say "MPI $version: refused, $(grep -m1 -oF "$want" "$work/out")"
  # the CLI verb: the same refusal, exit status 1
  status=0
  TRACEFOLD_MPIRUN="$mpirun" "$cli" replay --quiet --compute none "$trace" >"$work/verb.out" 2>&1 || status=$?
  [ "$status" -ne 0 ] || fail "tracefold replay of the MPI 4.0 trace exited 0"
  grep -qF "$want" "$work/verb.out" || fail "tracefold replay does not say why: $(cat "$work/verb.out")"
  say "tracefold replay: exit $status, the same reason"
fi
