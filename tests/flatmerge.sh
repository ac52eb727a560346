#!/usr/bin/env bash
# flatmerge.sh — flat runs through the merge (doc/FOLDING.md "Flat runs"):
# one rank's stream does not fold (bench_irregular -1 RANK, the last rank),
# the others repeat a loop; at MPI_Finalize the irregular rank's flat runs
# go into trace.tf as flat-run nodes (doc/FORMAT.md 3.5, flags bit 5), and
# nothing is lost:
#   - only the irregular rank says it kept events in flat runs
#     (TRACEFOLD_VERBOSE=1), and `tracefold show` finds flat runs in trace.tf;
#   - `tracefold unroll --no-time` equals `tracefold dump --no-time` of the
#     reference (TRACEFOLD_MODE=both) on every rank, event for event;
#   - with times, at least the runs' events of the irregular rank are
#     exactly the reference's lines (compute and duration of each event);
#   - the time summaries match the reference deltas (check_timing exact).
#
# usage: flatmerge.sh --mpirun "CMD ARGS" --np NP --lib LIBTRACEFOLD --cli TRACEFOLD
#                     --checker CHECK_TIMING -- BENCH_IRREGULAR [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli checker --:prog" "$@"
tf_workdir flatmerge

odd=$((np - 1))
tf_record "$work/irr" "$work/irr.trace" TRACEFOLD_MODE=both TRACEFOLD_FLATRUN=64 TRACEFOLD_VERBOSE=1 \
  -- "${prog[@]}" -1 "$odd"
for ((r = 0; r < np; r++)); do
  if grep -q "^tracefold: rank $r: [0-9]* events kept in flat runs" "$work/irr.err"; then
    [ "$r" -eq "$odd" ] || fail "rank $r, a regular one, switched to flat runs"
  else
    [ "$r" -ne "$odd" ] || { cat "$work/irr.err" >&2; fail "the irregular rank $r kept no events in flat runs"; }
  fi
done
"$cli" show --no-time "$work/irr.trace/trace.tf" >"$work/show" || fail "tracefold show failed"
runs=$(awk '/^flat runs: / { print $3 }' "$work/show")
run_events=$(awk '/^flat runs: / { sub(/^\(/, "", $4); print $4 }' "$work/show")
[ -n "$runs" ] && [ "$runs" -ge 1 ] || fail "trace.tf holds no flat run (the merge expanded them)"
tf_check_lossless "$work/irr.trace"
"$cli" dump "$work/irr.trace/rank-$odd.flat" >"$work/timed.ref" || fail "tracefold dump failed"
"$cli" unroll --rank "$odd" "$work/irr.trace/trace.tf" >"$work/timed.unrolled" || fail "tracefold unroll failed"
exact=$(paste -d '\n' "$work/timed.ref" "$work/timed.unrolled" | awk 'NR % 2 { a = $0; next } $0 == a { n++ } END { print n + 0 }')
[ "$exact" -ge "$run_events" ] ||
  fail "rank $odd: only $exact events unroll with the reference's exact times; its flat runs hold $run_events"
"$checker" exact "$work/irr.trace/trace.tf" "$work/irr.trace" >"$work/timing" 2>&1 || {
  grep -v '^key ' "$work/timing" | head -20 >&2
  fail "the merged trace's time summaries differ from the reference trace's deltas"
}
say "ok: np=$np, rank $odd irregular: $runs flat runs ($run_events events) in trace.tf; unroll = reference on every" \
  "rank; $exact of rank $odd's $(wc -l <"$work/timed.ref") events with the reference's exact times"
