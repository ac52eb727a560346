#!/usr/bin/env bash
# compat_v2.sh — readers keep reading version-2 traces (doc/FORMAT.md,
# "Versioning"): the merged traces in tests/data/v2, recorded by the last
# build that wrote version 2, unroll (events and times) exactly as that
# build unrolled them; the per-rank compressed files of a partial run unroll
# to the same events (their times now differ: merged when read, each rank
# keeps its own summaries where they differ, doc/TIMING.md "Rank groups",
# where the version-2 reader pooled them); `show`, `stats` and `imbalance`
# read them all.
#
# The same checks read the version-5 traces of tests/data/v5 (every *.tf
# there; unit.compat_v5), written before the container of version 6.
#
# usage: compat_v2.sh TRACEFOLD DATA_DIR
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli=$1 data=$2
tf_workdir compat
traces=()
for t in "$data"/*.tf "$data"/abort; do [ -e "$t" ] && traces+=("${t##*/}"); done
[ ${#traces[@]} -gt 0 ] || fail "no traces in $data"
for t in "${traces[@]}"; do
  name=${t%.tf}
  "$cli" unroll "$data/$t" >"$work/$name.unroll" 2>"$work/$name.err" || fail "$t: tracefold unroll failed: $(cat "$work/$name.err")"
  if [ "$t" = abort ]; then # events only
    sed -E 's/ compute=[0-9]+ dur=[0-9]+//' "$work/$name.unroll" >"$work/$name.events"
    sed -E 's/ compute=[0-9]+ dur=[0-9]+//' "$data/$name.unroll" >"$work/$name.expected"
    cmp -s "$work/$name.expected" "$work/$name.events" || {
      diff "$work/$name.expected" "$work/$name.events" | head -10 >&2
      fail "$t: tracefold unroll gives other events than the build that wrote it"
    }
  else
    cmp -s "$data/$name.unroll" "$work/$name.unroll" || {
      diff "$data/$name.unroll" "$work/$name.unroll" | head -10 >&2
      fail "$t: tracefold unroll differs from what the build that wrote it printed"
    }
  fi
  for verb in show stats imbalance; do
    "$cli" "$verb" "$data/$t" >"$work/$name.$verb" 2>&1 || fail "$t: tracefold $verb failed: $(tail -2 "$work/$name.$verb")"
  done
done
grep -q "slowest rank" "$work/timed.imbalance" || fail "timed.tf: tracefold imbalance names no slowest rank"
echo "ok: the traces of ${data##*/} (${traces[*]}) unroll as recorded (per-rank files: the same events); show, stats and imbalance read them"
