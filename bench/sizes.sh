#!/usr/bin/env bash
# sizes.sh — trace bytes per rank against iterations, and the compressor's
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
#   FOLDREPS   repetitions of bench_foldcost             [15]
#   ZSTD_LEVEL level of the zstd comparison              [19]
#   RESULTS    the file to update                        [bench/RESULTS.md]
#   SOURCE     what the binaries were built from, for the record [the git
#              commit of BUILD_DIR's source tree, "+ uncommitted changes" if
#              src/ or include/ differ from it]
#
# Compressed bytes per rank vs iterations: every workload runs at NP ranks
# with its default problem size (-s) once per iteration count, recorded with
# TRACEFOLD_MODE=both (rank-R.flat and rank-R.tfc of the same run). The
# first two counts always run; a later count whose run is predicted (linearly
# from the previous count's wall time) to take more than BUDGET seconds is
# replaced by the largest of 1/2, 3/10, 1/5 of it that fits, or skipped; the
# table says so. Per run and rank: flat bytes, flat bytes through
# `zstd -ZSTD_LEVEL` (each file on its own), compressed (.tfc) bytes, and of
# those the bytes of the segments' node lists (the folded events, without the
# header + function table and call-site records that both kinds carry); the
# table gives means over the ranks. Every run is also checked for a lossless
# round trip: `tracefold dump --no-time` (flat files) must equal
# `tracefold unroll --no-time` (compressed files) byte for byte.
#
# Compressor cost per event: bench_foldcost (bench/foldcost.c) feeds the
# events of one flat file (rank 1 of every workload, plus masterworker's
# rank 0 and its busiest worker) from the largest run through a fresh
# compressor, FOLDREPS times, and reports ns per event (median, fastest).
#
# RESULTS.md is shared: this script replaces only its two sections
# ("## Compressed bytes per rank vs iterations", "## Compressor cost per
# event", each up to the next "## " heading) and keeps everything else.
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
FOLDREPS=${FOLDREPS:-15}
ZSTD_LEVEL=${ZSTD_LEVEL:-19}
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* in the caller's environment would alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY

die() { echo "sizes.sh: $*" >&2; exit 1; }
command -v zstd >/dev/null || die "zstd not found (scripts/setup.sh installs it; or apt-get install zstd)"
command -v "$MPIRUN" >/dev/null || die "launcher $MPIRUN not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
((NP >= 2)) || die "NP must be at least 2 (rank 1 is measured)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-sizes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Work on a private copy of the binaries: a rebuild of BUILD_DIR while this
# runs (it takes minutes) must not mix two versions into one table.
bin=$tmp/bin
mkdir -p "$bin"
for f in src/recorder/libtracefold.so src/cli/tracefold bench/bench_foldcost; do
  [[ -f $build/$f ]] || die "missing $build/$f (build the project first)"
  cp "$build/$f" "$bin/"
done
for w in $WORKLOADS; do
  [[ -x $build/workloads/wl_$w ]] || die "missing $build/workloads/wl_$w (build the project first)"
  cp "$build/workloads/wl_$w" "$bin/"
done
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [[ -z ${SOURCE:-} ]]; then
  SOURCE=unknown
  if [[ -n $src ]] && SOURCE=$(git -C "$src" rev-parse --short HEAD 2>/dev/null); then
    [[ -z $(git -C "$src" status --porcelain -- src include 2>/dev/null) ]] ||
      SOURCE="$SOURCE + uncommitted changes in src/ or include/"
  else
    SOURCE=unknown
  fi
fi
lib=$bin/libtracefold.so
cli=$bin/tracefold
fold=$bin/bench_foldcost
failed= # created at the first failed round trip; keeps its traces
log=$tmp/log
: >"$log"
status=0

