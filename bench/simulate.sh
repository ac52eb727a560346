#!/usr/bin/env bash
# simulate.sh — SimGrid simulation of traces: accuracy against this machine,
# and speed at 256 and 1,024 ranks against SimGrid's own replay of unrolled
# time-independent action files. Records the figures in bench/RESULTS.md.
# Builds nothing.
#
# usage: bench/simulate.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree with SimGrid (src/replay/tracefold-sim,
#              src/cli/tracefold, src/recorder/libtracefold.so, bench/bench_pingpong,
#              workloads/wl_<name>)
# environment (optional):
#   MPIRUN       launcher                                          [mpirun.mpich]
#   WORKLOADS    workloads of the accuracy part   [every C workload and fstencil, and
#                timed_ranks and timed_stencil: wl_timed -m ranks -i 100 -s 500 and
#                -m stencil -i 200 -s 500 (their own arguments)]
#   VALID_ARGS   their arguments                                   [-i 2000]
#   REPS         recordings per workload; medians reported          [3]
#   SCALE_RANKS  rank counts of the speed part ("": not run; the section keeps
#                the speed table of the previous run)                [256 1024]
#   SCALE_ARGS   stencil2d's arguments there                       [-i 100]
#   SCALE_TRACES a directory with s<P>/trace.tf already recorded (recording
#                1,024 ranks on 2 cores takes minutes): reused if there
#   RESULTS      the file to update                                [bench/RESULTS.md]
#
# 1. This machine as a platform. bench_pingpong (2 ranks, MPI_Send/Recv,
#    fastest of 5 batches) gives the one-way time of a 1-byte message
#    (latency) and the bandwidth between 1 B and 4 MiB messages; the platform
#    is 2 nodes of one core each (the 2 cores), linked with that latency and
#    bandwidth (tracefold simulate --nodes 2 --latency L --bandwidth B, no
#    calibration factors), node speed = the recording host's (compute
#    deltas are charged as recorded).
# 2. Accuracy. Each workload runs traced at 2 ranks (one per core: no
#    oversubscription; TRACEFOLD_MODE=both, so the flat files give each
#    rank's exact compute), REPS times; each trace is simulated on that
#    platform with --compute mean and --compute histogram. Error =
#    (simulated time - the trace's recorded wall time) / recorded, median
#    over REPS; also against the untraced run's wall time (the workload
#    with bench/walltime.c's shim preloaded, just before the traced run:
#    MPI_Init to MPI_Finalize of the last rank), which the recorder's own
#    work does not inflate; rank compute error = the worst rank's
#    |simulated compute - exact compute| / exact compute. What the error is made of: the
#    simulation's compute per rank is the trace's, so the difference lies in
#    the MPI calls: per function, the recorded durations (the trace's, all
#    ranks) against the simulated time in those calls (--compute mean, the
#    median run).
# 3. Speed. stencil2d is traced at each of SCALE_RANKS ranks; the trace is
#    simulated by tracefold simulate (wall time of the whole command) and
#    exported with tracefold export smpi, whose unrolled action files
#    smpirun -replay simulates on the same platform (wall time of smpirun);
#    both simulated times are given, and the bytes each reads.
set -uo pipefail
prog=simulate.sh
build=${1:?usage: bench/simulate.sh BUILD_DIR}
MPIRUN=${MPIRUN:-mpirun.mpich}
WORKLOADS=${WORKLOADS:-"stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads timed fstencil timed_ranks timed_stencil"}
VALID_ARGS=${VALID_ARGS:-"-i 2000"}
REPS=${REPS:-3}
SCALE_RANKS=${SCALE_RANKS-"256 1024"}
SCALE_ARGS=${SCALE_ARGS:-"-i 100"}
SCALE_TRACES=${SCALE_TRACES:-}
here=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so
cli=$build/src/cli/tracefold
pingpong=$build/bench/bench_pingpong
checker=$build/tests/check_timing
shim=$build/bench/libtf_walltime.so
for f in "$lib" "$cli" "$pingpong" "$checker" "$shim" "$build/src/replay/tracefold-sim"; do
  [ -f "$f" ] || { echo "$prog: missing $f (build with SimGrid installed)" >&2; exit 1; }
done
smpirun=$(command -v smpirun) || { echo "$prog: smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-simulate.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "fail"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f\n", a - b }'; }

