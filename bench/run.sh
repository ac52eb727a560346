#!/usr/bin/env bash
# run.sh — run the tracefold benchmarks against an existing build and record
# the figures in bench/RESULTS.md. Builds nothing itself.
#
# usage: bench/run.sh BUILD_DIR
#        bench/run.sh --fortran BUILD_DIR[=LIB[,LIB]...] [BUILD_DIR[=LIB[,LIB]...]]...
#   BUILD_DIR  a configured and built tree (needs bench/bench_callcost,
#              src/recorder/libtracefold.so, src/cli/tracefold)
#   --fortran  Fortran vs C per-call cost instead, in the section "## Fortran
#              vs C per-call cost" (fortran_vs_c below; ROUNDS, ITERS, REPS)
# environment (optional):
#   MPIRUN  launcher            [mpirun.mpich]
#   ITERS   iterations per rep  [15000]
#   REPS    reps per run        [15]   (callcost reports the median rep)
#   PAIRS   untraced/traced run pairs [6] (ordered U T, T U, U T, ... so slow
#           drift of the machine's load cancels; the median pair is reported)
#   NPS     rank counts measured, each in every pair [1 2] (1 rank: the p2p
#           loop is a self-exchange whose untraced cost is tiny, so the
#           recorder's own cost is what shows)
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

