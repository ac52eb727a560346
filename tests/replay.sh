#!/usr/bin/env bash
# replay.sh — one replay test: a bundled workload at P ranks is traced, its
# trace replayed by tracefold-replay with the recorder preloaded, and that
# replay's trace replayed again (the fixed point of trace-extrapolation.txt
# §5.1, Exp3). Checks, each against an independent oracle:
#   1. the replay exits 0 and reports its wall time next to the recorded one;
#   2. the calls per function the replay reports (all ranks) equal the calls
#      the workload itself counted in the traced run;
#   3. fixed point: for every rank and thread, the replay's trace unrolls to
#      the same events as the original trace, every parameter (call sites
#      and times aside; a wildcard source recorded with its matched source
#      compares equal to that source, which the replay uses by default; how
#      a rank's threads interleave and get their numbers is left to the
#      scheduler: their sequences are compared as a set; in
#      MPI_Waitany/Testany/Waitsome/Testsome only the requests reported
#      complete are compared, the replay hides the others from the call);
#   4. the calls and bytes per function (`tracefold summary`) of the two
#      traces are equal;
#   5. the second generation (the replay of the replay's trace) unrolls to
#      exactly the first generation's events: the fixed point is reached.
# The replay runs with --compute histogram --scale 0.2 (delays drawn from
# the trace, shortened: the check is on the communication). With --polls 1
# (a workload that polls: MPI_Improbe until found) the outcomes of polls
# are left out of 3. and 5. (tf_polled): the replay makes every recorded
# poll, but one the recording saw fail may find its message now. With
# --handed 1 (a workload whose threads hand requests to each other and
# poll them: mtstress) request and message ids, request arrays, the
# statuses of MPI_Wait and of arrays, and MPI_Mprobe's source and status are
# left out of 3. and 5. (tf_handed_reqs says why); every other parameter is
# compared.
#
# usage: replay.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD
#                  --replay TRACEFOLD_REPLAY [--polls 1] [--handed 1] -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
polls=""
handed=""
tf_options "mpirun np lib cli replay polls handed --:prog" "$@"
polled=cat
[ -z "$polls" ] || polled=tf_polled
reqs=cat
[ -z "$handed" ] || reqs=tf_handed_reqs
tf_prefix+=": $name np$np"
tf_workdir replay

# ---- the original run, traced; the workload counts its own calls
tf_record "$work/orig" "$work/orig" -- "${prog[@]}" -c "$work/counts"

# replay TRACE OUTDIR LOG: the replay, traced into OUTDIR
replay_traced() {
  tf_traced "$np" "$2" -- "$replay" --compute histogram --scale 0.2 "$1" >"$3" 2>"$3.err" ||
    { cat "$3" "$3.err" >&2; fail "tracefold-replay $1 failed"; }
  [ -f "$2/trace.tf" ] || fail "no trace.tf from the replay of $1"
}
replay_traced "$work/orig/trace.tf" "$work/gen1" "$work/gen1.log"
grep -q 'replay wall time' "$work/gen1.log" || fail "no replay wall time in the report: $(cat "$work/gen1.log")"
grep -q 'recorded wall time' "$work/gen1.log" || fail "no recorded wall time in the report"
say "1. $(grep -E 'replay wall|recorded wall|difference' "$work/gen1.log" | sed 's/  */ /g' | tr '\n' ';')"

# ---- 2. calls per function: the replay's report against the workload's own counts
awk '$1 ~ /^MPI_/ && NF == 3 { print $1, $2 }' "$work/gen1.log" | sort >"$work/replay.counts"
tf_check_counts "$work/replay.counts" "the replay's"
say "2. calls per function = the workload's own counts ($(wc -l <"$work/wl.counts") functions)"

# ---- 3. fixed point against the original, rank by rank
# events RANK TRACE: unrolled, call sites out, the threads' sequences as a set (tf_thread_sets).
events() {
  "$cli" unroll --no-time --rank "$1" "$2" | sed -E 's/ cs=[0-9a-f]+//' | $reqs | tf_thread_sets | $polled
}
total=0
for ((r = 0; r < np; r++)); do
  events "$r" "$work/orig/trace.tf" | tf_matched | tf_reported >"$work/orig.$r"
  events "$r" "$work/gen1/trace.tf" | tf_reported >"$work/gen1.$r"
  if ! diff "$work/orig.$r" "$work/gen1.$r" >"$work/diff.$r"; then
    head -20 "$work/diff.$r" >&2
    fail "rank $r: the replay's trace differs from the original ($(grep -c '^[<>]' "$work/diff.$r") lines)"
  fi
  total=$((total + $(wc -l <"$work/orig.$r")))
done
say "3. the replay's trace = the original, every rank, every parameter ($total events; call sites aside)"

# ---- 4. calls and bytes per function
summary() { "$cli" summary "$1" | awk '/^MPI_/ { print $1, $2, $NF }' | sort; } # by name: the order of functions with equal counts is not kept
diff <(summary "$work/orig/trace.tf") <(summary "$work/gen1/trace.tf") >"$work/sum.diff" ||
  { cat "$work/sum.diff" >&2; fail "calls or bytes per function differ between the original and the replay"; }
say "4. calls and bytes per function equal: $(summary "$work/orig/trace.tf" | awk '{ c += $2; b += $3 } END { print c " calls, " b " bytes" }')"

# ---- 5. the second generation equals the first
replay_traced "$work/gen1/trace.tf" "$work/gen2" "$work/gen2.log"
for ((r = 0; r < np; r++)); do
  events "$r" "$work/gen1/trace.tf" >"$work/g1.$r"
  events "$r" "$work/gen2/trace.tf" >"$work/g2.$r"
  diff -q "$work/g1.$r" "$work/g2.$r" >/dev/null || fail "rank $r: the second replay's trace differs from the first's"
done
say "5. fixed point: the replay of the replay's trace = the replay's trace, every rank"
