#!/usr/bin/env bash
# flatrun.sh — flat runs (doc/FOLDING.md "Flat runs"): when folding stops
# paying on a stream, the recorder keeps its events flat, and nothing is lost.
#
# 1. bench_irregular (a seeded random mix of nonblocking collectives and
#    completions: a stream that does not fold) at NP ranks, traced with
#    TRACEFOLD_MODE=both and a small window (TRACEFOLD_FLATRUN=64): every
#    rank says it kept events in flat runs (TRACEFOLD_VERBOSE=1), and against
#    the reference trace (rank-R.flat, written beside): `tracefold unroll` of
#    trace.tf equals `tracefold dump` event for event on every rank; the time
#    summaries are exactly the reference deltas' (check_timing exact);
#    `tracefold stats` counts the reference's events; rank 0's dump has the
#    calls the program itself counted (its "events" line, + MPI_Init and
#    MPI_Finalize).
# 2. a regular workload (REGULAR, a wl_* program) with the same window never
#    switches: no flat-run line, and `tracefold show --no-time` of its trace
#    is the same as with TRACEFOLD_FLATRUN=off.
#
# usage: flatrun.sh --mpirun "CMD ARGS" --np NP --lib LIBTRACEFOLD --cli TRACEFOLD
#                   --checker CHECK_TIMING --regular WL_PROGRAM -- BENCH_IRREGULAR [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli checker regular --:prog" "$@"
tf_workdir flatrun

# 1. the irregular stream
tf_record "$work/irr" "$work/irr.trace" TRACEFOLD_MODE=both TRACEFOLD_FLATRUN=64 TRACEFOLD_VERBOSE=1 -- "${prog[@]}"
for ((r = 0; r < np; r++)); do
  grep -q "^tracefold: rank $r: [0-9]* events kept in flat runs" "$work/irr.err" ||
    { cat "$work/irr.err" >&2; fail "rank $r kept no events in flat runs (the switch did not happen)"; }
done
tf_check_lossless "$work/irr.trace"
"$checker" exact "$work/irr.trace/trace.tf" "$work/irr.trace" >"$work/timing" 2>&1 || {
  grep -v '^key ' "$work/timing" | head -20 >&2
  fail "the merged trace's time summaries differ from the reference trace's deltas"
}
events=$(wc -l <"$work/reference")
"$cli" stats "$work/irr.trace/trace.tf" >"$work/stats" || fail "tracefold stats failed"
grep -q "^events: *$events\b" "$work/stats" || fail "tracefold stats does not report the reference's $events events"
own=$(awk '/^events / { print $2 }' "$work/irr.out")
rank0=$("$cli" dump --no-time "$work/irr.trace/rank-0.flat" | wc -l)
[ "$rank0" -eq $((own + 2)) ] || fail "rank 0's reference has $rank0 events, the program made $own calls (+ MPI_Init, MPI_Finalize)"
say "ok: ${prog[*]##*/} np=$np: $events events, $(grep -c 'events kept in flat runs' "$work/irr.err") of $np ranks" \
  "switched to flat runs; unroll = reference on every rank, times exact ($(tail -1 "$work/timing"))"

# 2. a regular workload never switches
tf_record "$work/reg" "$work/reg.trace" TRACEFOLD_FLATRUN=64 TRACEFOLD_VERBOSE=1 -- "$regular"
! grep -q "events kept in flat runs" "$work/reg.err" ||
  { cat "$work/reg.err" >&2; fail "the regular workload ${regular##*/} switched to flat runs"; }
tf_record "$work/off" "$work/off.trace" TRACEFOLD_FLATRUN=off -- "$regular"
"$cli" show --no-time "$work/reg.trace" >"$work/reg.show" || fail "tracefold show failed"
"$cli" show --no-time "$work/off.trace" >"$work/off.show" || fail "tracefold show failed"
diff "$work/off.show" "$work/reg.show" >&2 ||
  fail "the regular workload's structure differs with TRACEFOLD_FLATRUN=64 from TRACEFOLD_FLATRUN=off"
say "ok: ${regular##*/} np=$np never switched (window 64): its structure is that of TRACEFOLD_FLATRUN=off" \
  "($(wc -l <"$work/reg.show") lines of show)"
