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
#   NPS        rank counts                                    ["2 4"]
#   ARGS       workload arguments (longer runs than the tests') ["-i 200"]
#   REPS       recordings per (workload, ranks); medians reported [3]
#   TIMEOUT    hard limit per run, seconds                    [120]
#   RESULTS    the file to update                             [bench/RESULTS.md]
#
# Per (workload, ranks, repetition): the workload runs once, traced with
# TRACEFOLD_MODE=both (the default path timing): the merged trace.tf and
# the flat reference files with every exact delta. The original wall time is
# the flat files' own: on each rank, the compute and call times of its main
# thread's events after MPI_Init, summed (MPI_Init's end to MPI_Finalize's
# start), the slowest rank's. The same trace is then replayed (busy-wait,
# scale 1) with:
#   exact      --flat --compute mean: the flat files' exact deltas, event by
#              event: what the replay engine itself adds or loses;
#   histogram  --compute histogram: delays drawn from the merged trace;
#   mean       --compute mean: each occurrence's path mean;
#   none       --compute none: communication alone.
# Each replay reports its wall time from MPI_Init to MPI_Finalize on the
# slowest rank. Error = (replay - original) / original, median over REPS.
# The machine is noisy (2 cores, shared): the exact column shows how much of
# an error is the machine's rather than the trace's.
set -uo pipefail
prog=replay.sh
build=${1:?usage: bench/replay.sh BUILD_DIR}
MPIRUN=${MPIRUN:-mpirun.mpich}
WORKLOADS=${WORKLOADS:-"stencil2d stencil3d ring wavefront butterfly alltoall alltoallv masterworker branchy nbcoll persistent threads timed fstencil"}
NPS=${NPS:-"2 4"}
ARGS=${ARGS:-"-i 200"}
REPS=${REPS:-3}
TIMEOUT=${TIMEOUT:-120}
here=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so
replay=$build/src/replay/tracefold-replay
cli=$build/src/cli/tracefold
for f in "$lib" "$replay" "$cli"; do [ -x "$f" ] || [ -f "$f" ] || { echo "$prog: missing $f" >&2; exit 1; }; done
mpirun=$MPIRUN
[[ $MPIRUN == *openmpi* ]] && mpirun="$MPIRUN --allow-run-as-root --oversubscribe"
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

# original DIR NP: the exact wall time (s) of the traced run, slowest rank
original() {
  local r t max=0
  for ((r = 0; r < $2; r++)); do
    t=$("$cli" dump --rank "$r" "$1" | awk '$2 == 0 && $4 != "MPI_Init" && $4 != "MPI_Init_thread" {
          for (i = 5; i <= NF; i++) { if ($i ~ /^compute=/) s += substr($i, 9); if ($i ~ /^dur=/) s += substr($i, 5) } }
          END { printf "%.9f", s / 1e9 }')
    max=$(awk -v a="$max" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
  done
  echo "$max"
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
for np in $NPS; do
  for wl in $WORKLOADS; do
    exe=$build/workloads/wl_$wl
    [ -x "$exe" ] || { echo "$prog: skipping $wl (no $exe)" >&2; continue; }
    orig="" exact="" hist="" mean="" none=""
    for ((k = 1; k <= REPS; k++)); do
      dir=$work/$wl.$np.$k
      # shellcheck disable=SC2086
      timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$dir" "$exe" $ARGS \
        >/dev/null 2>&1 || { echo "$prog: $wl np$np: traced run failed" >&2; continue; }
      o=$(original "$dir" "$np")
      orig+=" $o"
      e() { awk -v r="$1" -v o="$o" 'BEGIN { if (r == "fail" || o <= 0) print "fail"; else printf "%.2f", 100 * (r - o) / o }'; }
      exact+=" $(e "$(replay_wall "$np" --flat --compute mean "$dir")")"
      hist+=" $(e "$(replay_wall "$np" --compute histogram "$dir/trace.tf")")"
      mean+=" $(e "$(replay_wall "$np" --compute mean "$dir/trace.tf")")"
      none+=" $(e "$(replay_wall "$np" --compute none "$dir/trace.tf")")"
      rm -rf "$dir"
    done
    row=$(printf '| %s | %s | %.2f | %s | %s | %s | %s |' "$wl" "$np" "$(echo "$orig" | median | awk '{ print $1 * 1000 }')" \
      "$(echo "$exact" | median)" "$(echo "$hist" | median)" "$(echo "$mean" | median)" "$(echo "$none" | median)")
    echo "$row"
    rows+=("$row")
  done
done

elapsed=$(($(date +%s) - start))
{
  echo "## Replay: wall time against the original run"
  echo
  echo "Written by \`bench/replay.sh\` on $(date -u +%Y-%m-%d) from $source, $(nproc) cores, ${elapsed} s; MPI: \`$MPIRUN\`;"
  echo "workloads run with \`$ARGS\`; median of $REPS recordings per row. Original: the traced run's own exact time from MPI_Init's end to"
  echo "MPI_Finalize's start on its slowest rank (flat reference files). Replays busy-wait, scale 1; error ="
  echo "(replay − original) / original in %. *exact*: the flat files' exact deltas replayed event by event (what"
  echo "the engine and the machine add); *histogram* and *mean*: delays from the merged trace (default path"
  echo "timing); *none*: communication alone."
  echo
  echo "| workload | ranks | original ms | exact % | histogram % | mean % | none % |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$work/section.md"
python3 "$here/results_section.py" "$RESULTS" "## Replay: wall time against the original run" <"$work/section.md"
echo "$prog: wrote the section to $RESULTS (${elapsed} s)"
