#!/usr/bin/env bash
# sizes.sh — merged trace bytes against iterations, and the compressor's
# cost per event; records the figures in bench/RESULTS.md. Builds nothing.
#
# usage: bench/sizes.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (needs src/recorder/libtracefold.so,
#              src/cli/tracefold, bench/bench_foldcost, workloads/wl_<name>)
# environment (optional):
#   MPIRUN     launcher                                  [mpirun.mpich]
#   NP         ranks                                     [4]
#   ITERS      iteration counts, ascending               ["100 1000 10000"]
#   BUDGET     seconds a run may be predicted to take    [60]
#   TIMEOUT    hard limit per run, seconds               [600]
#   WORKLOADS  which workloads                           [all 13, see below]
#   FOLDCOST   1: also measure the compressor cost per event and rewrite its
#              section; 0: leave that section as it is   [1]
#   FOLDREPS   repetitions of bench_foldcost             [15]
#   ZSTD_LEVEL level of the zstd comparison              [19]
#   RESULTS    the file to update                        [bench/RESULTS.md]
#   SOURCE     what the binaries were built from, for the record [the git
#              commit of BUILD_DIR's source tree, "+ uncommitted changes" if
#              src/ or include/ differ from it]
#
# Merged trace bytes vs iterations: every workload runs at NP ranks with its
# default problem size (-s) once per iteration count, recorded with
# TRACEFOLD_MODE=both (rank-R.flat files and the merged trace.tf of the same
# run: at MPI_Finalize every rank's folded trace is merged into one file). The
# first two counts always run; a later count whose run is predicted (linearly
# from the previous count's wall time) to take more than BUDGET seconds is
# replaced by the largest of 1/2, 3/10, 1/5 of it that fits, or skipped; the
# table says so. Per run: trace.tf bytes; the flat files' bytes, summed; the
# flat files through `zstd -ZSTD_LEVEL` each on its own, summed, and all of
# them concatenated through one `zstd -ZSTD_LEVEL`; the merge time rank 0
# reports (`tracefold stats`); the nodes (events and loops) `tracefold show`
# prints, and whether its text is the same up to the numbers in it at the
# smallest and largest count. Every run is also checked for a lossless round
# trip: `tracefold dump --no-time DIR` (flat files) must equal `tracefold
# unroll --no-time DIR/trace.tf` (merged file) byte for byte.
#
# Compressor cost per event: bench_foldcost (bench/foldcost.c) feeds the
# events of one flat file (rank 1 of every workload, plus masterworker's
# rank 0 and its busiest worker) from the largest run through a fresh
# compressor (one rank's folding, no merge), FOLDREPS times, and reports ns
# per event (median, fastest).
#
# RESULTS.md is shared: this script replaces only its two sections
# ("## Merged trace bytes vs iterations", "## Compressor cost per event"
# (unless FOLDCOST=0), each up to the next "## " heading) and keeps
# everything else (bench/results_section.py).
#
# The code it shares with ranks.sh is in bench/bench_common.sh: the
# checks for the commands it needs, copying the binaries, the SOURCE default,
# keeping the traces of failed round trips, the final message and exit status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/sizes.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
NP=${NP:-4}
ITERS=${ITERS:-100 1000 10000}
BUDGET=${BUDGET:-60}
TIMEOUT=${TIMEOUT:-600}
WORKLOADS=${WORKLOADS:-stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads fstencil}
FOLDCOST=${FOLDCOST:-1}
FOLDREPS=${FOLDREPS:-15}
ZSTD_LEVEL=${ZSTD_LEVEL:-19}
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* in the caller's environment would alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY

prog=sizes.sh
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
need_commands
((NP >= 2)) || die "NP must be at least 2 (rank 1 is measured)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-sizes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Work on a private copy of the binaries: a rebuild of BUILD_DIR while this
# runs (it takes minutes) must not mix two versions into one table.
bin=$tmp/bin
mkdir -p "$bin"
tools="src/recorder/libtracefold.so src/cli/tracefold"
if ((FOLDCOST)); then tools="$tools bench/bench_foldcost"; fi
# shellcheck disable=SC2086 # $tools and $WORKLOADS are lists of words
copy_binaries "$build" "$bin" $tools $WORKLOADS
SOURCE=${SOURCE:-$(source_of "$build")}
lib=$bin/libtracefold.so
cli=$bin/tracefold
fold=$bin/bench_foldcost
failed= # created at the first failed round trip; keeps its traces
log=$tmp/log
: >"$log"
status=0