# Fortran vs C per-call cost (bench/run.sh --fortran BUILD_DIR[=LIB[,LIB]...]...).
# For each build (each with its MPI; the launcher is read from its
# CMakeCache.txt), the same loops through C (bench_callcost) and through the
# Fortran bindings (bench_callcost_fh: mpif.h, _fmod: use mpi, _f08: use
# mpi_f08; callcost_f.f90) run untraced and traced (LD_PRELOAD=libtracefold.so,
# TRACEFOLD_MODE=compressed) and, with =LIB,..., traced by each of those
# libraries too (other builds' libtracefold.so for the same MPI: one configured
# with -DTF_FORTRAN_ENTRY_POINTS=OFF, an older commit's). ROUNDS rounds [5]; in
# each, every program and variant runs once, the programs in rotated order and
# untraced/traced alternating, so that drift in the machine's load hits all
# alike. Each run times ITERS iterations [5000] REPS times [9] and reports its
# median and fastest repetition. The figures: see the section's text below.
fortran_vs_c() {
  local ROUNDS=${ROUNDS:-5} ITERS=${ITERS:-5000} REPS=${REPS:-9}
  export MPIR_CVAR_POLLS_BEFORE_YIELD=1
  unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS TRACEFOLD_VOLUME
  local tmp log start load0 arg b lib mpiexec label r i p v order k=0 c
  local progs=(bench_callcost bench_callcost_fh bench_callcost_fmod bench_callcost_f08)
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-f.XXXXXX")
  fvc_tmp=$tmp # global: the trap runs after this function has returned
  trap 'rm -rf "$fvc_tmp"' EXIT
  log=$tmp/runs.txt
  : >"$log"
  start=$(date +%s)
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  local labels=()
  for arg in "$@"; do
    k=$((k + 1))
    b=$(cd "${arg%%=*}" && pwd)
    lib=$b/src/recorder/libtracefold.so
    local cmps=()
    [[ $arg == *=* ]] && IFS=, read -r -a cmps <<<"${arg#*=}"
    for p in "${progs[@]}"; do
      [[ -x $b/bench/$p ]] || { echo "run.sh: missing $b/bench/$p (build the project first)" >&2; exit 2; }
    done
    for p in "$lib" "$b/src/cli/tracefold" ${cmps[@]+"${cmps[@]}"}; do
      [[ -f $p ]] || { echo "run.sh: missing $p" >&2; exit 2; }
    done
    mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$b/CMakeCache.txt")
    local launch=("$mpiexec")
    [[ $mpiexec == *openmpi* ]] && launch+=(--allow-run-as-root --oversubscribe)
    label=""
    echo "run.sh: $b: $ROUNDS rounds of C, mpif.h, use mpi, use mpi_f08, untraced and traced${cmps[*]+ and traced by ${cmps[*]}}," \
      "$ITERS iterations x $REPS reps" >&2
    for ((r = 1; r <= ROUNDS; r++)); do
      for ((i = 0; i < 4; i++)); do
        p=${progs[$(((i + r) % 4))]}
        order="untraced traced"
        for ((c = 0; c < ${#cmps[@]}; c++)); do order+=" compare$c"; done
        ((r % 2)) || order=$(tr ' ' '\n' <<<"$order" | tac | tr '\n' ' ')
        for v in $order; do
          local envs=()
          case $v in
            traced) envs=(env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/trace") ;;
            compare*) envs=(env LD_PRELOAD="${cmps[${v#compare}]}" TRACEFOLD_OUTPUT="$tmp/trace") ;;
          esac
          local try
          for try in 1 2 3; do # a run killed from outside (a shared machine) is run again
            rm -rf "$tmp/trace"
            "${launch[@]}" -n 2 ${envs[@]+"${envs[@]}"} "$b/bench/$p" "$ITERS" "$REPS" >"$tmp/out" 2>"$tmp/err" && break
            ((try < 3)) || { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
            echo "run.sh: $p ($v) failed, once more" >&2
          done
          if [[ $v == traced && -z $label ]]; then # the MPI library, as the trace names it
            label=$("$b/src/cli/tracefold" summary "$tmp/trace" | sed -n 's/^MPI: //p' | tr -s ' \t' ' ' | cut -d, -f1)
          fi
          grep '_ns_per_iter' "$tmp/out" | sed "s|^|$k $r $p $v |" >>"$log"
        done
      done
      echo "  round $r done ($(($(date +%s) - start)) s)" >&2
    done
    labels+=("${label:-$(basename "$mpiexec")}")
  done
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  # imports results_section.py from here (and leaves no __pycache__ in the tree)
  PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$here/RESULTS.md" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$(nproc)" "$cpu" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$ROUNDS" "$ITERS" "$REPS" \
    "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')" "$@" -- "${labels[@]}" <<'PYEOF'
import statistics, sys

from results_section import update

log, results, date, nproc, cpu, kernel, load0, load, rounds, iters, reps, commit, *rest = sys.argv[1:]
sep = rest.index("--")
builds, labels = rest[:sep], rest[sep + 1:]
med = statistics.median
runs = {}  # (build, round, program, variant) -> {"p2p": median rep ns/iter, "p2p_min": fastest rep, ...}
calls = {}  # bench -> calls per iteration
for line in open(log):
    b, r, prog, var, key, val, *more = line.split()
    runs.setdefault((int(b), int(r), prog, var), {})[key[: -len("_ns_per_iter")]] = float(val)
    if more[:1] == ["calls_per_iter"]:
        calls[key.split("_")[0]] = int(more[1])
names = {"bench_callcost": "C", "bench_callcost_fh": "Fortran, `mpif.h`", "bench_callcost_fmod": "Fortran, `use mpi`",
         "bench_callcost_f08": "Fortran, `use mpi_f08`"}
benches = {"p2p": "p2p: Irecv+Isend+Waitall", "allreduce": "allreduce"}
out = []
for bi, label in enumerate(labels, 1):
    cmps = builds[bi - 1].split("=", 1)[1].split(",") if "=" in builds[bi - 1] else []
    rs = sorted({r for (b, r, _, _) in runs if b == bi})
    head = "| binding | benchmark | untraced ns/iter | traced ns/iter | added ns/call | added ns/call, fastest reps | vs C |"
    rule = "|---|---|---:|---:|---:|---:|---:|"
    for c in range(len(cmps)):
        head += f" LIB {c + 1}: added ns/call |"
        rule += "---:|"
    out += [f"### {label}", "", head, rule]
    for bench, bname in benches.items():
        n = calls[bench]

        def added(prog, var="traced"):
            return [(runs[(bi, r, prog, var)][bench] - runs[(bi, r, prog, "untraced")][bench]) / n for r in rs]

        c_added = added("bench_callcost")
        for prog, pname in names.items():
            u = med(runs[(bi, r, prog, "untraced")][bench] for r in rs)
            t = med(runs[(bi, r, prog, "traced")][bench] for r in rs)
            a = added(prog)
            fast = (min(runs[(bi, r, prog, "traced")][bench + "_min"] for r in rs)
                    - min(runs[(bi, r, prog, "untraced")][bench + "_min"] for r in rs)) / n
            vs = med(x / y for x, y in zip(a, c_added)) if prog != "bench_callcost" else 1.0
            row = f"| {pname} | {bname} | {u:.0f} | {t:.0f} | {med(a):.0f} | {fast:.0f} | {vs:.2f} |"
            for c in range(len(cmps)):
                row += f" {med(added(prog, f'compare{c}')):.0f} |"
            out.append(row)
            print(f"{label}: {pname} {bench}: added {med(a):.0f} ns/call (fastest reps {fast:.0f}), vs C {vs:.2f}",
                  file=sys.stderr)
    out.append("")
    out += [f"LIB {c + 1}: `{x}`." for c, x in enumerate(cmps)] + ([""] if cmps else [])
heading = "## Fortran vs C per-call cost"
section = f"""{heading}

Written by `bench/run.sh --fortran` on {date}, at {commit}.
Machine: {nproc} cores, {cpu}, Linux {kernel}. Load average (1/5/15 min): {load0} at the start, {load} at the
end. `MPIR_CVAR_POLLS_BEFORE_YIELD=1`.

How measured: the loops of `bench_callcost` (bench/callcost.c: Irecv+Isend+Waitall of one double with the
partner, 3 calls per iteration; Allreduce of one double, 1 call) and the same loops in Fortran
(bench/callcost_f.f90, compiled with `include 'mpif.h'`, `use mpi` and `use mpi_f08`), on 2 ranks, {iters}
iterations per repetition, {reps} repetitions per run. {rounds} rounds; in each, every program runs untraced and
traced (`LD_PRELOAD=libtracefold.so`, compressed mode, timing `path`), the programs in rotated order and
untraced/traced alternating, so that drift in the machine's load hits all alike. Added ns/call = (traced −
untraced ns/iter) / calls per iteration, median over rounds; "fastest reps" = (fastest traced repetition −
fastest untraced repetition, over all rounds) / calls, a lower bound less sensitive to other processes; vs C =
the binding's added ns/call / C's, median over rounds (the target: at most 1.20). The ns/iter columns are
medians over rounds. Untraced, a Fortran call costs what the MPI library's binding adds to the C call; traced,
the recorder's own Fortran entry points take the binding's place (they convert the arguments and call the C
`PMPI_` function), so Fortran's traced figures come close to C's.

{chr(10).join(out)}"""
update(results, heading, section)
print(f"run.sh: wrote {results}", file=sys.stderr)
PYEOF
  echo "run.sh: done in $(($(date +%s) - start)) s" >&2
}
if [[ ${1:-} == --fortran ]]; then
  shift
  [[ $# -gt 0 ]] || { echo "usage: bench/run.sh --fortran BUILD_DIR[=LIB[,LIB]...]..." >&2; exit 2; }
  fortran_vs_c "$@"
  exit 0
fi

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

run_untraced() { # $1 = pair index, $2 = ranks
  "$MPIRUN" -n "$2" "$bin" "$ITERS" "$REPS" >"$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
  sed "s/^/pair $1:$2 untraced /" "$tmp/out" >>"$log"
}

run_traced() { # $1 = pair index, $2 = ranks
  local t=$tmp/trace
  rm -rf "$t"
  "$MPIRUN" -n "$2" env LD_PRELOAD="$lib" TRACEFOLD_MODE="$MODE" TRACEFOLD_TIMING="$TIMING" TRACEFOLD_OUTPUT="$t" "$bin" "$ITERS" "$REPS" \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err" >&2; exit 1; }
  sed "s/^/pair $1:$2 traced /" "$tmp/out" >>"$log"
  local bytes events mpi
  # compressed mode: all ranks merged into one trace.tf at MPI_Finalize; flat mode: one file per rank
  if [[ $ext == tfc && -f $t/trace.tf ]]; then bytes=$(wc -c <"$t/trace.tf"); else bytes=$(cat "$t"/rank-*."$ext" | wc -c); fi
  "$cli" summary "$t" >"$tmp/summary"
  events=$(sed -n 's/^trace: .* ranks, \([0-9]*\) events$/\1/p' "$tmp/summary")
  mpi=$(sed -n 's/^MPI: //p' "$tmp/summary" | tr -s ' \t' ' ')
  [[ -n $events ]] || { echo "run.sh: cannot read the event count from tracefold summary" >&2; cat "$tmp/summary" >&2; exit 1; }
  echo "pair $1:$2 trace $bytes $events" >>"$log"
  echo "$mpi" >"$tmp/mpi"
  rm -rf "$t"
}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load0%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
  echo "run.sh: warning: load average $load0 exceeds $(nproc) cores; expect noisy figures" >&2
fi
NPS=${NPS:-1 2}
echo "run.sh: callcost at $NPS ranks, $PAIRS pairs of untraced/traced runs each, $ITERS iterations x $REPS reps each" >&2
for ((p = 1; p <= PAIRS; p++)); do
  for np in $NPS; do
    if ((p % 2)); then run_untraced "$p" "$np"; run_traced "$p" "$np"; else run_traced "$p" "$np"; run_untraced "$p" "$np"; fi
  done
  echo "  pair $p done ($(($(date +%s) - start)) s)" >&2
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
# imports results_section.py from here (and leaves no __pycache__ in the tree)
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$here/RESULTS.md" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$cpu" "$(cat "$tmp/mpi")" \
  "$ITERS" "$REPS" "$PAIRS" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$MODE" "$TIMING" <<'EOF'
import re, statistics, sys

from results_section import update

log, results, date, nproc, cpu, mpi, iters, reps, pairs, kernel, load0, load, mode, timing = sys.argv[1:]
runs = {}  # (pair, ranks, kind) -> {"p2p": median ns/iter, "p2p_min": fastest rep, ...}
calls = {}  # bench -> intercepted calls per iteration
trace = {}  # ranks -> [(bytes, events)]
for line in open(log):
    w = line.split()
    pair, np_ = (int(x) for x in w[1].split(":"))
    if w[2] == "trace":
        trace.setdefault(np_, []).append((int(w[3]), int(w[4])))
        continue
    if w[3].endswith("_ns_per_iter"):
        r = runs.setdefault((pair, np_, w[2]), {})
        r[w[3][: -len("_ns_per_iter")]] = float(w[4])
        if w[5:6] == ["calls_per_iter"]:
            calls[w[3].split("_")[0]] = int(w[6])

med = statistics.median
names = {"p2p": "Irecv+Isend+Waitall, 8 B", "allreduce": "Allreduce, 8 B (1 double)"}
nps = sorted(trace)


def compare(key, calls, np_):
    """medians over pairs: untraced, traced, added ns per call, ratio; and the per-pair lists"""
    ps = sorted(p for (p, n, k) in runs if n == np_ and k == "untraced" and (p, n, "traced") in runs)
    u = [runs[(p, np_, "untraced")][key] for p in ps]
    t = [runs[(p, np_, "traced")][key] for p in ps]
    added = [(b - a) / calls for a, b in zip(u, t)]
    ratio = [b / a for a, b in zip(u, t)]
    return med(u), med(t), med(added), med(ratio), u, t, added


rows, rows_min, detail = [], [], []
for np_ in nps:
    bpe = med(b / e for b, e in trace[np_])
    where = "1 rank" if np_ == 1 else f"{np_} ranks"
    for bench in ("p2p", "allreduce"):
        n = calls[bench]
        bname = "p2p: Irecv+Isend+Waitall with itself, 8 B" if bench == "p2p" and np_ == 1 else f"{bench}: {names[bench]}"
        mu, mt, ma, mr, u, t, added = compare(bench, n, np_)
        rows.append(f"| {bname}, {where} | {mu:.0f} | {mt:.0f} | {ma:.0f} | {mr:.2f} | {bpe:.3g} |")
        detail.append(f"- {bench}, {where} ({n} intercepted call{'s' if n > 1 else ''}/iter), median rep, per pair "
                      f"untraced→traced ns/iter: " + ", ".join(f"{a:.0f}→{b:.0f}" for a, b in zip(u, t))
                      + "; added ns/call: " + ", ".join(f"{x:.0f}" for x in added))
        print(f"{bench}, {where}: untraced {mu:.0f} ns/iter, traced {mt:.0f} ns/iter, "
              f"added {ma:.0f} ns per intercepted call, ratio {mr:.2f}", file=sys.stderr)
        mu, mt, ma, mr, *_ = compare(bench + "_min", n, np_)
        rows_min.append(f"| {bench}, {where} (fastest rep) | {mu:.0f} | {mt:.0f} | {ma:.0f} | {mr:.2f} |")
        print(f"{bench}, {where} (fastest rep): untraced {mu:.0f}, traced {mt:.0f}, added {ma:.0f} ns/call, "
              f"ratio {mr:.2f}", file=sys.stderr)

heading = f"## Recorder cost per call ({mode} mode)" if timing == "path" else \
    f"## Recorder cost per call ({mode} mode, TRACEFOLD_TIMING={timing})"
section = f"""{heading}

Written by `bench/run.sh` on {date}.
Machine: {nproc} cores, {cpu}, Linux {kernel}.
Load average (1/5/15 min): {load0} at the start, {load} at the end. The ranks busy-poll, so anything
else running on the machine competes with them and shows up as noise.
MPI: {mpi}; `MPIR_CVAR_POLLS_BEFORE_YIELD=1`.

How measured: `bench_callcost` (bench/callcost.c) on {' and '.join(map(str, nps))} rank(s) (on 1 rank the p2p loop
exchanges with itself: its untraced cost is tiny, so the recorder's own cost is what shows) times {iters} iterations per repetition with
`clock_gettime(CLOCK_MONOTONIC)`, {reps} repetitions per benchmark after a warm-up, and reports the median
repetition. At each rank count it runs {pairs} times untraced and {pairs} times traced (`LD_PRELOAD=libtracefold.so
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