# tfc_parts FILE -> "header_bytes callsite_bytes segment_bytes nsegments time_bytes nodes items"
# (doc/FORMAT.md 1.3-1.7, 2.1-2.3). time_bytes: the compute/duration stats (min, max, mean ns) of the
# event nodes, part of the segment bytes; nodes: event and loop nodes; items: value-sequence items
# (single, run, repeat, counted inside repeats too). Equal nodes and items = the same folded structure.
cat >"$tmp/tfc_parts.py" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
p = 0
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
nnodes = nitems = 0
def item():
    global p, nitems
    nitems += 1
    k = d[p]; p += 1
    if k == 0: uvar()
    elif k == 1: uvar(); uvar(); uvar()
    elif k == 2:
        uvar(); uvar()
        for _ in range(uvar()): item()
    else: raise SystemExit(f"{sys.argv[1]}: unknown item kind {k} at {p - 1}")
def vseq():
    for _ in range(uvar()): item()
def nodes():  # returns the bytes of time stats in the list
    global p, nnodes
    t = 0
    for _ in range(uvar()):
        nnodes += 1
        k = d[p]; p += 1
        if k == 0:
            uvar(); uvar(); uvar(); vseq()
            for _ in range(uvar()): vseq()
            q = p
            for _ in range(6): uvar()
            t += p - q
        elif k == 1:
            vseq(); t += nodes()
        else: raise SystemExit(f"{sys.argv[1]}: unknown node kind {k} at {p - 1}")
    return t
assert d[:8] == b"TFCOMP\r\n", "not a compressed trace file"
p = 12
uvar(); uvar(); uvar(); uvar(); string(); string()
for _ in range(uvar()):
    string()
    for _ in range(uvar()):
        p += 2; string()
header, callsites, segments, nseg, times = p, 0, 0, 0, 0
while True:
    start, tag = p, d[p]
    p += 1
    if tag == 0:
        break
    if tag == 2:
        uvar(); p += 8; string(); uvar(); callsites += p - start
    elif tag == 3:
        uvar()
    elif tag == 4:
        uvar(); n = uvar(); end = p + n; times += nodes(); segments += n; nseg += 1
        if p != end: raise SystemExit(f"{sys.argv[1]}: segment at {start} does not end at its length")
    else:
        raise SystemExit(f"{sys.argv[1]}: unexpected record tag {tag} at {start}")
print(header, callsites, segments, nseg, times, nnodes, nitems)
EOF

run_one() { # workload iters -> appends "run" and "rank" lines to the log; leaves the trace in $tmp/trace
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
  local r events mpi
  for ((r = 0; r < NP; r++)); do
    [[ -f $t/rank-$r.flat && -f $t/rank-$r.tfc ]] || die "wl_$w -i $n: rank $r wrote no rank-$r.flat/.tfc in $t"
  done
  "$cli" summary "$t" >"$tmp/summary" || die "tracefold summary failed on wl_$w -i $n"
  events=$(sed -n 's/^trace: .* ranks, \([0-9]*\) events$/\1/p' "$tmp/summary")
  mpi=$(sed -n 's/^MPI: //p' "$tmp/summary" | head -1 | tr -s ' \t' ' ')
  [[ -n $events ]] || die "cannot read the event count from tracefold summary of wl_$w -i $n"
  echo "$mpi" >"$tmp/mpi"
  # lossless round trip: every event of the flat files, from the compressed ones
  local a b rt=ok
  a=$("$cli" dump --no-time "$t" | md5sum) || die "tracefold dump --no-time failed on wl_$w -i $n"
  b=$("$cli" unroll --no-time "$t" | md5sum) || die "tracefold unroll --no-time failed on wl_$w -i $n"
  if [[ $a != "$b" ]]; then
    rt=FAILED
    status=1
    [[ -n $failed ]] || failed=$(mktemp -d "${TMPDIR:-/tmp}/tf-sizes-failed.XXXXXX")
    cp -r "$t" "$failed/$w-$n"
    echo "sizes.sh: ROUND TRIP FAILED: wl_$w -i $n: tracefold dump --no-time $failed/$w-$n differs from" \
      "tracefold unroll --no-time $failed/$w-$n" >&2
  fi
  echo "run $w $n $NP $secs $events $rt" >>"$log"
  local flat zst tfc parts
  for ((r = 0; r < NP; r++)); do
    flat=$(stat -c %s "$t/rank-$r.flat")
    tfc=$(stat -c %s "$t/rank-$r.tfc")
    zst=$(zstd -q -"$ZSTD_LEVEL" -c "$t/rank-$r.flat" | wc -c)
    parts=$(python3 "$tmp/tfc_parts.py" "$t/rank-$r.tfc") || die "cannot parse $t/rank-$r.tfc"
    echo "rank $w $n $r $flat $zst $tfc $parts" >>"$log"
  done
  LAST_SECS=$secs
}

