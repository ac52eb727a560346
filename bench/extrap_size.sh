#!/usr/bin/env bash
# extrap_size.sh — the size of extrapolated traces (issue 18 point 6: "the
# file stays within 1.5x of the input size"): every workload that
# `tracefold extrapolate` supports, recorded under the build's MPI at the
# rank counts of its test (tests/CMakeLists.txt, extrap.*), extrapolated to
# 16,384 and 1,048,576 ranks; the time, the bytes, their ratio to the
# largest input, and the value sets of the 16,384-rank trace with most
# groups (`tracefold show`: the parameters whose groups grow with P). Writes
# the section "## Extrapolated trace size" of bench/RESULTS.md.
#
# usage: bench/extrap_size.sh BUILD_DIR
# environment (optional):
#   MPIRUN    launcher of BUILD_DIR's MPI                           [mpirun.mpich]
#   CLI       the tracefold that extrapolates (e.g. an older build's, to
#             compare)                                              [BUILD_DIR's]
#   RESULTS   the file to update; "-": print the section only      [bench/RESULTS.md]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/extrap_size.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT

prog=extrap_size.sh
WORKLOADS="ring persistent nbcoll stencil2d stencil2d_nodims alltoall butterfly wavefront stencil3d"
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
bench_start "$build" extrap-size
[[ -z ${CLI:-} ]] || { cli=$CLI; SOURCE="$SOURCE (extrapolated by $CLI)"; }

# workload|inputs|args, as the extrap.* tests
specs=("ring|3 4 5|-i 20" "persistent|3 4 5|-i 5" "nbcoll|4 5 6|-i 4" "stencil2d|4 6 9|-i 5 -s 8"
  "stencil2d_nodims|4 6 9|-i 5 -s 8" "alltoall|4 6 9|-i 3" "butterfly|2 4 8|-i 4 -s 8" "wavefront|16 20 30|-i 2 -s 4"
  "stencil3d|36 48 64 80 100|-i 1 -s 2")

rows="" grown=""
for spec in "${specs[@]}"; do
  IFS='|' read -r name inputs args <<<"$spec"
  traces=() inbytes="" largest=0
  for np in $inputs; do
    # shellcheck disable=SC2086 # args: a list of words
    timeout 300 "$MPIRUN" -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/$name.$np" "$bin/wl_$name" $args \
      >/dev/null 2>"$tmp/$name.$np.err" || die "recording $name at $np ranks failed: $(tail -3 "$tmp/$name.$np.err")"
    traces+=("$tmp/$name.$np/trace.tf")
    b=$(stat -c %s "$tmp/$name.$np/trace.tf")
    inbytes+="${inbytes:+, }$b"
    ((b > largest)) && largest=$b
  done
  for P in 16384 1048576; do
    t0=$(date +%s.%N)
    if ! timeout 600 "$cli" extrapolate --ranks "$P" -o "$tmp/$name.x$P.tf" "${traces[@]}" >/dev/null 2>"$tmp/x.err"; then
      grep -q "refused: " "$tmp/x.err" || die "extrapolating $name to $P failed: $(tail -3 "$tmp/x.err")"
      why=$(sed -n 's/.*refused: //p' "$tmp/x.err" | head -1 | cut -c1-160 | tr '|' '/')
      rows+="| $name \`$args\` | ${inputs// /, } | $inbytes | $(printf "%'d" "$P") | | | refused: $why |"$'\n'
      continue
    fi
    t1=$(date +%s.%N)
    b=$(stat -c %s "$tmp/$name.x$P.tf")
    ratio=$(echo "$b $largest" | awk '{ printf "%.2f", $1 / $2 }')
    over=$(echo "$b $largest" | awk '{ print ($1 > 1.5 * $2) ? " **over 1.5x**" : "" }')
    rows+="| $name \`$args\` | ${inputs// /, } | $inbytes | $(printf "%'d" "$P") | $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') | $b | $ratio$over |"$'\n'
  done
  # the value sets of most groups at 16,384 ranks ("... N variants" of show; show of some
  # 1,048,576-rank traces takes minutes: it validates every distinct rank)
  [[ -e $tmp/$name.x16384.tf ]] || continue
  most=$( (timeout 300 "$cli" show "$tmp/$name.x16384.tf" 2>/dev/null || true) | python3 -c '
import re, sys
found = {}
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"([A-Za-z_][\w.()]*)=", line)]
    for v in re.finditer(r"\.\.\. (\d+) variants\}", line):
        name = [n for at, n in starts if at < v.start()]
        key = words[0] + " " + (name[-1] if name else "?")
        found[key] = max(found.get(key, 0), int(v.group(1)))
top = sorted(found.items(), key=lambda kv: -kv[1])[:4]
print(", ".join("%s (%d)" % kv for kv in top))')
  grown+="| $name | ${most:-none above 8 groups} |"$'\n'
done

section=$(
  cat <<EOF2
## Extrapolated trace size

Written by \`bench/extrap_size.sh\` on $(date -u +%Y-%m-%d) at $SOURCE, on $(nproc) cores, recorded under
$MPIRUN. Every workload \`tracefold extrapolate\` supports, at the input rank counts of its test
(\`extrap.*\`), extrapolated to 16,384 and 1,048,576 ranks (doc/EXTRAPOLATE.md); issue 18 point 6 asks
for at most 1.5x the input (here: the largest input). Wall times of one run each, validation of the
written trace included (at most 2,048 rank runs decoded). A refused target says why.

| workload | input ranks | input bytes | P | extrapolate s | bytes | / largest input |
|---|---|---|---|---|---|---|
${rows}
The value sets with most groups at 16,384 ranks (\`tracefold show\`; sets of up to 8 groups are not
counted there):

| workload | parameters (groups) |
|---|---|
${grown}
EOF2
)
if [[ $RESULTS == - ]]; then
  echo "$section"
else
  python3 "$here/results_section.py" "$RESULTS" "## Extrapolated trace size" <<<"$section"
fi
finish "some extrapolation failed"
