#!/usr/bin/env bash
# extrap.sh — extrapolation at scale (doc/EXTRAPOLATE.md "Scale", issue 18
# point 6): ring and stencil2d recorded at a few small rank counts,
# extrapolated to 16,384 and 1,048,576 ranks; the time extrapolating takes
# and the bytes it writes against the inputs', the time the readers take on
# the 1,048,576-rank traces (show, unroll --rank, stats, time --rank), and
# `tracefold simulate` of one extrapolation (wall time and peak memory, GNU
# time). Writes the section "## Extrapolation at scale" of bench/RESULTS.md.
#
# usage: bench/extrap.sh BUILD_DIR
# environment (optional):
#   MPIRUN       launcher of BUILD_DIR's MPI                     [mpirun.mpich]
#   OMPI_BUILD   an Open MPI build (its launcher: mpirun.openmpi): stencil2d is
#                recorded there (under MPICH its extrapolation is refused,
#                doc/EXTRAPOLATE.md); without it stencil2d is left out    [none]
#   SIM_RANKS    ranks of the simulated extrapolation (stencil2d if recorded,
#                else ring)                                      [16384]
#   SIM_TIMEOUT  hard limit of the simulation, seconds           [3600]
#   SIM_CFG      a SimGrid setting for it (empty: tracefold simulate's own
#                defaults; over 64 ranks smpi/coll-selector:ompi)     [empty]
#   RESULTS      the file to update                              [bench/RESULTS.md]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/extrap.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
OMPI_BUILD=${OMPI_BUILD:-}
SIM_RANKS=${SIM_RANKS:-16384}
SIM_TIMEOUT=${SIM_TIMEOUT:-3600}
SIM_CFG=${SIM_CFG:-}
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT

prog=extrap.sh
WORKLOADS=ring
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
bench_start "$build" extrap

# record NAME LAUNCHER LIB PROGRAM ARGS -- NP...: trace NAME.NP/trace.tf per NP
record() {
  local name=$1 launcher=$2 rlib=$3 prog=$4 args=$5 np
  shift 6
  for np in "$@"; do
    # shellcheck disable=SC2086 # the launcher and args are lists of words
    timeout 300 $launcher -np "$np" env LD_PRELOAD="$rlib" TRACEFOLD_OUTPUT="$tmp/$name.$np" "$prog" $args \
      >/dev/null 2>"$tmp/$name.$np.err" || die "recording $name at $np ranks failed: $(tail -3 "$tmp/$name.$np.err")"
  done
}

# seconds COMMAND...: the wall time of COMMAND (output dropped), or die
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  timeout 600 "$@" >/dev/null 2>"$tmp/cmd.err" || die "$* failed or took over 600 s: $(tail -3 "$tmp/cmd.err")"
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}

specs=("ring|MPICH|$MPIRUN|$lib|$build/workloads/wl_ring|-i 20|3 4 5")
if [[ -n $OMPI_BUILD ]]; then
  [[ -x $OMPI_BUILD/workloads/wl_stencil2d ]] || die "missing $OMPI_BUILD/workloads/wl_stencil2d"
  specs+=("stencil2d|Open MPI|mpirun.openmpi --allow-run-as-root --oversubscribe|$OMPI_BUILD/src/recorder/libtracefold.so|$OMPI_BUILD/workloads/wl_stencil2d|-i 5 -s 8|4 6 9")
fi

rows="" reads="" simtrace=""
for spec in "${specs[@]}"; do
  IFS='|' read -r name mpi launcher rlib wl args inputs <<<"$spec"
  # shellcheck disable=SC2086 # inputs: a list of rank counts
  record "$name" "$launcher" "$rlib" "$wl" "$args" -- $inputs
  traces=() inbytes=""
  for np in $inputs; do
    traces+=("$tmp/$name.$np/trace.tf")
    largest=$(stat -c %s "$tmp/$name.$np/trace.tf")
    inbytes+="${inbytes:+, }$largest"
  done
  for P in 16384 1048576; do
    s=$(seconds "$cli" extrapolate --ranks "$P" -o "$tmp/$name.x$P.tf" "${traces[@]}")
    b=$(stat -c %s "$tmp/$name.x$P.tf")
    rows+="| $name ($mpi, \`$args\`) | ${inputs// /, } | $inbytes | $(printf "%'d" "$P") | $s | $b | $(echo "$b $largest" | awk '{ printf "%.2f", $1 / $2 }') |"$'\n'
  done
  x=$tmp/$name.x1048576.tf
  reads+="| $name | $(seconds "$cli" show "$x") | $(seconds "$cli" unroll --rank 5 "$x") |"
  reads+=" $(seconds "$cli" unroll --rank 1048575 "$x") | $(seconds "$cli" stats "$x") | $(seconds "$cli" time --rank 5 50% "$x") |"$'\n'
  simtrace=$name
done

# simulate the last workload's extrapolation to SIM_RANKS
"$cli" extrapolate --ranks "$SIM_RANKS" -o "$tmp/sim.tf" "${traces[@]}" >/dev/null
simrc=0
if [[ ! -x $build/src/replay/tracefold-sim ]]; then
  simrc=127 # no SimGrid in this build
else
/usr/bin/time -v -o "$tmp/sim.time" timeout "$SIM_TIMEOUT" "$build/src/cli/tracefold" simulate --quiet \
  --ranks-limit "$SIM_RANKS" ${SIM_CFG:+--cfg "$SIM_CFG"} "$tmp/sim.tf" >"$tmp/sim.out" 2>"$tmp/sim.err" || simrc=$?
fi
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/sim.time" 2>/dev/null)
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/sim.time" 2>/dev/null)
rss=${rss:-0}
cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$tmp/sim.time" 2>/dev/null || echo "?")
if ((simrc == 0)); then
  sim="completed in $wall (wall; $cpu s of CPU, user + system), peak resident memory $((rss / 1024)) MiB; simulated time: $(grep -m1 -i "simulated" "$tmp/sim.out" || true)"
elif ((simrc == 127)); then
  sim="not run: $build has no tracefold-sim (SimGrid)"
elif ((simrc == 124)); then
  sim="did NOT complete within $SIM_TIMEOUT s (stopped by timeout; peak resident memory so far $((rss / 1024)) MiB)"
  status=1
else
  sim="FAILED (exit $simrc): $(tail -2 "$tmp/sim.err" | tr '\n' ' ')"
  status=1
fi

python3 "$here/results_section.py" "$RESULTS" "## Extrapolation at scale" <<EOF2
## Extrapolation at scale

Written by \`bench/extrap.sh\` on $(date -u +%Y-%m-%d) at $SOURCE, on $(nproc) cores. The inputs are
recorded merged traces; \`tracefold extrapolate --ranks P\` writes one merged trace for P ranks
(doc/EXTRAPOLATE.md). Wall times of one run each.

| workload | input ranks | input bytes | P | extrapolate s | bytes | / largest input |
|---|---|---|---|---|---|---|
${rows}
Reading the 1,048,576-rank traces (seconds; \`unroll --rank\` without --no-time):

| workload | show | unroll --rank 5 | unroll --rank 1048575 | stats | time --rank 5 50% |
|---|---|---|---|---|---|
${reads}
\`tracefold simulate --quiet --ranks-limit $SIM_RANKS${SIM_CFG:+ --cfg $SIM_CFG}\` of the $simtrace extrapolation to
$SIM_RANKS ranks: $sim.
EOF2
finish "the simulation did not complete"