# ---- 1. this machine
$MPIRUN -np 2 "$pingpong" >"$work/pingpong.txt" || { echo "$prog: bench_pingpong failed" >&2; exit 1; }
lat=$(awk '$1 == "latency" { print $2 }' "$work/pingpong.txt")
bw=$(awk '$1 == "bandwidth" { print $2 }' "$work/pingpong.txt")
echo "$prog: this machine: latency $lat s, bandwidth $bw B/s"
platform=(--nodes 2 --latency "$lat" --bandwidth "${bw}Bps")

# ---- 2. accuracy at 2 ranks
: >"$work/accuracy.tsv"
: >"$work/mpi.tsv"
for wl in $WORKLOADS; do
  case $wl in
    timed_ranks) cmd=("$build/workloads/wl_timed" -m ranks -i 100 -s 500) ;;
    timed_stencil) cmd=("$build/workloads/wl_timed" -m stencil -i 200 -s 500) ;;
    *) read -r -a cmd <<<"$build/workloads/wl_$wl $VALID_ARGS" ;;
  esac
  [ -x "${cmd[0]}" ] || continue
  for ((rep = 0; rep < REPS; rep++)); do
    t=$work/$wl.$rep
    untraced=$(timeout 300 $MPIRUN -np 2 env LD_PRELOAD="$shim" "${cmd[@]}" 2>&1 >/dev/null |
      awk '/^walltime: / { print $2; found = 1 } END { if (!found) print 0 }')
    timeout 300 $MPIRUN -np 2 env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$t" "${cmd[@]}" >/dev/null 2>&1 ||
      { echo "$prog: $wl: the traced run failed" >&2; continue; }
    "$checker" ranks "$t/trace.tf" "$t" | awk '$1 == "rank" { sub(/exact=/, "", $4); print $2, $4 }' >"$t.exact"
    for mode in mean histogram; do
      "$cli" simulate "${platform[@]}" --compute $mode --quiet --keep "$t.$mode" "$t" >/dev/null 2>"$t.$mode.err" ||
        { echo "$prog: $wl: simulate --compute $mode failed: $(tail -1 "$t.$mode.err")" >&2; continue; }
      awk -v wl="$wl" -v mode="$mode" -v u="$untraced" 'NR == FNR { e[$1] = $2; next }
        $1 == "time_s" { s = $2 } $1 == "recorded_s" { r = $2 }
        $1 == "rank" && ($2 in e) && e[$2] > 0 { d = 100 * ($4 - e[$2]) / e[$2]; if (d < 0) d = -d; if (d > w) w = d }
        END { if (r > 0) printf "%s\t%s\t%.6f\t%.6f\t%.2f\t%.4f\t%.6f\t%.2f\n", wl, mode, r, s, 100 * (s - r) / r, w, u,
                                (u > 0 ? 100 * (s - u) / u : 0) }' \
        "$t.exact" "$t.$mode/report" >>"$work/accuracy.tsv"
      [ $mode = mean ] && awk -v wl="$wl" -v rep="$rep" '$1 == "fn" && NF >= 6 { printf "%s\t%s\t%s\t%s\t%s\t%s\n", wl, rep, $2, $3, $6, $5 }' \
        "$t.$mode/report" >>"$work/mpi.tsv"
    done
    rm -rf "$t" "$t".*
  done
  echo "$prog: $wl: $(awk -v wl="$wl" '$1 == wl && $2 == "mean" { print $5 }' "$work/accuracy.tsv" | tr '\n' ' ')% (mean)"
done

