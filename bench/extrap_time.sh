#!/usr/bin/env bash
# extrap_time.sh — does an extrapolated trace keep time? (issue 18 point 5)
# For each case, per round: the workload runs untraced at the target rank
# count (libtf_walltime.so: the original wall time, MPI_Init to
# MPI_Finalize), traced at the input counts and at the target; the inputs
# are extrapolated to the target (`tracefold extrapolate`), and both the
# extrapolated and the recorded target trace are replayed (busy-wait,
# --compute mean). Rounds interleave the cases; medians are reported and
# written to bench/RESULTS.md ("Extrapolation: replayed time").
#
# usage: bench/extrap_time.sh BUILD_DIR
# environment (optional):
#   CASES    ";"-separated NAME|ARGS|INPUTS|TARGET  [timed and stencil2d below]
#   REPS     rounds, medians reported                [3]
#   TIMEOUT  hard limit per run, seconds             [300]
#   MPIRUN   launcher                                [mpirun.mpich]
#   RESULTS  the file to update                      [bench/RESULTS.md]
#
# Columns: original = the untraced run at the target; predicted = the
# extrapolated trace's own span (its fitted times, slowest rank: the replay's
# "recorded wall time"); replayed = the replay of the extrapolated trace; the
# control replays the trace recorded at the target. Errors are against the
# original. On 2 cores, targets above 2 ranks are oversubscribed: the
# original's MPI time then grows in a way runs at smaller counts do not show.
# Size rules: timed's phase 1 singles out rank 3, so its inputs start at 4
# ranks (at 2 and 3 the rank-3 group does not exist and its times cannot be
# fitted); its compute steps are 5 ms, so that the time an oversubscribed
# collective loses to the scheduler (a few ms a call here) does not dominate.
set -uo pipefail
prog=extrap_time.sh
build=${1:?usage: bench/extrap_time.sh BUILD_DIR}
build=$(cd "$build" && pwd)
CASES=${CASES:-"timed|-i 20 -s 5000|4 5 6|8;stencil2d|-i 40 -s 64|4 6 9|8"}
REPS=${REPS:-3}
TIMEOUT=${TIMEOUT:-300}
MPIRUN=${MPIRUN:-mpirun.mpich}
here=$(cd "$(dirname "$0")" && pwd)
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_TIMING
lib=$build/src/recorder/libtracefold.so
shim=$build/bench/libtf_walltime.so
cli=$build/src/cli/tracefold
for f in "$lib" "$shim" "$cli" "$build/src/replay/tracefold-replay"; do
  [ -e "$f" ] || { echo "$prog: missing $f (build the project first)" >&2; exit 1; }
done
mpirun=$MPIRUN
[[ $MPIRUN == *openmpi* ]] && mpirun="$MPIRUN --allow-run-as-root --oversubscribe"
export TRACEFOLD_MPIRUN=$mpirun
work=$(mktemp -d "${TMPDIR:-/tmp}/tf-extrap-time.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
source=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

# field FILE PATTERN: the 4th word of the line matching PATTERN, or "fail"
field() { awk -v p="$2" '$0 ~ p { print $4; f = 1; exit } END { if (!f) print "fail" }' "$1" 2>/dev/null || echo fail; }
median() { tr ' ' '\n' | grep -v -e '^$' -e fail | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "fail"; else printf "%.3f", v[int((NR + 1) / 2)] }'; }
err() { awk -v r="$1" -v o="$2" 'BEGIN { if (r == "fail" || o == "fail" || o <= 0) print "fail"; else printf "%+.1f %%", 100 * (r - o) / o }'; }

IFS=';' read -r -a cases <<<"$CASES"
declare -A orig pred rep ctl
for ((k = 1; k <= REPS; k++)); do
  for c in "${cases[@]}"; do
    IFS='|' read -r wl args inputs target <<<"$c"
    exe=$build/workloads/wl_$wl
    [ -x "$exe" ] || { echo "$prog: skipping $wl (no $exe)" >&2; continue; }
    d=$work/$wl.$k
    mkdir -p "$d"
    # shellcheck disable=SC2086 # args and inputs are lists of words
    o=$(timeout "$TIMEOUT" $mpirun -np "$target" env LD_PRELOAD="$shim" "$exe" $args 2>&1 >/dev/null |
      awk '/^walltime: / { print $2; f = 1 } END { if (!f) print "fail" }')
    traces=()
    for np in $inputs $target; do
      # shellcheck disable=SC2086
      timeout "$TIMEOUT" $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$d/t$np" "$exe" $args >/dev/null 2>&1 ||
        echo "$prog: $wl: traced run at $np ranks failed" >&2
      [[ " $inputs " == *" $np "* ]] && traces+=("$d/t$np/trace.tf")
    done
    "$cli" extrapolate --ranks "$target" -o "$d/x.tf" "${traces[@]}" >/dev/null 2>"$d/extrap.err" ||
      echo "$prog: $wl: extrapolate failed: $(head -1 "$d/extrap.err")" >&2
    timeout "$TIMEOUT" "$cli" replay --quiet --compute mean "$d/x.tf" >"$d/x.out" 2>&1
    timeout "$TIMEOUT" "$cli" replay --quiet --compute mean "$d/t$target/trace.tf" >"$d/t.out" 2>&1
    orig[$c]+=" $o"
    pred[$c]+=" $(field "$d/x.out" 'recorded wall time')"
    rep[$c]+=" $(field "$d/x.out" 'replay wall time')"
    ctl[$c]+=" $(field "$d/t.out" 'replay wall time')"
    echo "$prog: round $k $wl: original $o s, extrapolated replay $(field "$d/x.out" 'replay wall time') s" >&2
    rm -rf "$d"
  done
done

section=$work/section.md
{
  echo "## Extrapolation: replayed time"
  echo
  echo "Written by \`bench/extrap_time.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') at $source (took $(($(date +%s) - start)) s)."
  echo "Machine: $(nproc) cores; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end. MPI: $MPIRUN, medians of $REPS interleaved rounds."
  echo "Per case: the inputs recorded and extrapolated to the target (\`tracefold extrapolate\`); original = the untraced run at the"
  echo "target (MPI_Init to MPI_Finalize, slowest rank); predicted = the extrapolated trace's own span; replayed = \`tracefold replay"
  echo "--compute mean\` of the extrapolated trace; control = the same replay of the trace recorded at the target. Goal: replayed within 5 % of the original."
  echo
  echo "| workload | args | inputs | target | original s | predicted s | replayed s | replayed vs original | control s | control vs original |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for c in "${cases[@]}"; do
    IFS='|' read -r wl args inputs target <<<"$c"
    o=$(echo "${orig[$c]:-}" | median) p=$(echo "${pred[$c]:-}" | median)
    r=$(echo "${rep[$c]:-}" | median) t=$(echo "${ctl[$c]:-}" | median)
    echo "| $wl | \`$args\` | ${inputs// /, } | $target | $o | $p | $r | $(err "$r" "$o") | $t | $(err "$t" "$o") |"
  done
} >"$section"
cat "$section"
python3 "$here/results_section.py" "$RESULTS" "## Extrapolation: replayed time" <"$section"
