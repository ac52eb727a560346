#!/usr/bin/env bash
# extrap_corners.sh — topology from corner ranks on real recordings
# (src/core/extrap/corners.h, doc/EXTRAPOLATE.md): stencil3d_nodims (its
# 3-D grid by hand, no MPI_Dims_create) at 8, 12, 18 ranks. The oracle is
# the grid the workload builds (MPI_Dims_create's rule: 2x2x2, 3x2x2,
# 3x3x2; dimensions 0 and 1 not periodic, 2 periodic):
#   1. `extrapolate --explain --ranks 24` says the 2x2x2 input shows no
#      corner ranks (every rank alike) and that the corner ranks of the
#      others are those of that grid (0..3, 8..11 at 12; 0,1,4,5,12,13,16,17
#      at 18), and takes the space as 3-D with 4x3x2 at 24;
#   2. the self-check re-extrapolates to 12 and 18 and finds them equal;
#   3. the same for the 2-D grid of stencil2d_nodims (--stencil2d) at 4, 6,
#      9: none at 2x2, corners 0,1,4,5 of 3x2 and 0,2,6,8 of 3x3; 2-D, 4x2
#      at 8; self-checked at all three.
# (The extrapolated trace is checked rank by rank against a 24-rank
# recording by extrap.stencil3d_detect.)
#
# usage: extrap_corners.sh --mpirun CMD --lib LIB --cli TRACEFOLD --stencil2d STENCIL2D_NODIMS -- STENCIL3D_NODIMS
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib cli stencil2d --:prog" "$@"
tf_workdir extrap_corners

for np in 8 12 18; do
  tf_record "$work/run$np" "$work/t$np" -- "${prog[@]}" -i 2 -s 4
done
tf_must "$work/x" "tracefold extrapolate failed" \
  "$cli" extrapolate --explain --ranks 24 -o "$work/x.tf" "$work"/t{8,12,18}/trace.tf
want() { grep -q -- "$1" "$work/x.out" || fail "--explain does not say: $1"; }
want "^topology: .*t8/trace.tf (P=8): peer offsets give 2x2x2; no corner ranks"
want "^topology: .*t12/trace.tf (P=12): peer offsets give 3x2x2; corner ranks 0,1,2,3,8,9,10,11 agree"
want "^topology: .*t18/trace.tf (P=18): peer offsets give 3x3x2; corner ranks 0,1,4,5,12,13,16,17 agree"
want "^topology: 3 dimensions; features 1 P d0 d1 d2 d0d1 d0d2 d1d2; target P=24 d0=4 d1=3 d2=2 d0d1=12 d0d2=8 d1d2=6"
want "^self-check: .*t12/trace.tf (P=12): re-extrapolated, equal"
want "^self-check: .*t18/trace.tf (P=18): re-extrapolated, equal"
for np in 4 6 9; do
  tf_record "$work/run2d$np" "$work/u$np" -- "$stencil2d" -i 2 -s 4
done
tf_must "$work/x" "tracefold extrapolate (2-D) failed" \
  "$cli" extrapolate --explain --ranks 8 -o "$work/u.tf" "$work"/u{4,6,9}/trace.tf
want "^topology: .*u4/trace.tf (P=4): peer offsets give 2x2; no corner ranks"
want "^topology: .*u6/trace.tf (P=6): peer offsets give 3x2; corner ranks 0,1,4,5 agree"
want "^topology: .*u9/trace.tf (P=9): peer offsets give 3x3; corner ranks 0,2,6,8 agree"
want "^topology: 2 dimensions; features 1 P d0 d1; target P=8 d0=4 d1=2"
[ "$(grep -c "^self-check: .*re-extrapolated, equal" "$work/x.out")" = 3 ] || fail "2-D: not self-checked at 4, 6 and 9"
say "stencil2d_nodims 4,6,9: corners agree with 3x2 and 3x3; 2-D, 4x2 at 8; self-check equal at all three"
say "stencil3d_nodims 8,12,18: corners agree with 3x2x2 and 3x3x2; 3-D, 4x3x2 at 24; self-check equal at 12, 18"
