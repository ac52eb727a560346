#!/usr/bin/env bash
# extrap_scale.sh — the readers of a trace extrapolated to a million ranks
# do work in the size of the trace, not in the number of ranks
# (doc/EXTRAPOLATE.md "Scale"). Guarded without timing anything: every read
# runs under a `timeout` that a reader doing per-rank work of the whole run
# overshoots many times (they took minutes), and each result is checked
# against a rule taken from two recorded runs:
#   1. the workload is recorded at the input rank counts and at two small
#      sizes s and s+1; the inputs are extrapolated to --target ranks;
#   2. `unroll --no-time --rank R` of the extrapolated trace, for R the last
#      rank and rank 1, equals the recorded runs' rank (s-1 or 1) with every
#      number that differs between sizes s and s+1 continued linearly to the
#      target (rank, communicator size, relative peers of the last rank);
#   3. `stats` counts the events the same rule gives from the recorded
#      runs' totals, and `show` and `show --rank` read the trace.
#
# usage: extrap_scale.sh --mpirun CMD --lib LIB --cli TRACEFOLD --inputs "3 4 5" --small 6 --target 1048576
#                        [--limit SECONDS] -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
limit=60
tf_options "mpirun lib cli inputs small target limit --:prog" "$@"
tf_workdir xscale
big=$((small + 1))

traces=()
for np in $inputs $small $big; do
  tf_record "$work/run$np" "$work/t$np" -- "${prog[@]}"
  case " $inputs " in *" $np "*) traces+=("$work/t$np/trace.tf") ;; esac
done
tf_must "$work/x" "tracefold extrapolate failed" \
  timeout "$limit" "$cli" extrapolate --ranks "$target" -o "$work/x.tf" "${traces[@]}"

# a line as tokens: the separators of fields and arrays ("=", ",", "[", "]") spaced out
tokens() { sed 's/[]=,[]/ & /g' "$1"; }
# every number of line i of $1 (size s) that differs in line i of $2 (size s+1) continued to the target
extend() {
  awk -v T="$target" -v S="$small" 'NR == FNR { a[FNR] = $0; next }
    { n = split(a[FNR], x, " ")
      if (n != NF) { print "SHAPE " FNR; next }
      out = ""
      for (i = 1; i <= n; i++) {
        v = x[i]
        if (x[i] != $i && x[i] ~ /^-?[0-9]+$/ && $i ~ /^-?[0-9]+$/) v = sprintf("%.0f", x[i] + ($i - x[i]) * (T - S))
        out = out (i > 1 ? " " : "") v
      }
      print out }' <(tokens "$1") <(tokens "$2")
}

# read: under the timeout, else fail naming the reader
read_x() {
  local what=$1
  shift
  timeout "$limit" "$cli" "$@" >"$work/$what" 2>"$work/$what.err" ||
    { cat "$work/$what.err" >&2; fail "tracefold $* failed or took more than $limit s on $target ranks"; }
}

for pair in "last $((small - 1)) $big $((target - 1))" "one 1 1 1"; do
  read -r tag rs rb rt <<<"$pair"
  "$cli" unroll --no-time --rank "$rs" "$work/t$small/trace.tf" >"$work/s.$tag" || fail "unroll of the recorded trace failed"
  "$cli" unroll --no-time --rank "$((rb == big ? big - 1 : rb))" "$work/t$big/trace.tf" >"$work/b.$tag" ||
    fail "unroll of the recorded trace failed"
  extend "$work/s.$tag" "$work/b.$tag" >"$work/want.$tag"
  read_x "x.$tag" unroll --no-time --rank "$rt" "$work/x.tf"
  [ -s "$work/want.$tag" ] || fail "no events expected for rank $rt"
  tokens "$work/x.$tag" | tr -s ' ' | sed 's/ $//' >"$work/got.$tag"
  diff "$work/want.$tag" "$work/got.$tag" >"$work/d.$tag" ||
    { head -10 "$work/d.$tag" >&2; fail "rank $rt of $target: events differ from the rule taken from sizes $small and $big"; }
done

events() { awk '$1 == "events:" { print $2 }' "$1"; }
"$cli" stats "$work/t$small/trace.tf" >"$work/s.stats" || fail "stats of the recorded trace failed"
"$cli" stats "$work/t$big/trace.tf" >"$work/b.stats" || fail "stats of the recorded trace failed"
want=$(($(events "$work/s.stats") + ($(events "$work/b.stats") - $(events "$work/s.stats")) * (target - small)))
read_x stats stats "$work/x.tf"
[ "$(events "$work/stats")" = "$want" ] || fail "stats: $(events "$work/stats") events on $target ranks, expected $want"
grep -q "^ranks: *$target of $target" "$work/stats" || fail "stats does not say $target ranks"
read_x show show "$work/x.tf"
grep -q "^$target of $target ranks, $want events" "$work/show" || fail "show: $(head -1 "$work/show")"
read_x show1 show --rank "$((target - 1))" "$work/x.tf"
say "$name: ${inputs// /,} -> $target ranks ($(wc -c <"$work/x.tf") bytes): the last rank and rank 1 unroll as the" \
  "rule from sizes $small and $big says, $want events"