fold_one() { # workload iters rank label...
  local w=$1 n=$2 r=$3 rc=0
  shift 3
  "$fold" -r "$FOLDREPS" -o "$tmp/fold.tfc" "$tmp/trace/rank-$r.flat" >"$tmp/fold" 2>"$tmp/folderr" || rc=$?
  if ((rc != 0)); then
    cat "$tmp/fold" "$tmp/folderr" >&2
    grep -q "^roundtrip FAILED" "$tmp/fold" || die "bench_foldcost failed on wl_$w -i $n rank $r"
    status=1
    [[ -n $failed ]] || failed=$(mktemp -d "${TMPDIR:-/tmp}/tf-sizes-failed.XXXXXX")
    cp "$tmp/trace/rank-$r.flat" "$failed/$w-$n-rank-$r.flat"
    echo "sizes.sh: ROUND TRIP FAILED: $fold $failed/$w-$n-rank-$r.flat" >&2
  fi
  local rec ours
  rec=$(stat -c %s "$tmp/trace/rank-$r.tfc")
  ours=$(sed -n 's/^compressed_bytes \([0-9]*\) .*/\1/p' "$tmp/fold")
  [[ $rec == "$ours" ]] || set -- "$@" "(the recorder's .tfc: $rec B)"
  echo "fold $w $n $r $(awk '/^events/ { e = $2; s = $4; t = $6 } /^compressed_bytes/ { b = $2; g = $4; p = $6 }
    /^fold_ns/ { fm = $2; fn = $4 } /^total_ns/ { tm = $2; tn = $4 } /^roundtrip/ { rt = $2 }
    END { print e, s, t, b, g, p, fm, fn, tm, tn, rt }' "$tmp/fold") $*" >>"$log"
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
  fold_one "$w" "$prev_n" 1 "rank 1"
  if [[ $w == masterworker ]]; then
    fold_one "$w" "$prev_n" 0 "rank 0 (master)"
    busiest=$(for ((r = 1; r < NP; r++)); do echo "$(stat -c %s "$tmp/trace/rank-$r.flat") $r"; done | sort -n | tail -1 | cut -d' ' -f2)
    ((busiest == 1)) || fold_one "$w" "$prev_n" "$busiest" "rank $busiest (busiest worker)"
  fi
  rm -rf "$tmp/trace"
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
elapsed=$(($(date +%s) - start))
python3 - "$log" "$RESULTS" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$cpu" "$(cat "$tmp/mpi")" \
  "$NP" "$BUDGET" "$ZSTD_LEVEL" "$FOLDREPS" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$SOURCE" "$elapsed" "$ITERS" <<'EOF'
import statistics, sys

(log, results, date, nproc, cpu, mpi, np_, budget, zlevel, foldreps, kernel, load0, load, commit, elapsed,
 iters) = sys.argv[1:]
runs, ranks, skips, folds, order = {}, {}, {}, [], []
for line in open(log):
    w = line.split()
    if w[0] == "run":
        runs[(w[1], int(w[2]))] = dict(secs=float(w[4]), events=int(w[5]), rt=w[6])
        if w[1] not in order:
            order.append(w[1])
    elif w[0] == "rank":
        ranks.setdefault((w[1], int(w[2])), []).append([int(x) for x in w[4:14]])
    elif w[0] == "skip":
        skips[w[1]] = (int(w[2]), int(w[3]), int(w[4]))
    elif w[0] == "fold":
        folds.append(w[1:])

mean = statistics.mean
expected = dict.fromkeys(["stencil2d", "stencil3d", "ring", "wavefront", "alltoall", "persistent", "nbcoll",
                          "butterfly", "fstencil"], "regular")
expected.update(branchy="periodic (rank- and iteration-dependent)", masterworker="irregular (dynamic)",
                alltoallv="irregular (data-dependent counts)", threads="irregular (thread interleaving)")
rows, summary = [], []
header_b = set()
for wl in order:
    ns = sorted(n for (w, n) in runs if w == wl)
    for n in ns:
        r, rk = runs[(wl, n)], ranks[(wl, n)]
        flat, zst, tfc, _, _, seg, _, _, nodes, items = (mean(x[i] for x in rk) for i in range(10))
        header_b.update(x[3] for x in rk)
        mark = "" if r["rt"] == "ok" else " **round trip FAILED**"
        segs = "" if max(x[6] for x in rk) == 1 else f" ({max(x[6] for x in rk)} segments)"
        rows.append(f"| {wl} | {n}{mark} | {r['events'] / int(np_):.0f} | {flat:.0f} | {zst:.0f} | {tfc:.0f} | "
                    f"{seg:.0f}{segs} | {nodes:.0f} | {items:.0f} | {flat / tfc:.1f} | {r['secs']:.1f} |")
    lo, hi = ns[0], ns[-1]
    rlo, rhi = ranks[(wl, lo)], ranks[(wl, hi)]
    t_lo, t_hi = mean(x[2] for x in rlo), mean(x[2] for x in rhi)
    s_lo, s_hi = mean(x[5] for x in rlo), mean(x[5] for x in rhi)
    n_lo, n_hi = mean(x[8] for x in rlo), mean(x[8] for x in rhi)
    i_lo, i_hi = mean(x[9] for x in rlo), mean(x[9] for x in rhi)
    if all(a[8:10] == b[8:10] for a, b in zip(rlo, rhi)):
        verdict = "constant (same structure on every rank)"
    elif n_hi <= 1.1 * n_lo and i_hi <= 1.1 * i_lo:
        verdict = "nearly constant (structure within 10%)"
    else:
        verdict = f"grows ({(s_hi - s_lo) / (hi - lo):+.2f} segment B per iteration)"
    top = f"{hi}"
    if wl in skips:
        want, pred, pick = skips[wl]
        top += f" (not {want}: predicted {pred} s)"
    summary.append(f"| {wl} | {expected.get(wl, '?')} | {top} | {t_hi / t_lo:.2f} | {s_lo:.0f} → {s_hi:.0f} | "
                   f"{n_lo:.0f} → {n_hi:.0f} | {i_lo:.0f} → {i_hi:.0f} | {verdict} |")
hdr = f"{min(header_b)} bytes" if len(header_b) == 1 else f"{min(header_b)}–{max(header_b)} bytes (varies with the executable's path)"

h1 = "## Compressed bytes per rank vs iterations"
s1 = f"""{h1}

Written by `bench/sizes.sh` on {date} (took {elapsed} s).
Machine: {nproc} cores, {cpu}, Linux {kernel}; load average {load0} at the start, {load} at the end.
MPI: {mpi}; {np_} ranks (oversubscribed), `MPIR_CVAR_POLLS_BEFORE_YIELD=1`. Built from: {commit}.

How measured: each workload runs at {np_} ranks with its default problem size, once per iteration count
({iters}; a count predicted to take over {budget} s is replaced by a smaller one, see the second table),
recorded with `TRACEFOLD_MODE=both`, so the flat and the compressed file of a rank come from the same run.
Columns are means over the {np_} ranks, per rank: bytes of the flat file, of the flat file compressed alone
by `zstd -{zlevel}`, of the compressed (`.tfc`) file, and of the node lists of its segments (the folded
events: the `.tfc` file minus its header and function table, {hdr} in every file of either kind, and
its call-site records); the segments' event and loop nodes, and their value-sequence items (single values,
runs, repeats). flat/tfc = flat bytes / `.tfc` bytes. Every run passed the round-trip check (`tracefold
dump --no-time` of the flat files = `tracefold unroll --no-time` of the compressed ones) unless marked.
Run s = wall time of the traced `mpirun`.

| workload | iterations | events/rank | flat B | flat + zstd -{zlevel} B | .tfc B | of which segments B | nodes | items | flat/tfc | run s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Growth from the smallest to the largest count (means over ranks). "constant": every rank has the same
nodes and items at both counts, so only the numbers in them changed (iteration counts, occurrence counts
of runs, tags, time statistics are varints: they widen by a byte or two per value as they grow).
"regular"/"irregular" is what the workload's pattern leads one to expect.

| workload | expected | largest count | .tfc ratio largest/smallest | segments B | nodes | items | verdict |
|---|---|---:|---:|---:|---:|---:|---|
{chr(10).join(summary)}
"""

frows = []
for f in folds:
    wl, n, rank, events, sites, threads, tfc, segs, spills, fmed, fmin, tmed, tmin, rt = f[:14]
    label = " ".join(f[14:])
    if rt != "ok":
        label += " **round trip FAILED**"
    frows.append(f"| {wl} {label} | {n} | {events} | {threads} | {tfc} | {float(fmed):.0f} | {float(fmin):.0f} | "
                 f"{float(tmed):.0f} | {float(tmin):.0f} |")
h2 = "## Compressor cost per event"
s2 = f"""{h2}

Written by `bench/sizes.sh` on {date}, same machine, load and source as above.

How measured: `bench_foldcost` (bench/foldcost.c, no MPI) loads every event of one flat file (from the
largest run of the table above) into memory, then {foldreps} times (after one warm-up) feeds them through a
fresh `tf_compressor` (default 256 MiB cap) writing a `.tfc` file in /tmp, timed with
`clock_gettime(CLOCK_MONOTONIC)`. fold = the `tf_compressor_event` calls (the work the recorder does per
call in compressed mode where flat mode encodes a flat event); total = fold + `tf_compressor_finish` + closing the file (segment
encoding and writing, and the header and function table, {hdr}, which dominate short streams), divided by the events. The
file written is read back and compared event by event with the input (all matched unless marked), and its
size equals that of the recorder's own `.tfc` for that rank unless noted. Single-threaded; other processes on the machine add
noise, the fastest repetition is a lower bound.

| stream | iterations | events | threads | .tfc B | fold ns/event median | fold ns/event fastest | total ns/event median | total ns/event fastest |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(frows)}
"""


def replace(text, heading, section):
    lines = text.splitlines(keepends=True)
    start = next((i for i, l in enumerate(lines) if l.rstrip("\n") == heading), None)
    if start is None:
        return text.rstrip("\n") + "\n\n" + section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    rest = "".join(lines[end:])
    return "".join(lines[:start]) + section + ("\n" + rest if rest else "")


try:
    text = open(results).read()
except FileNotFoundError:
    text = "# tracefold benchmark results\n\nEach section is written by the benchmark named in it; rerun it to refresh.\n"
text = replace(text, h1, s1)
text = replace(text, h2, s2)
open(results, "w").write(text)
print(f"sizes.sh: wrote {results}", file=sys.stderr)
print("\n".join(rows + [""] + summary + [""] + frows), file=sys.stderr)
EOF
if ((status != 0)); then
  echo "sizes.sh: some round trips FAILED; their traces are kept in $failed" >&2
fi
echo "sizes.sh: done in $(($(date +%s) - start)) s" >&2
exit "$status"
