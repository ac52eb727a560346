#!/usr/bin/env bash
# simulate.sh — one simulation test: a bundled workload at P ranks is traced
# and its trace simulated by `tracefold simulate` (tracefold-sim under
# SimGrid's smpirun) on a generated platform. Checks, each against an
# independent oracle:
#   1. the simulation exits 0 and reports the simulated time next to the
#      recorded wall time, and one line per rank;
#   2. the calls per function it replayed (all ranks) equal the calls the
#      workload itself counted in the traced run, and its calls and bytes
#      per function equal the trace's (`tracefold summary`);
#   3. each rank's simulated compute time equals the sum of the compute
#      deltas of its events (`tracefold unroll`, every event but MPI_Init:
#      --compute mean uses each event's mean) at the recording host's speed:
#      the compute bursts are charged as recorded, nothing else is;
#   4. each rank's simulated time is its compute plus its MPI time: the
#      replay engine's own work costs no simulated time. (With several
#      threads per rank, replayed as lanes of one actor, the lanes' MPI
#      times overlap one another and the compute: compute <= time <=
#      compute + MPI.)
# With --refused MESSAGE the workload calls a function SimGrid's SMPI does
# not implement ({nosim} in gen/mpi.table): the simulation must be refused
# before any call, exit 2, with MESSAGE (naming the function) on stderr.
#
# usage: simulate.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD [--refused MESSAGE]
#                    -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
refused=""
tf_options "mpirun np lib cli refused --:prog" "$@"
tf_prefix+=": $name np$np"
tf_workdir simulate

# ---- the traced run; the workload counts its own calls
tf_record "$work/run" "$work/trace" -- "${prog[@]}" -c "$work/counts"

# ---- refused: SMPI lacks a function the trace calls
if [ -n "$refused" ]; then
  rc=0
  "$cli" simulate --compute mean --keep "$work/sim" "$work/trace/trace.tf" >"$work/sim.log" 2>"$work/sim.err" || rc=$?
  [ $rc -eq 1 ] || { cat "$work/sim.log" "$work/sim.err" >&2; fail "the simulation exited $rc, expected its refusal (1: a refused trace)"; }
  grep -qF -- "$refused" "$work/sim.err" ||
    { cat "$work/sim.err" >&2; fail "the refusal does not say: $refused"; }
  [ ! -s "$work/sim/report" ] || fail "a report was written: the refusal came after the simulation ran"
  say "refused as expected: $(grep -F -- "$refused" "$work/sim.err" | head -1 | cut -c1-160)"
  exit 0
fi

# ---- 1. the simulation
"$cli" simulate --compute mean --keep "$work/sim" "$work/trace/trace.tf" >"$work/sim.log" 2>"$work/sim.err" ||
  { cat "$work/sim.log" "$work/sim.err" >&2; fail "tracefold simulate failed"; }
grep -q 'simulated time' "$work/sim.log" || fail "no simulated time in the report: $(cat "$work/sim.log")"
grep -q 'recorded wall time' "$work/sim.log" || fail "no recorded wall time in the report"
report=$work/sim/report
[ "$(grep -c '^rank ' "$report")" = "$np" ] || fail "the report has not one line per rank: $(cat "$report")"
say "1. $(grep -E 'simulated time|recorded wall|difference' "$work/sim.log" | sed 's/  */ /g' | tr '\n' ';')"

# ---- 2. calls: the workload's own counts; calls and bytes: the trace's
awk '$1 == "fn" { print $2, $3 }' "$report" | sort >"$work/sim.counts"
tf_check_counts "$work/sim.counts" "the simulation's"
"$cli" summary "$work/trace/trace.tf" | awk '$1 ~ /^MPI_/ { print $1, $2, $NF }' | sort >"$work/trace.totals"
awk '$1 == "fn" { print $2, $3, $4 }' "$report" | sort >"$work/sim.totals"
diff "$work/trace.totals" "$work/sim.totals" >"$work/totals.diff" ||
  { cat "$work/totals.diff" >&2; fail "the simulation's calls and bytes per function differ from the trace's"; }
say "2. calls = the workload's counts, calls and bytes = the trace's ($(wc -l <"$work/sim.totals") functions)"

# ---- 3 and 4, rank by rank
threads=$("$cli" unroll --no-time "$work/trace/trace.tf" | awk '$2 + 1 > n { n = $2 + 1 } END { print n + 0 }')
for ((r = 0; r < np; r++)); do
  want=$("$cli" unroll --rank "$r" "$work/trace/trace.tf" |
    awk '$4 != "MPI_Init" && $4 != "MPI_Init_thread" { for (i = 5; i <= NF; i++) if ($i ~ /^compute=/) { sub(/compute=/, "", $i); s += $i } }
         END { printf "%.9f\n", s / 1e9 }')
  read -r wall compute mpi < <(awk -v r="$r" '$1 == "rank" && $2 == r { print $3, $4, $5 }' "$report")
  awk -v w="$want" -v c="$compute" 'BEGIN { d = w - c; if (d < 0) d = -d; exit !(d <= 1e-6 + 1e-6 * w) }' ||
    fail "rank $r: simulated compute $compute s, the trace's compute deltas sum to $want s"
  if [ "$threads" -le 1 ]; then
    awk -v w="$wall" -v c="$compute" -v m="$mpi" 'BEGIN { d = w - c - m; if (d < 0) d = -d; exit !(d <= 1e-6 + 1e-6 * w) }' ||
      fail "rank $r: simulated time $wall s is not compute $compute s + MPI $mpi s"
  else
    awk -v w="$wall" -v c="$compute" -v m="$mpi" 'BEGIN { e = 1e-6 + 1e-6 * w; exit !(c <= w + e && w <= c + m + e) }' ||
      fail "rank $r ($threads threads): simulated time $wall s is not between compute $compute s and compute + MPI $mpi s"
  fi
done
say "3. compute per rank = the trace's compute deltas; 4. time = compute + MPI (rank 0: $(awk '$1 == "rank" && $2 == 0 { print $3 " = " $4 " + " $5 }' "$report") s)"