# tfc_header FILE -> bytes of the header and function table of a compressed (.tfc) file, the one
# bench_foldcost writes (doc/FORMAT.md 1.3-1.4)
cat >"$tmp/tfc_header.py" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
p = 12
def uvar():
    global p
    v = s = 0
    while True:
        b = d[p]; p += 1
        v |= (b & 0x7F) << s
        if not b & 0x80: return v
        s += 7
def string():
    global p
    n = uvar(); p += n
assert d[:8] == b"TFCOMP\r\n", "not a compressed trace file"
uvar(); uvar(); uvar(); uvar(); string(); string()
for _ in range(uvar()):
    string()
    for _ in range(uvar()):
        p += 2; string()
print(p)
EOF

run_one() { # workload iters -> appends a "run" line to the log; leaves the trace in $tmp/trace
  local w=$1 n=$2 t=$tmp/trace t0 t1 secs rc=0
  rm -rf "$t"
  t0=$(date +%s.%N)
  timeout "$TIMEOUT" "$MPIRUN" -n "$NP" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$t" \
    "$bin/wl_$w" -i "$n" >"$tmp/out" 2>"$tmp/err" || rc=$?
  t1=$(date +%s.%N)
  if ((rc != 0)); then
    cat "$tmp/out" "$tmp/err" | tail -n 25 >&2
    ((rc == 124)) && die "wl_$w -i $n at $NP ranks did not finish within TIMEOUT=$TIMEOUT s"
    die "wl_$w -i $n at $NP ranks failed (exit status $rc)"
  fi
  if grep -q "TRACEFOLD_MEMORY" "$tmp/err"; then
    echo "sizes.sh: note: wl_$w -i $n reached the memory cap (several segments)" >&2
  fi
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  local r events mpi merge
  for ((r = 0; r < NP; r++)); do
    [[ -f $t/rank-$r.flat ]] || die "wl_$w -i $n: rank $r wrote no rank-$r.flat in $t"
  done
  [[ -f $t/trace.tf ]] || die "wl_$w -i $n: no merged trace.tf in $t (stderr: $(tail -n 3 "$tmp/err"))"
  ! compgen -G "$t/rank-*.tfc" >/dev/null || die "wl_$w -i $n: per-rank .tfc files beside trace.tf (merge failed?)"
  "$cli" stats "$t/trace.tf" >"$tmp/stats" || die "tracefold stats failed on wl_$w -i $n"
  events=$(sed -n 's/^events: *\([0-9]*\).*/\1/p' "$tmp/stats")
  mpi=$(sed -n 's/^MPI: *//p' "$tmp/stats" | head -1 | tr -s ' \t' ' ')
  merge=$(sed -n 's/^merge: *\([0-9.]*\) ms.*/\1/p' "$tmp/stats")
  [[ -n $events ]] || die "cannot read the event count from tracefold stats of wl_$w -i $n"
  echo "$mpi" >"$tmp/mpi"
  # lossless round trip: every event of the flat files, from the merged one
  local a b rt=ok
  a=$("$cli" dump --no-time "$t" | md5sum) || die "tracefold dump --no-time failed on wl_$w -i $n"
  b=$("$cli" unroll --no-time "$t/trace.tf" | md5sum) || die "tracefold unroll --no-time failed on wl_$w -i $n"
  if [[ $a != "$b" ]]; then
    rt=FAILED
    round_trip_failed "$t" "$w-$n" "wl_$w -i $n"
  fi
  # structure of the merged trace: `tracefold show` lines that are events or loops (nodes), and a
  # signature of the text with every number replaced (equal = same nodes, values and rank lists, up to
  # the numbers in them)
  local nodes shape
  "$cli" show "$t/trace.tf" >"$tmp/show" || die "tracefold show failed on wl_$w -i $n"
  nodes=$(tail -n +2 "$tmp/show" | grep -cv '^ *}$' || true)
  shape=$(tail -n +2 "$tmp/show" | sed -E 's/-?[0-9]+/N/g' | md5sum | cut -c1-12)
  local flat=0 zst=0 zcat tf
  for ((r = 0; r < NP; r++)); do
    flat=$((flat + $(stat -c %s "$t/rank-$r.flat")))
    zst=$((zst + $(zstd -q -"$ZSTD_LEVEL" -c "$t/rank-$r.flat" | wc -c)))
  done
  zcat=$(for ((r = 0; r < NP; r++)); do cat "$t/rank-$r.flat"; done | zstd -q -"$ZSTD_LEVEL" -c | wc -c)
  tf=$(stat -c %s "$t/trace.tf")
  echo "run $w $n $NP $secs $events $rt $flat $zst $zcat $tf ${merge:--} $nodes $shape" >>"$log"
  LAST_SECS=$secs
}

