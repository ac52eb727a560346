#!/usr/bin/env bash
# genapp.sh — `tracefold genapp` on one workload at P ranks (doc/GENAPP.md).
#
#   1. record the workload (its own call counts kept with -c);
#   2. generate the program (--compute none), build it with
#      MPICC -Wall -Wextra -Werror (and with each --also-cc compiler,
#      build only: another MPI's mpicc); the --compute mean and histogram
#      programs must build warning-free too;
#   3. run it under the recorder: for every rank, `tracefold unroll
#      --no-time` of its trace equals that of the workload's trace, call
#      sites aside, each thread's calls in order (tf_thread_sets: which
#      thread the scheduler let call MPI first is not kept) (the oracle: the workload's recorded calls; a wildcard
#      source compares equal to the source it matched, and in
#      MPI_Waitany/Testany/Waitsome/Testsome only the requests reported
#      complete are compared: the program uses the one and hides the others
#      from the call, as the replay engine does; with --polls, a workload
#      that polls (--polls 1), the outcome of a poll (MPI_Iprobe, Improbe, Test*) is
#      left out: a poll the recording saw fail finds the message if it is
#      there), and its calls per function equal the workload's own counts;
#      With --handed 1 (a workload whose threads make requests and complete
#      each other's, mtstress) request and message ids, request arrays and
#      their statuses are left out too (tf_handed_reqs: the ids follow how
#      the scheduler interleaved the threads), and instead the program's
#      own request ids must tell a consistent story (tests/request_ids.py:
#      each created once and completed once, a persistent request started
#      only when inactive);
#   4. fixed point: the program generated from the program's own trace,
#      run under the recorder, records the workload's calls again.
# With --refused FUNCTION the workload calls a function genapp does not
# support: genapp must fail naming it, and write no program.
# With --extrap "P1 P2 P3" the program is generated from the trace
# `tracefold extrapolate` makes for P ranks from the workload recorded at
# P1, P2 and P3 ranks (doc/EXTRAPOLATE.md); the oracle is still the
# workload recorded at P ranks.
#
# usage: genapp.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD --mpicc MPICC
#                  [--also-cc MPICC2]... [--refused FUNCTION] [--extrap "P1 P2 P3"] [--polls 1] [--handed 1]
#                  -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
refused=""
extrap=""
also=()
polls=""
handed=""
tf_options "mpirun np lib cli mpicc refused extrap polls handed also-cc:also+ --:prog" "$@"
tf_workdir genapp

tf_record "$work/traced" "$work/trace" -- "${prog[@]}" -c "$work/counts"
source="$work/trace" # what the program is generated from
if [ -n "$extrap" ]; then
  inputs=()
  target=$np
  for np in $extrap; do
    tf_record "$work/traced$np" "$work/trace$np" -- "${prog[@]}"
    inputs+=("$work/trace$np/trace.tf")
  done
  np=$target
  tf_must "$work/extrap" "tracefold extrapolate failed" \
    "$cli" extrapolate --ranks "$np" -o "$work/extrapolated.tf" "${inputs[@]}"
  source="$work/extrapolated.tf"
fi

if [ -n "$refused" ]; then
  "$cli" genapp --compute none -o "$work/app.c" "$work/trace" 2>"$work/genapp.err" &&
    fail "genapp wrote a program for a trace that calls $refused"
  grep -q "$refused" "$work/genapp.err" || { cat "$work/genapp.err" >&2; fail "genapp's error does not name $refused"; }
  [ ! -e "$work/app.c" ] || fail "genapp left a program behind after refusing"
  say "$name at $np ranks: refused, naming $refused"
  exit 0
fi

polled="cat"
[ -z "$polls" ] || polled=tf_polled
reqs="cat"
[ -z "$handed" ] || reqs=tf_handed_reqs
events() { "$cli" unroll --rank "$2" --no-time "$1" | sed -E 's/ cs=[^ ]+//' | $reqs | tf_thread_sets | $polled; }

