#!/usr/bin/env bash
# run_workload.sh — one integration test: a bundled workload at P ranks, run
# without and with the recorder under real mpirun.
#
# The traced run records both the reference (flat, one file per rank) and
# the merged trace (loops folded on each rank, all ranks merged into one
# trace.tf at MPI_Finalize) (TRACEFOLD_MODE=both). Checks, each against an
# independent oracle:
#   1. the program's stdout (including its checksum line) is byte-identical
#      with and without the recorder;
#   2. for every rank, the calls per MPI function in the reference trace and
#      in the merged trace equal the counts the workload itself kept in the
#      same traced run;
#   3. the trace has one flat file per rank and ONE merged file (no per-rank
#      compressed files), and `tracefold dump` prints exactly as many lines
#      as the workload made calls;
#   4. lossless folding and merging: for every rank, `tracefold unroll` of
#      the merged trace equals `tracefold dump` of that rank's reference
#      trace, event for event, every field (time deltas aside: the folded
#      trace keeps their statistics);
#   5. (--min-threads K) events carry at least K distinct thread ids;
#   6. (--checker CHECK_TIMING) time: for every event key (function, thread,
#      call site) the merged trace's time summaries hold exactly the count,
#      min, max and sum of the reference trace's deltas, bins sum to the
#      count (skipped when TRACEFOLD_TIMING=none; check_timing exact).
# --env "VAR=VALUE" (repeatable) adds a recorder setting to the traced run
# (TRACEFOLD_TIMING, TRACEFOLD_VOLUME, ...).
# With --sizes DIR the merged trace's size is written to DIR/<program>.np<P>
# for the size-scaling test (size_scaling.sh). With --keep DIR the trace
# directory (trace.tf, rank-R.flat) is copied to DIR for further checks.
#
# usage: run_workload.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD
#                        [--min-threads K] [--sizes DIR] [--checker CHECK_TIMING]
#                        [--env VAR=VALUE]... [--keep DIR] -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
min_threads=0
sizes=""
checker=""
keep=""
settings=()
tf_options "mpirun np lib cli min-threads sizes checker keep env:settings+ --:prog" "$@"
tf_workdir test

# shellcheck disable=SC2086
tf_must "$work/plain" "untraced run exited non-zero" $mpirun -np "$np" "${prog[@]}" -c "$work/plain"
tf_must "$work/traced" "traced run exited non-zero" \
  tf_traced "$np" "$work/trace" TRACEFOLD_MODE=both ${settings[@]+"${settings[@]}"} -- "${prog[@]}" -c "$work/traced"

grep -q '^checksum: ' "$work/plain.out" || fail "the workload printed no checksum line"
diff -u "$work/plain.out" "$work/traced.out" >&2 || fail "output differs with the recorder"

nfiles=$(find "$work/trace" -name "rank-*.flat" | wc -l)
[ "$nfiles" -eq "$np" ] || fail "expected $np rank-*.flat files, found $nfiles"
[ -f "$work/trace/trace.tf" ] || fail "no merged trace.tf"
nfiles=$(find "$work/trace" -name "rank-*.tfc" | wc -l)
[ "$nfiles" -eq 0 ] || fail "per-rank compressed files left beside the merged trace ($nfiles)"

for ((r = 0; r < np; r++)); do
  [ -f "$work/traced.$r" ] || fail "workload wrote no counts for rank $r"
  "$cli" counts "$work/trace/rank-$r.flat" >"$work/trace.$r" || fail "tracefold counts failed on rank-$r.flat"
  diff -u "$work/traced.$r" "$work/trace.$r" >&2 ||
    fail "rank $r: event counts in rank-$r.flat differ from the workload's own counts"
  "$cli" counts --rank "$r" "$work/trace/trace.tf" >"$work/trace.$r" || fail "tracefold counts failed on trace.tf"
  diff -u "$work/traced.$r" "$work/trace.$r" >&2 ||
    fail "rank $r: event counts in trace.tf differ from the workload's own counts"
done

"$cli" dump "$work/trace" >"$work/dump" || fail "tracefold dump failed"
events=$(awk '{s += $2} END {print s}' < <(for ((r = 0; r < np; r++)); do awk '{print $1, $2}' "$work/traced.$r"; done))
lines=$(wc -l <"$work/dump")
[ "$lines" -eq "$events" ] || fail "dump printed $lines lines, the workload made $events calls"

tf_check_lossless "$work/trace"
"$cli" stats "$work/trace/trace.tf" >"$work/stats" || fail "tracefold stats failed"
grep -q "^events: *$events\b" "$work/stats" || fail "tracefold stats does not report $events events"
flat_bytes=$(cat "$work"/trace/rank-*.flat | wc -c)
tfc_bytes=$(wc -c <"$work/trace/trace.tf")

timing=summaries
for kv in ${settings[@]+"${settings[@]}"}; do [ "$kv" = TRACEFOLD_TIMING=none ] && timing=none; done
if [ -n "$checker" ] && [ "$timing" != none ]; then
  "$checker" exact "$work/trace/trace.tf" "$work/trace" >"$work/timing" 2>&1 || {
    grep -v '^key ' "$work/timing" | head -20 >&2
    fail "the merged trace's time summaries differ from the reference trace's deltas"
  }
  timing="times = reference ($(tail -1 "$work/timing"))"
fi

[ -z "$keep" ] || cp -r "$work/trace" "$keep"

if [ -n "$sizes" ]; then
  mkdir -p "$sizes"
  echo "$tfc_bytes" >"$sizes/$name.np$np"
fi

if [ "$min_threads" -gt 0 ]; then
  nthreads=$(awk '{print $2}' "$work/dump" | sort -u | wc -l)
  [ "$nthreads" -ge "$min_threads" ] || fail "events carry $nthreads thread ids, expected at least $min_threads"
fi
echo "ok: $name ${prog[*]:1} np=$np: $events events, output identical, counts match on all $np ranks," \
  "unroll = reference on every rank; $flat_bytes flat bytes, $tfc_bytes merged${settings[*]+ (${settings[*]})}; $timing"