fold_one() { # workload iters rank label...
  local w=$1 n=$2 r=$3 rc=0
  shift 3
  "$fold" -r "$FOLDREPS" -o "$tmp/fold.tfc" "$tmp/trace/rank-$r.flat" >"$tmp/fold" 2>"$tmp/folderr" || rc=$?
  if ((rc != 0)); then
    cat "$tmp/fold" "$tmp/folderr" >&2
    grep -q "^roundtrip FAILED" "$tmp/fold" || die "bench_foldcost failed on wl_$w -i $n rank $r"
    keep_failed "$tmp/trace/rank-$r.flat" "$w-$n-rank-$r.flat"
    echo "sizes.sh: ROUND TRIP FAILED: $fold $failed/$w-$n-rank-$r.flat" >&2
  fi
  local hdr
  hdr=$(python3 "$tmp/tfc_header.py" "$tmp/fold.tfc") || die "cannot parse the header of $tmp/fold.tfc"
  echo "fold $w $n $r $(awk '/^events/ { e = $2; s = $4; t = $6 } /^compressed_bytes/ { b = $2; g = $4; p = $6 }
    /^fold_ns/ { fm = $2; fn = $4 } /^total_ns/ { tm = $2; tn = $4 } /^roundtrip/ { rt = $2 }
    END { print e, s, t, b, g, p, fm, fn, tm, tn, rt }' "$tmp/fold") $hdr $*" >>"$log"
}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a counts <<<"$ITERS"
for w in $WORKLOADS; do
  prev_n=0 prev_t=0 i=0
  for n in "${counts[@]}"; do
    if ((i >= 2)); then
      pick=$(awk -v t="$prev_t" -v p="$prev_n" -v n="$n" -v b="$BUDGET" 'BEGIN {
        split("1 0.5 0.3 0.2", f, " ")
        for (k = 1; k <= 4; k++) { m = int(n * f[k] + 0.5); if (m > p && t * m / p <= b) { print m; exit } }
        print 0 }')
      if ((pick != n)); then
        echo "skip $w $n $(awk -v t="$prev_t" -v p="$prev_n" -v n="$n" 'BEGIN { printf "%.0f", t * n / p + 0.5 }') $pick" >>"$log"
        if ((pick == 0)); then
          echo "  $w: -i $n skipped (predicted over BUDGET=$BUDGET s)" >&2
          i=$((i + 1))
          continue
        fi
        echo "  $w: -i $n predicted over BUDGET=$BUDGET s, running -i $pick instead" >&2
        n=$pick
      fi
    fi
    run_one "$w" "$n"
    echo "  $w -i $n: ${LAST_SECS} s ($(($(date +%s) - start)) s so far)" >&2
    prev_n=$n prev_t=$LAST_SECS i=$((i + 1))
  done
  # compressor cost, on the trace of the largest run (still in $tmp/trace)
  if ((FOLDCOST)); then
    fold_one "$w" "$prev_n" 1 "rank 1"
    if [[ $w == masterworker ]]; then
      fold_one "$w" "$prev_n" 0 "rank 0 (master)"
      busiest=$(for ((r = 1; r < NP; r++)); do echo "$(stat -c %s "$tmp/trace/rank-$r.flat") $r"; done | sort -n | tail -1 | cut -d' ' -f2)
      ((busiest == 1)) || fold_one "$w" "$prev_n" "$busiest" "rank $busiest (busiest worker)"
    fi
  fi
  rm -rf "$tmp/trace"
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
elapsed=$(($(date +%s) - start))
# imports results_section.py from here (and leaves no __pycache__ in the tree)
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$RESULTS" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$cpu" "$(cat "$tmp/mpi")" \
  "$NP" "$BUDGET" "$ZSTD_LEVEL" "$FOLDREPS" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$SOURCE" "$elapsed" "$ITERS" "$FOLDCOST" <<'EOF'
