#!/usr/bin/env bash
# run.sh — run the tracefold benchmarks against an existing build and record
# the figures in bench/RESULTS.md. Builds nothing itself.
#
# usage: bench/run.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (needs bench/bench_callcost,
#              src/recorder/libtracefold.so, src/cli/tracefold)
# environment (optional):
#   MPIRUN  launcher            [mpirun.mpich]
#   ITERS   iterations per rep  [15000]
#   REPS    reps per run        [15]   (callcost reports the median rep)
#   PAIRS   untraced/traced run pairs [6] (ordered U T, T U, U T, ... so slow
#           drift of the machine's load cancels; the median pair is reported)
#   MODE    recorder mode measured: compressed (folding, the default) or flat [compressed]
#   TIMING  TRACEFOLD_TIMING of the traced runs: none, stats, histogram or
#           path [path, the recorder's default] (bench/timing.sh compares
#           them all in one run)
#
# Recorder cost per call (MODE mode): bench_callcost runs untraced and traced
# (LD_PRELOAD=libtracefold.so, TRACEFOLD_MODE=$MODE, TRACEFOLD_TIMING=$TIMING,
# output in a temporary directory removed afterwards). Per pair: added ns per
# intercepted call = (traced - untraced ns/iter) / calls per iter; ratio =
# traced / untraced.
# Trace bytes/event = size of the trace / events counted by `tracefold
# summary` (whole run, warm-up and barriers included); the trace is the merged
# trace.tf in compressed mode (per-rank .tfc files only if the merge failed),
# the rank-R.flat files in flat mode.
#
# RESULTS.md is shared with other benchmarks: this script replaces only its
# own section ("## Recorder cost per call (MODE mode)", or "(MODE mode,
# TRACEFOLD_TIMING=TIMING)" with a TIMING other than path, up to the next "## "
# heading) and keeps every other section as it is (bench/results_section.py).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/run.sh BUILD_DIR}
build=$(cd "$build" && pwd)
bin=$build/bench/bench_callcost
lib=$build/src/recorder/libtracefold.so
cli=$build/src/cli/tracefold
for f in "$bin" "$lib" "$cli"; do
  [[ -x $f || -f $f ]] || { echo "run.sh: missing $f (build the project first)" >&2; exit 2; }
done
MPIRUN=${MPIRUN:-mpirun.mpich}
ITERS=${ITERS:-15000}
REPS=${REPS:-15}
PAIRS=${PAIRS:-6}
MODE=${MODE:-compressed}
case $MODE in compressed) ext=tfc ;; flat) ext=flat ;; *) echo "run.sh: MODE must be compressed or flat" >&2; exit 2 ;; esac
TIMING=${TIMING:-path}
case $TIMING in none | stats | histogram | path) ;; *) echo "run.sh: TIMING must be none, stats, histogram or path" >&2; exit 2 ;; esac
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* in the caller's environment would stop or alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS TRACEFOLD_VOLUME

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/runs.txt
: >"$log"

run_untraced() { # $1 = pair index
  "$MPIRUN" -n 2 "$bin" "$ITERS" "$REPS" >"$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
  sed "s/^/pair $1 untraced /" "$tmp/out" >>"$log"
}

run_traced() { # $1 = pair index
  local t=$tmp/trace
  rm -rf "$t"
  "$MPIRUN" -n 2 env LD_PRELOAD="$lib" TRACEFOLD_MODE="$MODE" TRACEFOLD_TIMING="$TIMING" TRACEFOLD_OUTPUT="$t" "$bin" "$ITERS" "$REPS" \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
  sed "s/^/pair $1 traced /" "$tmp/out" >>"$log"
  local bytes events mpi
  # compressed mode: all ranks merged into one trace.tf at MPI_Finalize; flat mode: one file per rank
  if [[ $ext == tfc && -f $t/trace.tf ]]; then bytes=$(wc -c <"$t/trace.tf"); else bytes=$(cat "$t"/rank-*."$ext" | wc -c); fi
  "$cli" summary "$t" >"$tmp/summary"
  events=$(sed -n 's/^trace: .* ranks, \([0-9]*\) events$/\1/p' "$tmp/summary")
  mpi=$(sed -n 's/^MPI: //p' "$tmp/summary" | tr -s ' \t' ' ')
  [[ -n $events ]] || { echo "run.sh: cannot read the event count from tracefold summary" >&2; cat "$tmp/summary" >&2; exit 1; }
  echo "pair $1 trace $bytes $events" >>"$log"
  echo "$mpi" >"$tmp/mpi"
  rm -rf "$t"
}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load0%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
  echo "run.sh: warning: load average $load0 exceeds $(nproc) cores; expect noisy figures" >&2
fi
echo "run.sh: callcost, $PAIRS pairs of untraced/traced runs, $ITERS iterations x $REPS reps each" >&2
for ((p = 1; p <= PAIRS; p++)); do
  if ((p % 2)); then run_untraced "$p"; run_traced "$p"; else run_traced "$p"; run_untraced "$p"; fi
  echo "  pair $p done ($(($(date +%s) - start)) s)" >&2
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# imports results_section.py from here (and leaves no __pycache__ in the tree)
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$here/RESULTS.md" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$cpu" "$(cat "$tmp/mpi")" \
  "$ITERS" "$REPS" "$PAIRS" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$MODE" "$TIMING" <<'EOF'
