#!/usr/bin/env bash
# genapp.sh — how close the wall time of the program `tracefold genapp`
# writes comes to the original run's, per workload and compute mode;
# records the figures in bench/RESULTS.md. Builds nothing but the programs.
#
# usage: bench/genapp.sh BUILD_DIR
# environment (optional):
#   MPIRUN     launcher [BUILD_DIR's] (Open MPI: --allow-run-as-root --oversubscribe added)
#   MPICC      the compiler of the generated programs [BUILD_DIR's]
#   WORKLOADS  NAME or NAME|ARGUMENTS (ARGS when none), space-separated
#              [every workload genapp supports; the slow ones with fewer iterations]
#   NP, ARGS   ranks and workload arguments [2, "-i 2000"]
#   REPS       runs per row; medians reported [3]
#   RESULTS    the file to update [bench/RESULTS.md]
#   LARGE      rank counts ("144 256 576 1024"): instead, the program
#              generated from a stencil2d trace extrapolated to each count,
#              run oversubscribed (bench/genapp_large.sh, its own options)
# Per workload and repetition: the untraced run with libtf_walltime.so
# (original: from when the last rank returned from MPI_Init to when the
# last rank called MPI_Finalize, as bench/replay.sh), a traced run (default
# timing), then the programs generated from its trace with --compute mean,
# histogram and none, built with MPICC -O2, each run with the same shim.
# Error = (program - original) / original, in %, median over REPS. For
# comparison, *replay mean*: tracefold-replay --compute mean of the same
# trace (its own wall time, MPI_Init to MPI_Finalize).
set -uo pipefail
prog=genapp.sh
build=${1:?usage: bench/genapp.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
mpi_of_build "$build"
MPIRUN=${MPIRUN:-${mpirun%% *}}
MPICC=$mpicc
# iterations for runs of about 100 ms or more (at 2 ms and less, scheduling noise is tens of %), except
# where the generated source would grow with them (cstbranch, efgbranch, fbindings_fh: arms that do not fold)
WORKLOADS=${WORKLOADS:-"stencil2d|-i_20000 stencil3d|-i_10000 ring|-i_40000 wavefront|-i_20000 butterfly|-i_20000
  alltoall|-i_20000 alltoallv branchy|-i_20000 nbcoll|-i_10000 persistent|-i_20000 timed fstencil|-i_20000
  masterworker|-i_4000 cstbranch|-i_40 efgbranch|-i_200 f08ring mprobe fbindings_fh|-i_200 fcg|-i_200 mpi4
  collectives|-i_2 nbconform|-i_20 onesided|-i_20 mpiio|-i_20 threads|-i_2000 mtstress|-i_20"}
NP=${NP:-2}
ARGS=${ARGS:-"-i 2000"}
REPS=${REPS:-3}
[ -z "${LARGE:-}" ] || exec "$here/genapp_large.sh" "$build"
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so
shim=$build/bench/libtf_walltime.so
cli=$build/src/cli/tracefold
replay=$build/src/replay/tracefold-replay
for f in "$lib" "$shim" "$cli" "$replay"; do [ -f "$f" ] || { echo "$prog: missing $f" >&2; exit 1; }; done
mpirun=$MPIRUN
"$MPIRUN" --version 2>/dev/null | grep -qi "open *\(mpi\|rte\)" && mpirun="$MPIRUN --allow-run-as-root --oversubscribe"
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-genapp.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

# walltime CMD...: the run's wall time (s) as libtf_walltime.so reports it, or "fail"
walltime() {
  # shellcheck disable=SC2086
  timeout 120 $mpirun -np "$NP" env LD_PRELOAD="$shim" "$@" 2>&1 >/dev/null |
    awk '/^walltime: / { print $2; found = 1 } END { if (!found) print "fail" }'
}
# replay_wall TRACE: tracefold-replay --compute mean's wall time (s), or "fail"
replay_wall() {
  # shellcheck disable=SC2086
  timeout 120 $mpirun -np "$NP" "$replay" --quiet --compute mean "$1" 2>&1 |
    awk '/replay wall time/ { print $4; found = 1 } END { if (!found) print "fail" }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "fail"; else print v[int((NR + 1) / 2)] }'; }
pct() { awk -v a="$1" -v o="$2" 'BEGIN { if (a == "fail" || o == "fail") print "fail"; else printf "%.2f\n", 100 * (a - o) / o }'; }

rows=()
for entry in $WORKLOADS; do
  w=${entry%%|*}
  args=$ARGS
  [ "$w" = "$entry" ] || args=${entry#*|}
  args=${args//_/ } # NAME|-i_200: "_" stands for a space inside one entry
  exe=$build/workloads/wl_$w
  [ -x "$exe" ] || { echo "$prog: missing $exe" >&2; continue; }
  orig="" mean="" hist="" none="" lines="" rmean=""
  for ((k = 0; k < REPS; k++)); do
    # shellcheck disable=SC2086
    o=$(walltime "$exe" $args)
    rm -rf "$work/trace"
    # shellcheck disable=SC2086
    timeout 120 $mpirun -np "$NP" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$work/trace" "$exe" $args >/dev/null 2>&1
    orig+="$o"$'\n'
    rmean+="$(pct "$(replay_wall "$work/trace")" "$o")"$'\n'
    for mode in mean histogram none; do
      t=fail
      if "$cli" genapp --compute "$mode" -o "$work/app.c" "$work/trace" 2>"$work/err" &&
        $MPICC -O2 -o "$work/app" "$work/app.c" 2>>"$work/err"; then
        t=$(pct "$(walltime "$work/app")" "$o")
      else
        sed "s/^/$w: /" "$work/err" >&2
      fi
      case $mode in mean) mean+="$t"$'\n' ;; histogram) hist+="$t"$'\n' ;; none) none+="$t"$'\n' ;; esac
    done
    lines=$(wc -l <"$work/app.c" 2>/dev/null || echo 0)
  done
  row="| $w | $NP | \`$args\` | $(echo -n "$orig" | median | awk '{ print $1 * 1000 }') | $(echo -n "$mean" | median) | $(echo -n "$hist" | median) | $(echo -n "$none" | median) | $(echo -n "$rmean" | median) | $lines |"
  echo "$row"
  rows+=("$row")
done
elapsed=$(($(date +%s) - start))
{
  echo "## genapp: the generated program's wall time against the original run"
  echo
  echo "Written by \`bench/genapp.sh\` on $(date -u +%Y-%m-%d) from $source, $(nproc) cores, ${elapsed} s; MPI: \`$MPIRUN\`,"
  echo "programs built with \`$MPICC -O2\`; median of $REPS runs per row. *original*: the untraced run's wall time from"
  echo "the last rank's return from MPI_Init to the last rank's call of MPI_Finalize (libtf_walltime.so), as in the"
  echo "replay section. The other columns: the program \`tracefold genapp --compute MODE\` writes from a trace of the"
  echo "same run (default timing), run with the same shim: its error against the original, in %. *lines*: the"
  echo "program's length (--compute none). *replay mean*: \`tracefold-replay --compute mean\` of the same trace,"
  echo "its own wall time from MPI_Init to MPI_Finalize, against the same original. Load average at the start: $load0; at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| workload | ranks | arguments | original ms | mean % | histogram % | none % | replay mean % | lines |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$work/section.md"
python3 "$here/results_section.py" "$RESULTS" "## genapp: the generated program's wall time against the original run" <"$work/section.md"
echo "$prog: wrote the section to $RESULTS (${elapsed} s)"