import sys

from results_section import update

(log, results, date, nproc, cpu, mpi, np_, budget, zlevel, foldreps, kernel, load0, load, commit, elapsed,
 iters, foldcost) = sys.argv[1:]
runs, skips, folds, order = {}, {}, [], []
for line in open(log):
    w = line.split()
    if w[0] == "run":
        runs[(w[1], int(w[2]))] = dict(secs=float(w[4]), events=int(w[5]), rt=w[6], flat=int(w[7]), zst=int(w[8]),
                                       zcat=int(w[9]), tf=int(w[10]), merge=w[11], nodes=int(w[12]), shape=w[13])
        if w[1] not in order:
            order.append(w[1])
    elif w[0] == "skip":
        skips[w[1]] = (int(w[2]), int(w[3]), int(w[4]))
    elif w[0] == "fold":
        folds.append(w[1:])

expected = dict.fromkeys(["stencil2d", "stencil3d", "ring", "wavefront", "alltoall", "persistent", "nbcoll",
                          "butterfly", "fstencil"], "regular")
expected.update(branchy="periodic (rank- and iteration-dependent)", masterworker="irregular (dynamic)",
                alltoallv="irregular (data-dependent counts)", threads="irregular (thread interleaving)")
rows, summary = [], []
for wl in order:
    ns = sorted(n for (w, n) in runs if w == wl)
    for n in ns:
        r = runs[(wl, n)]
        mark = "" if r["rt"] == "ok" else " **round trip FAILED**"
        merge = "–" if r["merge"] == "-" else f"{float(r['merge']):.0f}"
        rows.append(f"| {wl} | {n}{mark} | {r['events']} | {r['flat']} | {r['zst']} | {r['zcat']} | {r['tf']} | "
                    f"{r['nodes']} | {r['flat'] / r['tf']:.1f} | {r['zcat'] / r['tf']:.2f} | {merge} | {r['secs']:.1f} |")
    lo, hi = runs[(wl, ns[0])], runs[(wl, ns[-1])]
    if lo["shape"] == hi["shape"]:
        verdict = "constant (same structure: `show` equal up to numbers)"
    elif hi["nodes"] <= 1.1 * lo["nodes"] and hi["tf"] <= 1.1 * lo["tf"]:
        verdict = "nearly constant (nodes and bytes within 10%)"
    else:
        verdict = f"grows ({(hi['tf'] - lo['tf']) / (ns[-1] - ns[0]):+.2f} B per iteration)"
    top = f"{ns[-1]}"
    if wl in skips:
        want, pred, pick = skips[wl]
        top += f" (not {want}: predicted {pred} s)"
    summary.append(f"| {wl} | {expected.get(wl, '?')} | {top} | {hi['tf'] / lo['tf']:.2f} | {lo['tf']} → {hi['tf']} | "
                   f"{hi['flat'] / lo['flat']:.1f} | {lo['nodes']} → {hi['nodes']} | {verdict} |")
allok = all(r["rt"] == "ok" for r in runs.values())