# ---- 3. speed at scale: tracefold simulate vs smpirun -replay of the export
: >"$work/scale.tsv"
for np in $SCALE_RANKS; do
  trace=$work/s$np
  if [ -n "$SCALE_TRACES" ] && [ -f "$SCALE_TRACES/s$np/trace.tf" ]; then
    trace=$SCALE_TRACES/s$np
  else
    # shellcheck disable=SC2086
    timeout 3600 $MPIRUN -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$trace" "$build/workloads/wl_stencil2d" \
      $SCALE_ARGS >/dev/null 2>"$work/s$np.err" || { echo "$prog: stencil2d at $np ranks failed" >&2; continue; }
  fi
  events=$("$cli" stats "$trace" | awk '$1 == "events:" { print $2 }')
  tbytes=$(stat -c %s "$trace/trace.tf")
  ours=() theirs=()
  for ((rep = 0; rep < REPS; rep++)); do
    t0=$(now)
    "$cli" simulate --compute mean --quiet --keep "$work/sim$np" "$trace" >"$work/sim$np.log" 2>&1 ||
      { echo "$prog: simulate at $np ranks failed: $(tail -2 "$work/sim$np.log")" >&2; continue 2; }
    ours+=("$(since "$t0")")
  done
  sim_s=$(awk '$1 == "time_s" { print $2 }' "$work/sim$np/report")
  t0=$(now)
  "$cli" export smpi --compute mean "$trace" "$work/ti$np" 2>"$work/ti$np.err" ||
    { echo "$prog: export at $np ranks failed: $(tail -1 "$work/ti$np.err")" >&2; continue; }
  export_s=$(since "$t0")
  tibytes=$(du -sb "$work/ti$np" | awk '{ print $1 }')
  for ((rep = 0; rep < REPS; rep++)); do
    t0=$(now)
    "$smpirun" -np "$np" -platform "$work/sim$np/platform.xml" -hostfile "$work/sim$np/hostfile" \
      --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 -replay "$work/ti$np/index.txt" >"$work/ti$np.log" 2>&1 ||
      { echo "$prog: smpirun -replay at $np ranks failed: $(tail -2 "$work/ti$np.log")" >&2; continue 2; }
    theirs+=("$(since "$t0")")
  done
  ti_s=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$work/ti$np.log" | tail -1)
  o=$(printf '%s\n' "${ours[@]}" | median)
  s=$(printf '%s\n' "${theirs[@]}" | median)
  printf "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%s\t%s\n" "$np" "$events" "$tbytes" "$tibytes" "$o" "$export_s" "$s" \
    "$sim_s" "$ti_s" >>"$work/scale.tsv"
  echo "$prog: $np ranks: tracefold simulate $o s, smpirun -replay $s s (+ export $export_s s)"
  rm -rf "$work/ti$np"
done

# ---- RESULTS.md
PYTHONPATH=$here python3 - "$RESULTS" "$work" "$lat" "$bw" "$source" "$(($(date +%s) - start))" "$REPS" "$VALID_ARGS" "$SCALE_ARGS" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'EOF'
import statistics, sys
from results_section import update
results, work, lat, bw, source, secs, reps, vargs, sargs, load0, load1 = sys.argv[1:]
acc, rerr, untr = {}, {}, {}
for line in open(work + "/accuracy.tsv"):
    wl, mode, rec, sim, err, re, unt, uerr = line.rstrip("\n").split("\t")
    acc.setdefault(wl, {}).setdefault(mode, []).append((float(rec), float(sim), float(err)))
    rerr.setdefault(wl, {}).setdefault(mode, []).append(float(re))
    if mode == "mean":
        untr.setdefault(wl, []).append((float(unt), float(uerr)))
mpi = {}
for line in open(work + "/mpi.tsv"):
    wl, rep, fn, calls, rec, sim = line.rstrip("\n").split("\t")
    mpi.setdefault(wl, {}).setdefault(int(rep), []).append((fn, int(calls), float(rec), float(sim)))
out = ["## Simulation in SimGrid: accuracy on this machine, speed at scale", "",
       f"bench/simulate.sh at {source} ({secs} s, {reps} recordings per workload, medians). "
       "Rerun it to refresh.", "",
       f"**This machine as a platform**: bench_pingpong (MPICH, 2 ranks, MPI_Send/Recv, fastest of 5 batches) "
       f"measured a one-way latency of {float(lat) * 1e6:.3f} us for 1 byte and a bandwidth of "
       f"{float(bw) / 1e9:.2f} GB/s between 1 B and 4 MiB; the platform is 2 one-core nodes on such a link "
       "(`tracefold simulate --nodes 2 --latency L --bandwidth B`, no calibration factors), at the "
       "recording host's speed.", "",
       f"**Accuracy** (2 ranks, one per core, `{vargs}`; timed_ranks `-m ranks -i 100 -s 500`, timed_stencil "
       "`-m stencil -i 200 -s 500`): simulated time against the trace's recorded wall time (MPI_Init to "
       "MPI_Finalize, slowest rank) and against the untraced run's (the same span, libtf_walltime.so); rank "
       "compute: the worst rank's |simulated compute - exact compute| / exact compute (exact: the flat files' "
       f"deltas of the same run). Load average {load0} at the start, {load1} at the end.", "",
       "| workload | recorded s | simulated s (mean) | error mean | error histogram | untraced s | error mean vs untraced | rank compute mean | rank compute histogram |",
       "|---|---|---|---|---|---|---|---|---|"]
