#!/usr/bin/env bash
# genapp_large.sh — the program `tracefold genapp` writes from a stencil2d
# trace extrapolated to many ranks, run oversubscribed on this machine
# (issue 21 point 5): does it complete, in what wall time, with what peak
# memory; records the figures in bench/RESULTS.md. Run through
# `LARGE="144 256 576 1024" bench/genapp.sh BUILD_DIR` (or directly).
#
# usage: bench/genapp_large.sh BUILD_DIR
# environment (optional):
#   LARGE        the rank counts, in order [144 256 576 1024: squares, as
#                square inputs tell the grid's two dimensions apart only
#                at square targets, else extrapolate refuses]; after the
#                first that does not complete the larger ones are not run
#   MPIRUN       launcher of the input recordings [mpirun.mpich]
#   LARGE_MPIRUN launcher of the large runs [mpirun.mpich -launcher fork];
#                Open MPI's gets --oversubscribe --mca btl self,tcp
#   MPICC        the programs' compiler [mpicc.mpich]
#   INPUTS, ARGS the recorded rank counts and stencil2d's arguments
#                ["4 9 16", "-i 2 -s 8"]
#   TIMEOUT      seconds per large run [600]
#   MIN_FREE_GB  a run is stopped when the machine's available memory
#                falls below this [3]
#   RESULTS      the file to update [bench/RESULTS.md]
# Per count: `tracefold extrapolate --ranks N` of the inputs' traces,
# `genapp --compute none`, MPICC -O2, then the run under `nice -n 10`,
# untraced. Wall time: the launcher's, start to exit. Peak memory: the
# machine's used memory (MemTotal - MemAvailable, sampled every 0.5 s)
# above what it was before the run.
set -uo pipefail
prog=genapp_large.sh
build=${1:?usage: bench/genapp_large.sh BUILD_DIR}
LARGE=${LARGE:-"144 256 576 1024"}
MPIRUN=${MPIRUN:-mpirun.mpich}
LARGE_MPIRUN=${LARGE_MPIRUN:-mpirun.mpich -launcher fork}
MPICC=${MPICC:-mpicc.mpich}
INPUTS=${INPUTS:-"4 9 16"}
ARGS=${ARGS:-"-i 2 -s 8"}
TIMEOUT=${TIMEOUT:-600}
MIN_FREE_GB=${MIN_FREE_GB:-3}
here=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so
cli=$build/src/cli/tracefold
exe=$build/workloads/wl_stencil2d
for f in "$lib" "$cli" "$exe"; do [ -f "$f" ] || { echo "$prog: missing $f" >&2; exit 1; }; done
launcher=$LARGE_MPIRUN
# shellcheck disable=SC2086
$LARGE_MPIRUN --version 2>/dev/null | grep -qi "open *\(mpi\|rte\)" &&
  launcher="$LARGE_MPIRUN --allow-run-as-root --oversubscribe --mca btl self,tcp"
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-genapp-large.XXXXXX")
trap 'rm -rf "$work"' EXIT
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
kb() { awk -v k="$1" '$1 == k ":" { print $2 }' /proc/meminfo; }
used_kb() { echo $(($(kb MemTotal) - $(kb MemAvailable))); }

inputs=()
for p in $INPUTS; do
  # shellcheck disable=SC2086
  timeout 300 $MPIRUN -np "$p" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$work/in$p" "$exe" $ARGS >/dev/null 2>&1 ||
    { echo "$prog: stencil2d at $p ranks failed under the recorder" >&2; exit 1; }
  inputs+=("$work/in$p/trace.tf")
done

rows=()
for n in $LARGE; do
  row="| $n |"
  if ! "$cli" extrapolate --ranks "$n" -o "$work/x$n.tf" "${inputs[@]}" >"$work/x$n.err" 2>&1 ||
    ! "$cli" genapp --compute none -o "$work/app$n.c" "$work/x$n.tf" 2>"$work/gen$n.err" ||
    ! $MPICC -O2 -o "$work/app$n" "$work/app$n.c" 2>"$work/cc$n.err"; then
    rows+=("$row $(wc -c <"$work/x$n.tf" 2>/dev/null || echo -) | - | not built: $(cat "$work"/*"$n".err | head -2 | tr '\n' ' ') | - | - |")
    echo "${rows[-1]}"
    break
  fi
  tf_bytes=$(wc -c <"$work/x$n.tf")
  lines=$(wc -l <"$work/app$n.c")
  base=$(used_kb)
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$work" && exec nice -n 10 timeout -k 20 "$TIMEOUT" $launcher -np "$n" "$work/app$n") >"$work/run$n.out" 2>"$work/run$n.err" &
  pid=$!
  peak=0 stopped=""
  while kill -0 "$pid" 2>/dev/null; do
    u=$(($(used_kb) - base))
    [ "$u" -le "$peak" ] || peak=$u
    if [ $(($(kb MemAvailable) / 1048576)) -lt "$MIN_FREE_GB" ] && [ -z "$stopped" ]; then
      stopped="stopped: less than $MIN_FREE_GB GB available"
      kill -TERM "$pid" 2>/dev/null # timeout passes it on to the launcher
    fi
    sleep 0.5
  done
  wait "$pid"
  rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  peak_gb=$(awk -v k="$peak" 'BEGIN { printf "%.2f", k / 1048576 }')
  if [ "$rc" -eq 0 ] && [ -z "$stopped" ]; then
    outcome="completed"
  else
    [ "$rc" -ne 124 ] || stopped="timed out after $TIMEOUT s"
    outcome="failed (exit $rc${stopped:+, $stopped}): $(grep -v '^ *$' "$work/run$n.err" | sort | uniq -c | sort -rn |
      head -3 | sed 's/^ *//; s/|/\\|/g' | tr '\n' ';' | cut -c1-400)"
  fi
  rows+=("$row $tf_bytes | $lines | $outcome | $wall | $peak_gb |")
  echo "${rows[-1]}"
  [ "$outcome" = completed ] || break
done
{
  echo "## genapp: an extrapolated stencil2d at many ranks"
  echo
  echo "Written by \`bench/genapp_large.sh\` on $(date -u +%Y-%m-%d) from $source, $(nproc) cores, $(($(kb MemTotal) / 1048576)) GB."
  echo "stencil2d \`$ARGS\` recorded at $INPUTS ranks ($MPIRUN), \`tracefold extrapolate --ranks N\`, \`tracefold genapp"
  echo "--compute none\`, built with \`$MPICC -O2\`, run untraced as \`nice -n 10 $launcher -np N\` (oversubscribed)."
  echo "*wall s*: the launcher's, start to exit; *peak GB*: the machine's used memory above its level before the"
  echo "run (sampled every 0.5 s); a run is stopped below $MIN_FREE_GB GB available or after $TIMEOUT s, and the larger"
  echo "counts are then not run. Failure: the most frequent lines of the launcher's error output."
  echo
  echo "| ranks | trace bytes | program lines | outcome | wall s | peak GB |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$work/section.md"
python3 "$here/results_section.py" "$RESULTS" "## genapp: an extrapolated stencil2d at many ranks" <"$work/section.md"
echo "$prog: wrote the section to $RESULTS"