h1 = "## Merged trace bytes vs iterations"
s1 = f"""{h1}

Written by `bench/sizes.sh` on {date} (took {elapsed} s).
Machine: {nproc} cores, {cpu}, Linux {kernel}; load average {load0} at the start, {load} at the end.
MPI: {mpi}; {np_} ranks (oversubscribed), `MPIR_CVAR_POLLS_BEFORE_YIELD=1`. Built from: {commit}.

How measured: each workload runs at {np_} ranks with its default problem size, once per iteration count
({iters}; a count predicted to take over {budget} s is replaced by a smaller one, see the second table),
recorded with `TRACEFOLD_MODE=both`, so the flat files (`rank-R.flat`, one per rank) and the merged trace
(`trace.tf`: every rank's folded trace merged into one file at `MPI_Finalize`, zstd-compressed sections)
come from the same run. Per run, over all {np_} ranks: events; bytes of the flat files, summed; of the flat
files compressed by `zstd -{zlevel}` each on its own, summed; of all flat files concatenated and compressed
by one `zstd -{zlevel}` (zstd's best case: it sees the ranks' similarity too); of `trace.tf`; the nodes
(events and loops) `tracefold show` prints for the merged trace; flat/tf = flat bytes / `trace.tf` bytes;
zstd/tf = concatenated-zstd bytes / `trace.tf` bytes; merge ms = the merge time rank 0 reports (`tracefold
stats`: from decoding its own folded trace to the merged structure being ready, receiving the other ranks'
traces over the binomial tree included, before the final encode and write; the ranks busy-poll on {nproc}
cores, so it is mostly waiting). Every run passed the round-trip check (`tracefold dump --no-time DIR` of
the flat files = `tracefold unroll --no-time DIR/trace.tf` of the merged one, byte for
byte){"" if allok else " unless marked"}. Run s = wall time of the traced `mpirun`.

| workload | iterations | events | flat B | flat + zstd -{zlevel} per file B | zstd -{zlevel} of all flat B | trace.tf B | nodes | flat/tf | zstd/tf | merge ms | run s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Growth from the smallest to the largest count. "constant": `tracefold show` of the merged trace is the same
text at both counts once every number in it is replaced (same loops, events, value sequences and rank
lists; only the counts and values in them changed: iteration counts, run lengths, tags, time statistics are
varints that widen by a byte or two as they grow). "regular"/"irregular" is what the workload's pattern
leads one to expect.

| workload | expected | largest count | trace.tf ratio largest/smallest | trace.tf B | flat ratio | nodes | verdict |
|---|---|---:|---:|---:|---:|---:|---|
{chr(10).join(summary)}
"""

frows, header_b = [], set()
for f in folds:
    wl, n, rank, events, sites, threads, tfc, segs, spills, fmed, fmin, tmed, tmin, rt, hb = f[:15]
    label = " ".join(f[15:])
    header_b.add(int(hb))
    if rt != "ok":
        label += " **round trip FAILED**"
    frows.append(f"| {wl} {label} | {n} | {events} | {threads} | {tfc} | {float(fmed):.0f} | {float(fmin):.0f} | "
                 f"{float(tmed):.0f} | {float(tmin):.0f} |")
hdr = "?" if not header_b else f"{min(header_b)} bytes" if len(header_b) == 1 else \
    f"{min(header_b)}–{max(header_b)} bytes (varies with the executable's path)"
h2 = "## Compressor cost per event"
s2 = f"""{h2}

Written by `bench/sizes.sh` on {date}, same machine, load and source as above.

How measured: `bench_foldcost` (bench/foldcost.c, no MPI) loads every event of one flat file (from the
largest run of the table above) into memory, then {foldreps} times (after one warm-up) feeds them through a
fresh `tf_compressor` (default 256 MiB cap) writing a `.tfc` file in /tmp, timed with
`clock_gettime(CLOCK_MONOTONIC)`. fold = the `tf_compressor_event` calls (the work the recorder does per
call in compressed mode where flat mode encodes a flat event); total = fold + `tf_compressor_finish` + closing the file (segment
encoding and writing, and the header and function table, {hdr}, which dominate short streams), divided by the events. The
file written is read back and compared event by event with the input (all matched unless marked). This is one rank's
folding only; merging the ranks at `MPI_Finalize` is the merge ms above. Single-threaded; other processes on the
machine add noise, the fastest repetition is a lower bound.

| stream | iterations | events | threads | .tfc B | fold ns/event median | fold ns/event fastest | total ns/event median | total ns/event fastest |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(frows)}
"""

# the first section's name before traces were merged
update(results, h1, s1, formerly="## Compressed bytes per rank vs iterations")
if foldcost == "1":
    update(results, h2, s2)
print(f"sizes.sh: wrote {results}", file=sys.stderr)
print("\n".join(rows + [""] + summary + [""] + frows), file=sys.stderr)
EOF
finish "some round trips FAILED; their traces are kept in $failed"
