#!/usr/bin/env bash
# irregular.sh — the recorder on a stream that does not fold: bench_irregular
# (a seeded random mix of nonblocking collectives and completion calls, one
# rank) untraced and traced (folded: compressed with TRACEFOLD_FLATRUN=off, as
# before flat runs; compressed: the default, where the stream degrades to flat
# runs; flat), side by side in one run, and writes the section
# "## Irregular streams: cost, memory and merge per event" of bench/RESULTS.md.
#
# usage: bench/irregular.sh BUILD_DIR
# environment (optional):
#   MPIRUN  launcher                        [mpirun.mpich]
#   STEPS   random steps per run (list)     [100000 500000]
#   ROUNDS  rounds (untraced, folded, compressed, flat in each, rotated) [3]
#
# Per run, bench_irregular reports its events (its own count of its MPI
# calls), the time from after MPI_Init to before MPI_Finalize (recording) and
# the time in MPI_Finalize (the recorder's merge, encode and write); GNU time
# gives the peak resident memory. Per mode, the figures of the median round:
#   record ns/event  = (traced - untraced run time) / events
#   finalize s/Mev   = (traced - untraced MPI_Finalize time) / millions of events
#   total ns/event   = the two together: the whole added cost, end to end
#   memory B/event   = (traced - untraced peak RSS) / events
#   trace B/event    = bytes written / events
# The targets (issue 23, point 4): total <= 1,000 ns/event, memory <= 64
# B/event, finalize <= 1 s per million events.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=irregular.sh
[ $# -eq 1 ] || { echo "usage: bench/irregular.sh BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
STEPS=${STEPS:-100000 500000}
ROUNDS=${ROUNDS:-3}
WORKLOADS=""
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
need_commands
command -v /usr/bin/time >/dev/null || die "/usr/bin/time not found (Debian package time)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
private_binaries "$build"
cp "$build/bench/bench_irregular" "$tmp/bin/" || die "no bench/bench_irregular in $build (build it first)"
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_FLATRUN

# one STEPS MODE ROUND: a line "steps mode events run_s finalize_s rss_kb trace_bytes"
one() {
  local steps=$1 mode=$2 out=$tmp/out.$1.$2.$3 trace=$tmp/trace
  rm -rf "$trace"
  local env=(env)
  case $mode in
  untraced) ;;
  folded) env+=(LD_PRELOAD="$lib" TRACEFOLD_MODE=compressed TRACEFOLD_FLATRUN=off TRACEFOLD_OUTPUT="$trace") ;;
  *) env+=(LD_PRELOAD="$lib" TRACEFOLD_MODE="$mode" TRACEFOLD_OUTPUT="$trace") ;;
  esac
  /usr/bin/time -f "rss_kb %M" -o "$out.time" "$MPIRUN" -np 1 "${env[@]}" "$tmp/bin/bench_irregular" -n "$steps" \
    >"$out" 2>"$out.err" || { cat "$out.err" >&2; die "bench_irregular -n $steps failed ($mode)"; }
  local bytes=0
  [ -d "$trace" ] && bytes=$(du -sb "$trace" | cut -f1)
  echo "$steps $mode $(awk '/^events/ { e = $2 } /^run_s/ { r = $2 } /^finalize_s/ { f = $2 } END { print e, r, f }' "$out")" \
       "$(awk '/rss_kb/ { print $2 }' "$out.time") $bytes"
}

modes=(untraced folded compressed flat)
: >"$tmp/lines"
for r in $(seq 1 "$ROUNDS"); do
  for steps in $STEPS; do
    for k in 0 1 2 3; do # rotated order: drift in the machine's load hits every mode alike
      one "$steps" "${modes[$(((k + r) % 4))]}" "$r" >>"$tmp/lines"
    done
  done
  echo "$prog: round $r of $ROUNDS done" >&2
done

PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$tmp/lines" "$here/RESULTS.md" "$SOURCE" "$ROUNDS" <<'EOF'
import statistics, sys
from results_section import update
lines, results, source, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
runs = {}
for l in open(lines):
    steps, mode, ev, run, fin, rss, size = l.split()
    runs.setdefault((int(steps), mode), []).append((int(ev), float(run), float(fin), int(rss), int(size)))
med = lambda xs: statistics.median(xs)
rows = []
for steps in sorted({s for s, _ in runs}):
    base = runs[(steps, "untraced")]
    ev = base[0][0]
    b_run, b_fin, b_rss = med([x[1] for x in base]), med([x[2] for x in base]), med([x[3] for x in base])
    rows.append(f"| {ev:,} | untraced | {b_run:.3f} s | {b_fin:.3f} s | | | | {b_rss / 1024:.0f} MiB | |")
    for mode in ("folded", "compressed", "flat"):
        t = runs[(steps, mode)]
        run, fin, rss, size = med([x[1] for x in t]), med([x[2] for x in t]), med([x[3] for x in t]), med([x[4] for x in t])
        rec = (run - b_run) / ev * 1e9
        fpm = (fin - b_fin) / ev * 1e6
        tot = (run + fin - b_run - b_fin) / ev * 1e9
        mem = (rss - b_rss) * 1024 / ev
        rows.append(f"| {ev:,} | {mode} | {run:.3f} s | {fin:.3f} s | {rec:,.0f} | {fpm:.2f} s | **{tot:,.0f}** | "
                    f"{rss / 1024:.0f} MiB (**{mem:,.0f} B/event**) | {size / ev:.1f} |")
section = f"""## Irregular streams: cost, memory and merge per event

Written by `bench/irregular.sh` (source {source}; {rounds} rounds, untraced, folded, compressed and
flat runs rotated in each; the median round). *folded* is compressed with `TRACEFOLD_FLATRUN=off`
(every event folded, as before flat runs); *compressed* the default, where the recorder measures
that folding does not pay and keeps the stream as flat runs (doc/FOLDING.md "Flat runs"). `bench_irregular` makes a seeded random mix of
`MPI_Ibarrier`, `MPI_Iallreduce` and `MPI_Ibcast` (1-8 ints) and `MPI_Wait`, `MPI_Test`,
`MPI_Testany`, `MPI_Waitall` on one rank: a stream that does not fold. *record* is the added
time per event while the program runs, *finalize* the added time in `MPI_Finalize` (merge,
encode, write) per million events, *total* both per event, end to end; *memory* the added peak
resident memory per event. Targets (issue 23, point 4): total <= 1,000 ns/event, memory <= 64
B/event, finalize <= 1 s per million events.

| events | mode | run | MPI_Finalize | record ns/event | finalize per Mevent | total ns/event | peak memory | trace B/event |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
""" + "\n".join(rows) + "\n"
update(results, "## Irregular streams: cost, memory and merge per event", section)
print(section)
EOF
