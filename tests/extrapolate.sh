#!/usr/bin/env bash
# extrapolate.sh — `tracefold extrapolate` against a recorded run
# (doc/EXTRAPOLATE.md). The workload is recorded at the input rank counts
# and at the target; the trace extrapolated from the inputs to the target
# must, against independent oracles:
#   1. for EVERY rank, unroll (--no-time) exactly as the recorded trace at
#      the target does;
#   2. for every rank, count the calls per function the workload itself
#      counted in the target run (-c);
#   3. be marked as extrapolated (tracefold stats) and read by show and
#      stats without error.
#   4. with --size P:RATIO, extrapolated to P ranks as well (1048576: issue
#      18 point 6), be at most RATIO times the largest input's bytes;
#   5. with --parts D0xD1 (the target's 2-D grid), keep the inside's times
#      apart from the surface's: a rank's compute summed over its events,
#      averaged over the grid's inside and over its surface, must be at
#      least 1.3 times larger inside in the extrapolated trace, as in the
#      recorded one (timed -m stencil computes 3x inside).
# With --refuse the extrapolation must instead be refused (exit 1) with a
# message naming the parameter ("no exact fit", "differ" or "not a power of
# two"), and write no file; the target is then not recorded.
#
# usage: extrapolate.sh --mpirun CMD --lib LIB --cli TRACEFOLD --inputs "4 6 9" --target 8 [--refuse 1]
#                       [--size P:RATIO] [--parts D0xD1] -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
refuse=0 size="" parts=""
tf_options "mpirun lib cli inputs target refuse size parts --:prog" "$@"
tf_workdir extrap

traces=()
recorded=$inputs
[ "$refuse" = 1 ] || recorded="$inputs $target"
for np in $recorded; do
  tf_record "$work/run$np" "$work/t$np" -- "${prog[@]}" -c "$work/c$np"
  [ "$np" = "$target" ] || traces+=("$work/t$np/trace.tf")
done

if [ "$refuse" = 1 ]; then
  if "$cli" extrapolate --ranks "$target" -o "$work/x.tf" "${traces[@]}" >"$work/x.out" 2>"$work/x.err"; then
    fail "extrapolating $name was not refused"
  fi
  cat "$work/x.err"
  grep -q "refused: .*\(no exact fit\|differ\|not a power of two\|dimension [0-9] of the rank grid has [0-9]* ranks\? at every input\)" "$work/x.err" ||
    fail "the refusal names no parameter and values (nor the dimension the inputs never vary)"
  [ ! -e "$work/x.tf" ] || fail "a refused extrapolation wrote $work/x.tf"
  say "$name: ${inputs// /,} -> $target refused as expected"
  exit 0
fi

tf_must "$work/x" "tracefold extrapolate failed" "$cli" extrapolate --ranks "$target" -o "$work/x.tf" "${traces[@]}"
"$cli" stats "$work/x.tf" >"$work/stats" || fail "tracefold stats failed on the extrapolated trace"
grep -q "^extrapolated: " "$work/stats" || fail "stats does not say the trace is extrapolated"
"$cli" show "$work/x.tf" >/dev/null || fail "tracefold show failed on the extrapolated trace"
for ((r = 0; r < target; r++)); do
  "$cli" unroll --no-time --rank "$r" "$work/t$target/trace.tf" >"$work/real.$r" || fail "unroll of the recorded trace failed"
  "$cli" unroll --no-time --rank "$r" "$work/x.tf" >"$work/x.$r" || fail "unroll of the extrapolated trace failed (rank $r)"
  cmp -s "$work/real.$r" "$work/x.$r" || {
    diff "$work/real.$r" "$work/x.$r" | head -10 >&2
    fail "rank $r: the extrapolated trace differs from the recorded one"
  }
  "$cli" counts --rank "$r" "$work/x.tf" >"$work/xc.$r" || fail "tracefold counts failed"
  diff -u "$work/c$target.$r" "$work/xc.$r" >&2 || fail "rank $r: calls differ from the workload's own counts"
done
say "$name: ${inputs// /,} -> $target: all $target ranks equal the recorded trace ($(wc -c <"$work/x.tf") bytes)"
if [ -n "$size" ]; then
  big=${size%%:*} ratio=${size#*:} largest=0
  for t in "${traces[@]}"; do ((largest > $(wc -c <"$t"))) || largest=$(wc -c <"$t"); done
  tf_must "$work/xbig" "tracefold extrapolate to $big ranks failed" \
    timeout 120 "$cli" extrapolate --ranks "$big" -o "$work/xbig.tf" "${traces[@]}"
  bytes=$(wc -c <"$work/xbig.tf")
  awk -v b="$bytes" -v l="$largest" -v r="$ratio" 'BEGIN { exit !(b <= r * l) }' ||
    fail "extrapolated to $big ranks: $bytes bytes, more than $ratio x the largest input ($largest bytes)"
  say "$name: to $big ranks: $bytes bytes, within $ratio x the largest input ($largest bytes)"
fi
if [ -n "$parts" ]; then
  d0=${parts%x*} d1=${parts#*x}
  # the inside's mean compute per rank over the surface's, in a trace
  inside_ratio() {
    local r total
    for ((r = 0; r < target; r++)); do
      total=$("$cli" unroll --rank "$r" "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^compute=/) s += substr($i, 9) } END { printf "%.0f", s }')
      echo "$r $total"
    done | awk -v d0="$d0" -v d1="$d1" '{ x = int($1 / d1); y = $1 % d1
        if (x > 0 && x < d0 - 1 && y > 0 && y < d1 - 1) { si += $2; ni++ } else { ss += $2; ns++ } }
      END { if (!ni || !ns || !ss) print 0; else printf "%.2f", (si / ni) / (ss / ns) }'
  }
  real=$(inside_ratio "$work/t$target/trace.tf") got=$(inside_ratio "$work/x.tf")
  awk -v r="$real" 'BEGIN { exit !(r >= 1.3) }' || fail "the recorded trace at $target ranks does not show the inside computing longer ($real x the surface)"
  awk -v g="$got" 'BEGIN { exit !(g >= 1.3) }' ||
    fail "extrapolated, the inside computes $got x the surface per rank (recorded: $real x): its times are not kept apart"
  say "$name: inside / surface compute per rank: $got x extrapolated, $real x recorded"
fi