import re, statistics, sys

from results_section import update

log, results, date, nproc, cpu, mpi, iters, reps, pairs, kernel, load0, load, mode, timing = sys.argv[1:]
runs = {}  # (pair, kind) -> {"p2p": median ns/iter, "p2p_min": fastest rep, ...}
calls = {}  # bench -> intercepted calls per iteration
trace = []  # (bytes, events)
for line in open(log):
    w = line.split()
    if w[2] == "trace":
        trace.append((int(w[3]), int(w[4])))
        continue
    if w[3].endswith("_ns_per_iter"):
        r = runs.setdefault((int(w[1]), w[2]), {})
        r[w[3][: -len("_ns_per_iter")]] = float(w[4])
        if w[5:6] == ["calls_per_iter"]:
            calls[w[3].split("_")[0]] = int(w[6])

med = statistics.median
names = {"p2p": "Irecv+Isend+Waitall, 8 B, 2 ranks", "allreduce": "Allreduce, 8 B (1 double), 2 ranks"}
bpe = med(b / e for b, e in trace)
ps = sorted(p for (p, k) in runs if k == "untraced" and (p, "traced") in runs)


def compare(key, calls):
    """medians over pairs: untraced, traced, added ns per call, ratio; and the per-pair lists"""
    u = [runs[(p, "untraced")][key] for p in ps]
    t = [runs[(p, "traced")][key] for p in ps]
    added = [(b - a) / calls for a, b in zip(u, t)]
    ratio = [b / a for a, b in zip(u, t)]
    return med(u), med(t), med(added), med(ratio), u, t, added


rows, rows_min, detail = [], [], []
for bench in ("p2p", "allreduce"):
    n = calls[bench]
    mu, mt, ma, mr, u, t, added = compare(bench, n)
    rows.append(f"| {bench}: {names[bench]} | {mu:.0f} | {mt:.0f} | {ma:.0f} | {mr:.2f} | {bpe:.3g} |")
    detail.append(f"- {bench} ({n} intercepted call{'s' if n > 1 else ''}/iter), median rep, per pair "
                  f"untraced→traced ns/iter: " + ", ".join(f"{a:.0f}→{b:.0f}" for a, b in zip(u, t))
                  + "; added ns/call: " + ", ".join(f"{x:.0f}" for x in added))
    print(f"{bench}: untraced {mu:.0f} ns/iter, traced {mt:.0f} ns/iter, "
          f"added {ma:.0f} ns per intercepted call, ratio {mr:.2f}", file=sys.stderr)
    mu, mt, ma, mr, *_ = compare(bench + "_min", n)
    rows_min.append(f"| {bench} (fastest rep) | {mu:.0f} | {mt:.0f} | {ma:.0f} | {mr:.2f} |")
    print(f"{bench} (fastest rep): untraced {mu:.0f}, traced {mt:.0f}, added {ma:.0f} ns/call, ratio {mr:.2f}",
          file=sys.stderr)
print(f"{mode} trace: {bpe:.3g} bytes/event ({trace[0][1]} events, {trace[0][0]} bytes per traced run)", file=sys.stderr)

heading = f"## Recorder cost per call ({mode} mode)" if timing == "path" else \
    f"## Recorder cost per call ({mode} mode, TRACEFOLD_TIMING={timing})"
section = f"""{heading}

Written by `bench/run.sh` on {date}.
Machine: {nproc} cores, {cpu}, Linux {kernel}.
Load average (1/5/15 min): {load0} at the start, {load} at the end. The 2 ranks busy-poll, so anything
else running on the machine competes with them and shows up as noise.
MPI: {mpi}; `MPIR_CVAR_POLLS_BEFORE_YIELD=1`.

How measured: `bench_callcost` (bench/callcost.c) on 2 ranks times {iters} iterations per repetition with
`clock_gettime(CLOCK_MONOTONIC)`, {reps} repetitions per benchmark after a warm-up, and reports the median
repetition. It runs {pairs} times untraced and {pairs} times traced (`LD_PRELOAD=libtracefold.so
TRACEFOLD_MODE={mode} TRACEFOLD_TIMING={timing}`), alternating U T, T U, ... within the same invocation. Added ns per intercepted call =
(traced − untraced ns/iter) / intercepted calls per iteration, median over pairs; ratio = traced / untraced,
median over pairs; the ns/iter columns are medians over runs. Trace bytes/event = size of the trace (the
merged `trace.tf` in compressed mode, all `rank-R.flat` files in flat mode) / events counted by `tracefold
summary` (whole run, including warm-up and barriers; a merged file's constant header dominates it).

| benchmark | untraced ns/iter | traced ns/iter | added ns per intercepted call | ratio | trace bytes/event |
|---|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

The same from the fastest repetition of each run instead of the median one (a lower bound, less sensitive
to other processes on the machine):

| benchmark | untraced ns/iter | traced ns/iter | added ns per intercepted call | ratio |
|---|---:|---:|---:|---:|
{chr(10).join(rows_min)}

Per pair:
{chr(10).join(detail)}
"""

update(results, heading, section)
print(f"run.sh: wrote {results}", file=sys.stderr)
EOF
echo "run.sh: done in $(($(date +%s) - start)) s" >&2
