#!/usr/bin/env bash
# ranks.sh — merged trace bytes (and merge time) against the number of ranks;
# records the figures in bench/RESULTS.md. Builds nothing.
#
# usage: bench/ranks.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (needs src/recorder/libtracefold.so,
#              src/cli/tracefold, workloads/wl_<name>)
# environment (optional):
#   MPIRUN     launcher                                  [mpirun.mpich]
#   NPS        rank counts, ascending                    ["4 8 16 32 64 128 256"]
#   BUDGET     seconds a run may be predicted to take    [120]
#   TIMEOUT    hard limit per run, seconds               [900]
#   WORKLOADS  which workloads                           [all 13, as sizes.sh]
#   ZSTD_LEVEL level of the zstd comparison              [19]
#   RESULTS    the file to update                        [bench/RESULTS.md]
#   KEEP       a directory to keep every run's trace.tf and `tracefold show`
#              output in (<workload>-<P>.tf, .show)     [none: nothing kept]
#   SOURCE     what the binaries were built from, for the record [the git
#              commit of BUILD_DIR's source tree, "+ uncommitted changes" if
#              src/ or include/ differ from it]
#
# Every workload runs at each rank count of NPS with its default iterations
# and problem size (-i, -s not given; the stencil and wavefront workloads, and
# alltoall's and butterfly's process grids, pick a 2-D or 3-D grid from the
# rank count with MPI_Dims_create, so the neighbours a rank has change with
# P), recorded with TRACEFOLD_MODE=both: the flat files (rank-R.flat) and the
# merged trace (trace.tf, all ranks merged at MPI_Finalize) of the same run.
# The first two counts always run; a later one whose run is predicted to take
# more than BUDGET seconds is skipped, and so are the counts above it (the
# table says so). The prediction extrapolates the last two runs' wall times:
# t(P) = t(P') * (P/P')^e with e = log(t'/t'')/log(P'/P'') clamped to [1, 2]
# (on a machine with fewer cores than ranks, a run's wall time grows at least
# linearly with P). A run that fails or exceeds TIMEOUT is reported, and the
# larger counts of that workload are skipped.
#
# Per run: trace.tf bytes; the flat files' bytes, summed; the flat files
# through `zstd -ZSTD_LEVEL`, each on its own, summed; all flat files
# concatenated (in rank order) through one `zstd -ZSTD_LEVEL` (zstd then sees
# the similarity between ranks too, as the merge does); the ratios; the merge
# time rank 0 reports (`tracefold stats`); the nodes (events and loops) of
# `tracefold show`; the wall time of the traced mpirun. Every run is checked
# for a lossless round trip: `tracefold dump --no-time DIR` (flat files) must
# equal `tracefold unroll --no-time DIR/trace.tf` byte for byte.
#
# RESULTS.md is shared: this script replaces only its section ("## Merged
# trace bytes vs ranks", up to the next "## " heading) and keeps everything
# else (bench/results_section.py).
#
# The code it shares with sizes.sh is in bench/bench_common.sh: the
# checks for the commands it needs, copying the binaries, the SOURCE default,
# keeping the traces of failed round trips, the final message and exit status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/ranks.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
NPS=${NPS:-4 8 16 32 64 128 256}
BUDGET=${BUDGET:-120}
TIMEOUT=${TIMEOUT:-900}
WORKLOADS=${WORKLOADS:-stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads fstencil}
ZSTD_LEVEL=${ZSTD_LEVEL:-19}
RESULTS=${RESULTS:-$here/RESULTS.md}
KEEP=${KEEP:-}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* in the caller's environment would alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY

prog=ranks.sh
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
need_commands
read -r -a nps <<<"$NPS"
((${#nps[@]} > 0)) || die "NPS is empty"
for ((k = 0; k < ${#nps[@]}; k++)); do
  [[ ${nps[k]} =~ ^[1-9][0-9]*$ ]] || die "NPS: ${nps[k]} is not a rank count"
  ((k == 0 || nps[k] > nps[k - 1])) || die "NPS must be ascending"
done
if [[ -n $KEEP ]]; then mkdir -p "$KEEP" && KEEP=$(cd "$KEEP" && pwd); fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-ranks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Work on a private copy of the binaries: a rebuild of BUILD_DIR while this
# runs (it takes a long while) must not mix two versions into one table.
private_binaries "$build"
failed= # created at the first failed round trip; keeps its traces
log=$tmp/log
: >"$log"
status=0
echo unknown >"$tmp/mpi"

# run_one workload P -> appends a "run" (or "fail") line to the log; returns 1 if the run failed
run_one() {
  local w=$1 np=$2 t=$tmp/trace t0 t1 secs rc=0
  rm -rf "$t"
  t0=$(date +%s.%N)
  timeout "$TIMEOUT" "$MPIRUN" -n "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$t" \
    "$bin/wl_$w" >"$tmp/out" 2>"$tmp/err" || rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  LAST_SECS=$secs
  fail() {
    echo "fail $w $np $secs $*" >>"$log"
    echo "ranks.sh: wl_$w at $np ranks: $* (reproduce: MPIR_CVAR_POLLS_BEFORE_YIELD=1 $MPIRUN -n $np env" \
      "LD_PRELOAD=$build/src/recorder/libtracefold.so TRACEFOLD_MODE=both TRACEFOLD_OUTPUT=/tmp/t $build/workloads/wl_$w)" >&2
    status=1
  }
  if ((rc != 0)); then
    tail -n 15 "$tmp/err" >&2
    if ((rc == 124)); then fail "did not finish within TIMEOUT=$TIMEOUT s"; else fail "exit status $rc"; fi
    return 1
  fi
  local r
  for ((r = 0; r < np; r++)); do
    [[ -f $t/rank-$r.flat ]] || { fail "rank $r wrote no rank-$r.flat"; return 1; }
  done
  [[ -f $t/trace.tf ]] || { tail -n 5 "$tmp/err" >&2; fail "no merged trace.tf"; return 1; }
  if compgen -G "$t/rank-*.tfc" >/dev/null; then fail "per-rank .tfc files beside trace.tf"; return 1; fi
  local events merge grid
  "$cli" stats "$t/trace.tf" >"$tmp/stats" || { fail "tracefold stats failed"; return 1; }
  events=$(sed -n 's/^events: *\([0-9]*\).*/\1/p' "$tmp/stats")
  merge=$(sed -n 's/^merge: *\([0-9.]*\) ms.*/\1/p' "$tmp/stats")
  [[ -n $events ]] || { fail "no event count in tracefold stats"; return 1; }
  sed -n 's/^MPI: *//p' "$tmp/stats" | head -1 | tr -s ' \t' ' ' >"$tmp/mpi"
  grid=$(sed -n 's/.*grid \([0-9x]*\).*/\1/p' "$tmp/out" | head -1)
  # lossless round trip: every event of the flat files, from the merged one
  local a b rt=ok
  a=$("$cli" dump --no-time "$t" | md5sum) || { fail "tracefold dump --no-time failed"; return 1; }
  b=$("$cli" unroll --no-time "$t/trace.tf" | md5sum) || { fail "tracefold unroll --no-time failed"; return 1; }
  if [[ $a != "$b" ]]; then
    rt=FAILED
    round_trip_failed "$t" "$w-$np" "wl_$w at $np ranks"
  fi
  # structure: `tracefold show` lines that are events or loops, and a signature of its text with every
  # number replaced (equal at two rank counts = same loops, events, value sequences and rank-list shapes)
  local nodes shape
  "$cli" show "$t/trace.tf" >"$tmp/show" || { fail "tracefold show failed"; return 1; }
  nodes=$(tail -n +2 "$tmp/show" | grep -cv '^ *}$' || true)
  shape=$(tail -n +2 "$tmp/show" | sed -E 's/-?[0-9]+/N/g' | md5sum | cut -c1-12)
  if [[ -n $KEEP ]]; then
    cp "$t/trace.tf" "$KEEP/$w-$np.tf"
    cp "$tmp/show" "$KEEP/$w-$np.show"
  fi
  local flat zst zcat tf files=()
  for ((r = 0; r < np; r++)); do files+=("$t/rank-$r.flat"); done
  flat=$(cat "${files[@]}" | wc -c)
  # several inputs with -c: one independent frame per file, concatenated
  zst=$(zstd -q -"$ZSTD_LEVEL" -c "${files[@]}" | wc -c)
  zcat=$(cat "${files[@]}" | zstd -q -"$ZSTD_LEVEL" -c | wc -c)
  tf=$(stat -c %s "$t/trace.tf")
  echo "run $w $np $secs $events $rt $flat $zst $zcat $tf ${merge:--} $nodes $shape ${grid:--}" >>"$log"
  rm -rf "$t"
}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for w in $WORKLOADS; do
  p1=0 t1=0 p2=0 t2=0 i=0 stop=
  for np in "${nps[@]}"; do
    if [[ -n $stop ]]; then
      echo "skip $w $np $stop" >>"$log" # "above P" or "failed P"
      continue
    fi
    if ((i >= 2)); then
      pred=$(awk -v p1="$p1" -v t1="$t1" -v p2="$p2" -v t2="$t2" -v p="$np" 'BEGIN {
        e = (t1 > 0 && t2 > 0) ? log(t2 / t1) / log(p2 / p1) : 1
        if (e < 1) e = 1
        if (e > 2) e = 2
        printf "%.0f", t2 * exp(e * log(p / p2)) }')
      if ((pred > BUDGET)); then
        echo "  $w at $np ranks: skipped (predicted $pred s > BUDGET=$BUDGET s)" >&2
        echo "skip $w $np predicted $pred" >>"$log"
        stop="above $np"
        continue
      fi
    fi
    if ! run_one "$w" "$np"; then
      stop="failed $np"
      continue
    fi
    echo "  $w at $np ranks: ${LAST_SECS} s ($(($(date +%s) - start)) s so far)" >&2
    p1=$p2 t1=$t2 p2=$np t2=$LAST_SECS i=$((i + 1))
  done
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
elapsed=$(($(date +%s) - start))
# imports results_section.py from here (and leaves no __pycache__ in the tree)
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$RESULTS" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$cpu" "$(cat "$tmp/mpi")" \
  "$BUDGET" "$ZSTD_LEVEL" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SOURCE" "$elapsed" \
  "$NPS" "$TIMEOUT" <<'EOF'
import math, sys

from results_section import update

(log, results, date, nproc, cpu, mpi, budget, zlevel, kernel, load0, load, commit, elapsed, nps,
 timeout) = sys.argv[1:]
nps = [int(x) for x in nps.split()]
runs, skips, fails, order = {}, {}, {}, []
for line in open(log):
    w = line.split()
    if w[1] not in order:
        order.append(w[1])
    key = (w[1], int(w[2]))
    if w[0] == "run":
        runs[key] = dict(secs=float(w[3]), events=int(w[4]), rt=w[5], flat=int(w[6]), zst=int(w[7]),
                         zcat=int(w[8]), tf=int(w[9]), merge=None if w[10] == "-" else float(w[10]),
                         nodes=int(w[11]), shape=w[12], grid=w[13])
    elif w[0] == "skip":
        skips[key] = " ".join(w[3:])
    elif w[0] == "fail":
        fails[key] = " ".join(w[4:])

regular = ["stencil2d", "stencil3d", "ring", "alltoall", "wavefront", "persistent", "nbcoll"]
rows, summary, mrows = [], [], []
for wl in order:
    for p in nps:
        if (wl, p) in runs:
            r = runs[(wl, p)]
            merge = "–" if r["merge"] is None else f"{r['merge']:.0f}"
            grid = "–" if r["grid"] == "-" else r["grid"]
            rt = "yes" if r["rt"] == "ok" else "**NO: round trip FAILED**"
            rows.append(f"| {wl} | {p} | {grid} | {r['events']} | {r['flat']} | {r['zst']} | {r['zcat']} | "
                        f"{r['tf']} | {r['tf'] / p:.0f} | {r['nodes']} | {r['flat'] / r['tf']:.0f} | "
                        f"{r['zst'] / r['tf']:.1f} | {r['zcat'] / r['tf']:.2f} | {merge} | {r['secs']:.1f} | {rt} |")
        elif (wl, p) in fails:
            rows.append("| " + " | ".join([wl, str(p)] + [""] * 13 + [f"**failed: {fails[(wl, p)]}**"]) + " |")
        elif (wl, p) in skips:
            s = skips[(wl, p)]
            kind, arg = s.split()
            why = {"predicted": f"skipped: predicted {arg} s > BUDGET {budget} s",
                   "above": f"skipped: above {arg} ranks, predicted over BUDGET",
                   "failed": f"skipped: the run at {arg} ranks failed"}[kind]
            rows.append("| " + " | ".join([wl, str(p)] + [""] * 13 + [why]) + " |")
    done = [p for p in nps if (wl, p) in runs]
    mrows.append(f"| {wl} | " + " | ".join(
        ("–" if runs[(wl, p)]["merge"] is None else f"{runs[(wl, p)]['merge']:.0f}") if (wl, p) in runs
        else "failed" if (wl, p) in fails else "skipped" if (wl, p) in skips else "" for p in nps) + " |")
    base = 16 if (wl, 16) in runs else (done[0] if done else None)
    if base is None:
        continue
    top = done[-1]
    b, t = runs[(wl, base)], runs[(wl, top)]
    def at(p):
        return f"{runs[(wl, p)]['tf']}" if (wl, p) in runs else "–"
    if top > base:
        slope = math.log(t["tf"] / b["tf"]) / math.log(top / base)
        same = "same" if b["shape"] == t["shape"] else "differs"
        if t["tf"] / b["tf"] <= 1.25:
            verdict = "near-flat"
        elif slope < 0.5:
            verdict = "grows slowly"
        else:
            verdict = "grows"
        summary.append(f"| {wl} | {'regular' if wl in regular else ''} | {at(16)} | {at(64)} | {at(256)} | "
                       f"{top} | {t['tf'] / b['tf']:.2f} | {slope:.2f} | {b['nodes']} → {t['nodes']} | {same} | "
                       f"{t['flat'] / b['flat']:.1f} | {verdict} |")
allok = all(r["rt"] == "ok" for r in runs.values())
nruns = len(runs)

heading = "## Merged trace bytes vs ranks"
section = f"""{heading}

Written by `bench/ranks.sh` on {date} (took {elapsed} s).
Machine: {nproc} cores, {cpu}, Linux {kernel}; load average {load0} at the start, {load} at the end.
MPI: {mpi}; ranks oversubscribed on the {nproc} cores, `MPIR_CVAR_POLLS_BEFORE_YIELD=1`. Built from: {commit}.

How measured: each workload runs at {", ".join(map(str, nps))} ranks with its default iterations and
problem size, recorded with `TRACEFOLD_MODE=both`, so the flat files (`rank-R.flat`, one per rank) and
the merged trace (`trace.tf`: every rank's folded trace merged over a binomial tree into one file at
`MPI_Finalize`, zstd-compressed sections) come from the same run. stencil2d, wavefront, alltoall and
butterfly lay the ranks out on a 2-D grid and stencil3d on a 3-D grid chosen by `MPI_Dims_create` from the
rank count (grid column), so which neighbours a rank has, and how many ranks share a role, change with P;
ring, persistent and fstencil are 1-D (periodic ring, periodic ring, open chain). A run predicted (from
the previous two) to take over {budget} s is skipped with the counts above it; TIMEOUT {timeout} s per
run. Columns, over all ranks: events; bytes of the flat files, summed; of the flat files through `zstd
-{zlevel}` each on its own, summed; of all flat files concatenated in rank order through one `zstd
-{zlevel}` (fairer to zstd: it sees the similarity between ranks, as the merge does); of `trace.tf`, and
per rank; the nodes (events and loops) `tracefold show` prints; flat/tf, zstd-per-file/tf,
zstd-all/tf = those bytes / `trace.tf` bytes; merge ms = the merge time rank 0 reports (`tracefold
stats`); run s = wall time of the traced `mpirun` (start-up, workload, merge, write). Lossless = `tracefold
dump --no-time DIR` (flat files) equals `tracefold unroll --no-time DIR/trace.tf` byte for byte:
{"all " + str(nruns) + " runs passed" if allok else "see the marked rows"}.

| workload | ranks | grid | events | flat B | flat + zstd -{zlevel} per file B | zstd -{zlevel} of all flat B | trace.tf B | trace.tf B/rank | nodes | flat/tf | zstd per file/tf | zstd all/tf | merge ms | run s | lossless |
|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
{chr(10).join(rows)}

Growth of `trace.tf` with the rank count, from 16 ranks (or the smallest count run) to the largest count
run: ratio of the bytes, and the exponent b of bytes ∝ P^b between the two (0 = flat, 1 = linear in P);
nodes of `tracefold show`; whether its text is the same at both counts once every number is replaced
(same loops, events, value-sequence and rank-list shapes); the flat bytes' ratio for comparison (they grow
linearly with P). near-flat = ratio ≤ 1.25.

| workload | pattern | trace.tf B at 16 | at 64 | at 256 | largest P | ratio largest/16 | b | nodes | `show` shape | flat ratio | verdict |
|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|
{chr(10).join(summary)}

Merge time at `MPI_Finalize` vs ranks (ms, as rank 0 reports it: from decoding its own folded trace to the
merged structure being ready, before the final zstd encode and write; it includes waiting for the other
ranks to reach `MPI_Finalize` and for each round's partner to send, and with P ranks busy-polling on
{nproc} cores that waiting, not the merging, dominates):

| workload | {" | ".join(map(str, nps))} |
|---|{"---:|" * len(nps)}
{chr(10).join(mrows)}
"""

update(results, heading, section)
print(f"ranks.sh: wrote {results}", file=sys.stderr)
print("\n".join(rows + [""] + summary + [""] + mrows), file=sys.stderr)
EOF
finish "some runs FAILED (see above)${failed:+; traces of failed round trips are kept in $failed}"