tf_must "$work/gen" "genapp failed" "$cli" genapp --compute none -o "$work/app.c" "$source"
tf_must "$work/cc" "the generated program does not build warning-free with $mpicc" \
  $mpicc -std=c11 -Wall -Wextra -Werror -O1 -o "$work/app" "$work/app.c"
needs=$(sed -n 's/^#error "this program calls .*, an \(MPI [0-9.]*\) function.*/\1/p' "$work/app.c")
for cc in ${also[@]+"${also[@]}"}; do
  if [ -n "$needs" ] && ! $cc -E -o /dev/null "$work/app.c" 2>/dev/null; then # another MPI of an older version
    ! $cc -c -o "$work/app2.o" "$work/app.c" >"$work/cc2.err" 2>&1 && grep -q "an $needs function" "$work/cc2.err" ||
      fail "the program needs $needs: its build with $cc does not fail saying so"
    continue
  fi
  tf_must "$work/cc2" "the generated program does not build warning-free with $cc" \
    $cc -std=c11 -Wall -Wextra -Werror -c -o "$work/app2.o" "$work/app.c"
done
for mode in mean histogram; do # the compute modes' busy-waits build warning-free too
  tf_must "$work/gen-$mode" "genapp --compute $mode failed" \
    "$cli" genapp --compute "$mode" --scale 0.5 -o "$work/app-$mode.c" "$source"
  tf_must "$work/cc-$mode" "the --compute $mode program does not build warning-free with $mpicc" \
    $mpicc -std=c11 -Wall -Wextra -Werror -c -o "$work/app-$mode.o" "$work/app-$mode.c"
done
tf_record "$work/app-run" "$work/app-trace" -- "$work/app"

for ((r = 0; r < np; r++)); do
  events "$work/trace/trace.tf" "$r" | tf_matched | tf_reported >"$work/want.$r" ||
    fail "tracefold unroll failed on the workload's trace"
  events "$work/app-trace/trace.tf" "$r" | tf_reported >"$work/got.$r" || fail "tracefold unroll failed on the program's trace"
  [ -s "$work/want.$r" ] || fail "rank $r: no events in the workload's trace"
  cmp -s "$work/want.$r" "$work/got.$r" || {
    diff "$work/want.$r" "$work/got.$r" | head -10 >&2
    fail "rank $r: the program's calls differ from the workload's"
  }
  "$cli" counts --rank "$r" "$work/app-trace/trace.tf" >"$work/app-counts.$r"
done
if [ -n "$handed" ]; then
  "$cli" unroll --no-time "$work/app-trace/trace.tf" >"$work/app.dump" || fail "tracefold unroll failed on the program's trace"
  python3 -B "$(dirname "${BASH_SOURCE[0]}")/request_ids.py" "$work/app.dump" >"$work/app.ids" ||
    { cat "$work/app.ids" >&2; fail "the program's request ids are inconsistent"; }
fi
cat "$work"/app-counts.* | awk '{ n[$1] += $2 } END { for (f in n) print f, n[f] }' | sort >"$work/app.counts"
tf_check_counts "$work/app.counts" "the generated program's"

tf_must "$work/gen2" "genapp failed on the program's own trace" \
  "$cli" genapp --compute none -o "$work/app2.c" "$work/app-trace"
tf_must "$work/cc2" "the second program does not build" $mpicc -std=c11 -O1 -o "$work/app2" "$work/app2.c"
tf_record "$work/app2-run" "$work/app2-trace" -- "$work/app2"
for ((r = 0; r < np; r++)); do
  events "$work/app2-trace/trace.tf" "$r" | tf_reported >"$work/got2.$r" || fail "tracefold unroll failed on the second program's trace"
  cmp -s "$work/want.$r" "$work/got2.$r" || {
    diff "$work/want.$r" "$work/got2.$r" | head -10 >&2
    fail "rank $r: the calls of the program generated from the program's trace differ (no fixed point)"
  }
done
say "$name at $np ranks${extrap:+ (extrapolated from ${extrap// /,})}: $(wc -l <"$work/want.0") calls on rank 0 reproduced, $(wc -l <"$work/app.c") lines, fixed point"
