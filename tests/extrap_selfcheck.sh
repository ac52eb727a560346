#!/usr/bin/env bash
# extrap_selfcheck.sh — the extrapolation self-check (src/core/extrap/
# selfcheck.h, doc/EXTRAPOLATE.md): ring recorded at 3, 4, 5 ranks, and at
# 4 ranks again with other message sizes (-s), an input set that does not
# belong together.
#   1. the comparison the self-check makes finds a recording equal to
#      itself and names the event and parameter that differ between the
#      two 4-rank recordings (it can fail);
#   2. extrapolate --explain re-extrapolates to every input and says so,
#      and writes the trace;
#   3. the 4-rank recording with other sizes among the inputs gives no
#      trace (refused, with the parameter named; here the exact fit of the
#      count already refuses it, before the self-check: a set whose numbers
#      all fit exactly is reproduced by construction, so the self-check
#      guards the per-rank spreading, coordinate classes and rules).
#
# usage: extrap_selfcheck.sh --mpirun CMD --lib LIB --cli TRACEFOLD --compare EXTRAP_COMPARE -- RING
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib cli compare --:prog" "$@"
tf_workdir extrap_selfcheck

for np in 3 4 5; do
  tf_record "$work/run$np" "$work/t$np" -- "${prog[@]}" -i 3 -s 8
done
np=4 tf_record "$work/runz" "$work/z4" -- "${prog[@]}" -i 3 -s 16

"$compare" "$work/t4/trace.tf" "$work/t4/trace.tf" >"$work/same" || fail "a recording differs from itself: $(cat "$work/same")"
if "$compare" "$work/z4/trace.tf" "$work/t4/trace.tf" >"$work/other"; then
  fail "recordings with other message sizes compare equal"
fi
grep -q "rank 0, MPI_Sendrecv at .*parameter sendcount, value 0: 16 extrapolated, 8 recorded" "$work/other" || fail "the difference names no rank and parameter: $(cat "$work/other")"
say "compare: $(cat "$work/other")"

tf_must "$work/x" "tracefold extrapolate failed" \
  "$cli" extrapolate --explain --ranks 8 -o "$work/x.tf" "$work"/t{3,4,5}/trace.tf
n=$(grep -c "^self-check: .*re-extrapolated, equal" "$work/x.out" || true)
[ "$n" = 3 ] || fail "the self-check re-extrapolated to $n of the 3 inputs"

if "$cli" extrapolate --ranks 8 -o "$work/bad.tf" "$work/t3/trace.tf" "$work/z4/trace.tf" "$work/t5/trace.tf" \
  >"$work/bad.out" 2>"$work/bad.err"; then
  fail "a mismatched input set was extrapolated"
fi
cat "$work/bad.err"
grep -q "refused: .*\(count\|no exact fit\)" "$work/bad.err" || fail "the refusal names no parameter"
[ ! -e "$work/bad.tf" ] || fail "a refused extrapolation wrote $work/bad.tf"
say "self-check: 3 inputs re-extrapolated and equal; the mismatched set refused"
