#!/usr/bin/env bash
# size_iterations.sh — a workload's merged trace stays nearly the same size
# as its loops run longer: traced at NP ranks with -i I1 and with -i I2,
# trace.tf at I2 is at most BOUND times trace.tf at I1, and both unroll to
# their flat reference (TRACEFOLD_MODE=both).
#
# usage: size_iterations.sh --mpirun "CMD ARGS" --np NP --lib LIBTRACEFOLD --cli TRACEFOLD
#                           --iters "I1 I2" --bound BOUND -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli iters bound --:prog" "$@"
tf_workdir size
read -r i1 i2 <<<"$iters"
sizes=()
for i in $i1 $i2; do
  tf_must "$work/run.$i" "traced run with -i $i exited non-zero" \
    tf_traced "$np" "$work/t$i" TRACEFOLD_MODE=both -- "${prog[@]}" -i "$i"
  [ -f "$work/t$i/trace.tf" ] || fail "-i $i: no trace.tf"
  "$cli" dump --no-time "$work/t$i" >"$work/ref.$i" || fail "-i $i: tracefold dump failed"
  "$cli" unroll --no-time "$work/t$i/trace.tf" >"$work/unrolled.$i" || fail "-i $i: tracefold unroll failed"
  cmp -s "$work/ref.$i" "$work/unrolled.$i" || fail "-i $i: the unrolled trace differs from the reference"
  sizes+=("$(wc -c <"$work/t$i/trace.tf")")
done
ratio=$(awk -v a="${sizes[1]}" -v b="${sizes[0]}" 'BEGIN { printf "%.3f", a / b }')
awk -v r="$ratio" -v b="$bound" 'BEGIN { exit !(r <= b) }' ||
  fail "$name: trace.tf is ${sizes[1]} bytes at -i $i2, ${sizes[0]} at -i $i1: ratio $ratio > $bound"
echo "ok: $name at $np ranks: trace.tf ${sizes[0]} bytes at -i $i1, ${sizes[1]} at -i $i2 (ratio $ratio <= $bound), both lossless"
