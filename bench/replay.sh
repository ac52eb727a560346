#!/usr/bin/env bash
# replay.sh — how close a replay's wall time comes to the original run's,
# per workload and compute mode; records the figures in bench/RESULTS.md.
# Builds nothing.
#
# usage: bench/replay.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (src/recorder/libtracefold.so,
#              src/replay/tracefold-replay, src/cli/tracefold, workloads/wl_<name>)
# environment (optional):
#   MPIRUN     launcher                                       [mpirun.mpich]
#   WORKLOADS  workloads            [every C workload and fstencil, and timed_ranks
#              and timed_stencil: wl_timed -m ranks -i 100 -s 500 (issue 17's
#              example: even ranks compute 0.5 ms, odd ranks 3 ms before each
#              of 100 Allreduces) and -m stencil -i 200 -s 500 (interior ranks
#              of the grid 1.5 ms, boundary ranks 0.5 ms; their own arguments
#              at every rank count)]
#   RUNS       rank counts and the workload arguments at each, ";"-separated
#              ["2:-i 2000;4:-i 200"] (4 ranks on 2 cores are oversubscribed:
#              MPICH's polling then makes runs long, so fewer steps); an entry
#              NP:ARGS:W1 W2 ... runs only those workloads at NP (e.g.
#              "9::timed_stencil": the 3x3 grid's interior rank)
#   REPS       recordings per (workload, ranks); medians reported [3]
#   TIMEOUT    hard limit per run, seconds                    [120]
#   RESULTS    the file to update                             [bench/RESULTS.md]
#
# Per (workload, ranks, repetition): the workload runs untraced with
# libtf_walltime.so preloaded (bench/walltime.c: it intercepts only MPI_Init
# and MPI_Finalize), which gives the original wall time: from when the last
# rank returned from MPI_Init to when the last rank called MPI_Finalize, the
# span a replay times. Then it runs traced with TRACEFOLD_MODE=both (the
# default path timing): the merged trace.tf and the flat reference files
# with every exact delta. The trace is replayed (busy-wait, scale 1) with:
#   exact      --flat --compute mean: the flat files' exact deltas, event by
#              event;
#   histogram  --compute histogram: delays drawn from the merged trace;
#   mean       --compute mean: each occurrence's path mean;
#   none       --compute none: communication alone.
# Each replay reports its wall time from MPI_Init to MPI_Finalize on the
# slowest rank, and (flat replay) the trace's own span: the traced run's
# deltas summed on its slowest rank. Error = (replay - original) / original,
# median over REPS. The "traced" column is the same for the trace's own
# span: how much the recorder perturbed the run (probe effect).
# Per rank: each rank's compute as the merged trace keeps it (its rank
# groups' means: tests/check_timing ranks) and as each replay spent it (the
# replay's --report), against its exact compute (the flat files' deltas);
# the worst rank's error, median over REPS.
set -uo pipefail
prog=replay.sh
build=${1:?usage: bench/replay.sh BUILD_DIR}
MPIRUN=${MPIRUN:-mpirun.mpich}
WORKLOADS=${WORKLOADS:-"stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads timed fstencil timed_ranks timed_stencil"}
RUNS=${RUNS:-"2:-i 2000;4:-i 200"}
REPS=${REPS:-3}
TIMEOUT=${TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so
shim=$build/bench/libtf_walltime.so
replay=$build/src/replay/tracefold-replay
cli=$build/src/cli/tracefold
checker=$build/tests/check_timing
for f in "$lib" "$shim" "$replay" "$cli" "$checker"; do [ -x "$f" ] || [ -f "$f" ] || { echo "$prog: missing $f" >&2; exit 1; }; done
mpirun=$MPIRUN
[[ $MPIRUN == *openmpi* ]] && mpirun="$MPIRUN --allow-run-as-root --oversubscribe"
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

# untraced CMD...: the untraced run's wall time (s), or "fail"
untraced() {
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$shim" "$@" 2>&1 >/dev/null |
    awk '/^walltime: / { print $2; found = 1 } END { if (!found) print "fail" }'
}
# replay_wall NP ARGS...: the replay's wall time (s), or "fail"; its report in $work/replay.report
replay_wall() {
  local np=$1
  shift
  rm -f "$work/replay.report"
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" $mpirun -np "$np" "$replay" --quiet --report "$work/replay.report" "$@" >"$work/replay.out" 2>&1 &&
    awk '/replay wall time/ { print $4; found = 1 } END { if (!found) print "fail" }' "$work/replay.out" || echo fail
}
# rank_err: the worst rank's error (%) of the last replay's compute against $work/exact ("rank s" lines), or "fail"
rank_err() {
  [ -f "$work/replay.report" ] || { echo fail; return; }
  awk 'NR == FNR { e[$1] = $2; next } $1 == "rank" && ($2 in e) && e[$2] > 0 { d = 100 * ($4 - e[$2]) / e[$2]; if (d < 0) d = -d
         if (d > w) w = d; n++ } END { if (n) printf "%.2f", w; else print "fail" }' "$work/exact" "$work/replay.report"
}
# wl_cmd NAME RUN_ARGS: the executable and arguments of a workload (timed_ranks, timed_stencil: their own)
wl_cmd() {
  case $1 in
    timed_ranks) echo "$build/workloads/wl_timed -m ranks -i 100 -s 500" ;;
    timed_stencil) echo "$build/workloads/wl_timed -m stencil -i 200 -s 500" ;;
    *) echo "$build/workloads/wl_$1 $2" ;;
  esac
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }

rows=()
IFS=';' read -r -a runs <<<"$RUNS"
for run in "${runs[@]}"; do
  np=${run%%:*} ARGS=${run#*:} only=$WORKLOADS
  if [[ $ARGS == *:* ]]; then
    only=${ARGS#*:}
    ARGS=${ARGS%%:*}
  fi
  for wl in $only; do
    read -r -a cmd <<<"$(wl_cmd "$wl" "$ARGS")"
    [ -x "${cmd[0]}" ] || { echo "$prog: skipping $wl (no ${cmd[0]})" >&2; continue; }
    orig="" traced="" exact="" hist="" mean="" none="" rtrace="" rexact="" rhist="" rmean=""
    for ((k = 1; k <= REPS; k++)); do
      dir=$work/$wl.$np.$k
      o=$(untraced "${cmd[@]}")
      [ "$o" != fail ] || { echo "$prog: $wl np$np: untraced run failed" >&2; continue; }
      timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$dir" "${cmd[@]}" \
        >/dev/null 2>&1 || { echo "$prog: $wl np$np: traced run failed" >&2; continue; }
      orig+=" $o"
      e() { awk -v r="$1" -v o="$o" 'BEGIN { if (r == "fail" || o <= 0) print "fail"; else printf "%.2f", 100 * (r - o) / o }'; }
      "$checker" ranks "$dir/trace.tf" "$dir" >"$work/ranks.check" 2>&1 || true
      awk '$1 == "rank" { sub(/exact=/, "", $4); print $2, $4 }' "$work/ranks.check" >"$work/exact"
      rtrace+=" $(awk '$1 == "worst" { sub(/error=/, "", $2); printf "%.2f", $2; f = 1 } END { if (!f) print "fail" }' "$work/ranks.check")"
      exact+=" $(e "$(replay_wall "$np" --flat --compute mean "$dir")")"
      rexact+=" $(rank_err)"
      traced+=" $(e "$(awk '/recorded wall time/ { print $4; found = 1 } END { if (!found) print "fail" }' "$work/replay.out")")"
      hist+=" $(e "$(replay_wall "$np" --compute histogram "$dir/trace.tf")")"
      rhist+=" $(rank_err)"
      mean+=" $(e "$(replay_wall "$np" --compute mean "$dir/trace.tf")")"
      rmean+=" $(rank_err)"
      none+=" $(e "$(replay_wall "$np" --compute none "$dir/trace.tf")")"
      rm -rf "$dir"
    done
    shown_args=$ARGS
    [[ $wl == timed_* ]] && shown_args="${cmd[*]:1}"
    row=$(printf '| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s |' "$wl" "$np" "\`$shown_args\`" \
      "$(echo "$orig" | median | awk '{ print $1 * 1000 }')" \
      "$(echo "$traced" | median)" "$(echo "$exact" | median)" "$(echo "$hist" | median)" "$(echo "$mean" | median)" \
      "$(echo "$none" | median)" "$(echo "$rtrace" | median)" "$(echo "$rexact" | median)" "$(echo "$rhist" | median)" \
      "$(echo "$rmean" | median)")
    echo "$row"
    rows+=("$row")
  done
done

elapsed=$(($(date +%s) - start))
{
  echo "## Replay: wall time against the original run"
  echo
  echo "Written by \`bench/replay.sh\` on $(date -u +%Y-%m-%d) from $source, $(nproc) cores, ${elapsed} s; MPI: \`$MPIRUN\`;"
  echo "median of $REPS runs per row. *original*: the untraced run's wall time from"
  echo "the last rank's return from MPI_Init to the last rank's call of MPI_Finalize (libtf_walltime.so). All other"
  echo "columns are errors against it, in %: *traced*, the traced run's own span (its flat files' deltas summed on the"
  echo "slowest rank: the recorder's probe effect); the replays (busy-wait, scale 1) of its trace: *exact* with the"
  echo "flat files' exact deltas, *histogram* and *mean* with delays from the merged trace (default path timing),"
  echo "*none* with communication alone. Per rank (the last four columns): each rank's compute as the merged trace"
  echo "keeps it (*trace*: its rank groups' path means, \`check_timing ranks\`) and as each replay spent it, against its"
  echo "exact compute (the flat files' deltas, MPI_Init's aside): the worst rank's |error| in %."
  echo "Load average at the start: $load0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| workload | ranks | arguments | original ms | traced % | exact % | histogram % | mean % | none % | rank compute: trace % | exact % | histogram % | mean % |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$work/section.md"
python3 "$here/results_section.py" "$RESULTS" "## Replay: wall time against the original run" <"$work/section.md"
echo "$prog: wrote the section to $RESULTS (${elapsed} s)"
