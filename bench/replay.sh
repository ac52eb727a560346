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
#   WORKLOADS  workloads            [every C workload and fstencil]
#   RUNS       rank counts and the workload arguments at each, ";"-separated
#              ["2:-i 2000;4:-i 200"] (4 ranks on 2 cores are oversubscribed:
#              MPICH's polling then makes runs long, so fewer steps)
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
set -uo pipefail
prog=replay.sh
build=${1:?usage: bench/replay.sh BUILD_DIR}
MPIRUN=${MPIRUN:-mpirun.mpich}
WORKLOADS=${WORKLOADS:-"stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads timed fstencil"}
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
for f in "$lib" "$shim" "$replay" "$cli"; do [ -x "$f" ] || [ -f "$f" ] || { echo "$prog: missing $f" >&2; exit 1; }; done
mpirun=$MPIRUN
[[ $MPIRUN == *openmpi* ]] && mpirun="$MPIRUN --allow-run-as-root --oversubscribe"
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

# untraced EXE: the untraced run's wall time (s), or "fail"
untraced() {
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$shim" "$1" $ARGS 2>&1 >/dev/null |
    awk '/^walltime: / { print $2; found = 1 } END { if (!found) print "fail" }'
}
# replay_wall NP ARGS...: the replay's wall time (s), or "fail"
replay_wall() {
  local np=$1
  shift
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" $mpirun -np "$np" "$replay" --quiet "$@" >"$work/replay.out" 2>&1 &&
    awk '/replay wall time/ { print $4; found = 1 } END { if (!found) print "fail" }' "$work/replay.out" || echo fail
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }

rows=()
IFS=';' read -r -a runs <<<"$RUNS"
for run in "${runs[@]}"; do
  np=${run%%:*} ARGS=${run#*:}
  for wl in $WORKLOADS; do
    exe=$build/workloads/wl_$wl
    [ -x "$exe" ] || { echo "$prog: skipping $wl (no $exe)" >&2; continue; }
    orig="" traced="" exact="" hist="" mean="" none=""
    for ((k = 1; k <= REPS; k++)); do
      dir=$work/$wl.$np.$k
      o=$(untraced "$exe")
      [ "$o" != fail ] || { echo "$prog: $wl np$np: untraced run failed" >&2; continue; }
      # shellcheck disable=SC2086
      timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$dir" "$exe" $ARGS \
        >/dev/null 2>&1 || { echo "$prog: $wl np$np: traced run failed" >&2; continue; }
      orig+=" $o"
      e() { awk -v r="$1" -v o="$o" 'BEGIN { if (r == "fail" || o <= 0) print "fail"; else printf "%.2f", 100 * (r - o) / o }'; }
      exact+=" $(e "$(replay_wall "$np" --flat --compute mean "$dir")")"
      traced+=" $(e "$(awk '/recorded wall time/ { print $4; found = 1 } END { if (!found) print "fail" }' "$work/replay.out")")"
      hist+=" $(e "$(replay_wall "$np" --compute histogram "$dir/trace.tf")")"
      mean+=" $(e "$(replay_wall "$np" --compute mean "$dir/trace.tf")")"
      none+=" $(e "$(replay_wall "$np" --compute none "$dir/trace.tf")")"
      rm -rf "$dir"
    done
    row=$(printf '| %s | %s | %s | %.2f | %s | %s | %s | %s | %s |' "$wl" "$np" "\`$ARGS\`" "$(echo "$orig" | median | awk '{ print $1 * 1000 }')" \
      "$(echo "$traced" | median)" "$(echo "$exact" | median)" "$(echo "$hist" | median)" "$(echo "$mean" | median)" \
      "$(echo "$none" | median)")
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
  echo "*none* with communication alone."
  echo
  echo "| workload | ranks | arguments | original ms | traced % | exact % | histogram % | mean % | none % |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$work/section.md"
python3 "$here/results_section.py" "$RESULTS" "## Replay: wall time against the original run" <"$work/section.md"
echo "$prog: wrote the section to $RESULTS (${elapsed} s)"