for wl, m in acc.items():
    rec = statistics.median(r for r, _, _ in m.get("mean", [(0, 0, 0)]))
    sim = statistics.median(s for _, s, _ in m.get("mean", [(0, 0, 0)]))
    em = statistics.median(e for _, _, e in m["mean"]) if "mean" in m else float("nan")
    eh = statistics.median(e for _, _, e in m["histogram"]) if "histogram" in m else float("nan")
    rm = statistics.median(rerr[wl]["mean"]) if "mean" in rerr[wl] else float("nan")
    rh = statistics.median(rerr[wl]["histogram"]) if "histogram" in rerr[wl] else float("nan")
    un = statistics.median(u for u, _ in untr.get(wl, [(0, 0)]))
    ue = statistics.median(e for _, e in untr.get(wl, [(0, 0)]))
    out.append(f"| {wl} | {rec:.4f} | {sim:.4f} | {em:+.1f} % | {eh:+.1f} % | {un:.4f} | {ue:+.1f} % | {rm:.3f} % | {rh:.3f} % |")
out += ["", "**What the difference is made of** (`--compute mean`, the run of median error): the simulated compute "
        "of each rank is the trace's, so the difference between simulated and recorded time lies in the MPI calls. "
        "Per workload, the MPI time recorded (the trace's durations after MPI_Init, both ranks summed) against "
        "the time the simulation spent in those calls, in ms, and the functions that differ most "
        "(recorded -> simulated).", "",
        "| workload | MPI recorded ms | MPI simulated ms | largest differences |", "|---|---|---|---|"]
for wl, m in acc.items():
    if wl not in mpi or "mean" not in m:
        continue
    errs = [e for _, _, e in m["mean"]]
    med = statistics.median_low(errs)
    rep = sorted(mpi[wl])[min(errs.index(med), len(mpi[wl]) - 1)]
    fns = mpi[wl][rep]
    r = sum(x[2] for x in fns) * 1e3
    si = sum(x[3] for x in fns) * 1e3
    top = sorted(fns, key=lambda x: -abs(x[2] - x[3]))[:3]
    txt = "; ".join(f"{fn} x{c}: {rec * 1e3:.2f} -> {sim * 1e3:.2f}" for fn, c, rec, sim in top if abs(rec - sim) > 0)
    out.append(f"| {wl} | {r:.2f} | {si:.2f} | {txt} |")
out += ["", f"**Speed at scale** (stencil2d `{sargs}`, generated platform 10 Gbit/s, 1 us, one node per rank, "
        "`--compute mean`): wall time of `tracefold simulate` (the whole command, from the compressed "
        "trace) against `smpirun -replay` of the same trace exported by `tracefold export smpi` as unrolled "
        "time-independent action files (the baseline; export time apart), same platform.", "",
        "| ranks | events | trace.tf bytes | action files bytes | tracefold simulate s | export s | "
        "smpirun -replay s | speed-up | simulated s (ours) | simulated s (TI replay) |",
        "|---|---|---|---|---|---|---|---|---|---|"]
rows = [line.rstrip("\n").split("\t") for line in open(work + "/scale.tsv")]
for np_, ev, tb, tib, o, ex, s, so, st in rows:
    out.append(f"| {np_} | {ev} | {tb} | {tib} | {o} | {ex} | {s} | {float(s) / float(o):.1f}x | {so} | {st} |")
if not rows:  # not run this time: the previous run's rows, marked as such
    try:
        old = open(results).read()
        sec = old[old.index("**Speed at scale**"):]
        prev = [l for l in sec.splitlines() if l.startswith("| ") and l[2:3].isdigit()]
        out += prev + ["", "(Speed rows from the previous run of the section: SCALE_RANKS was empty this time.)"]
    except ValueError:
        pass
update(results, "## Simulation in SimGrid: accuracy on this machine, speed at scale", "\n".join(out) + "\n")
EOF
echo "$prog: done in $(($(date +%s) - start)) s; $RESULTS updated"
