#!/usr/bin/env bash
# make_regressions.sh — the hostile inputs of issue 16 as fuzz regression
# inputs (tests/fuzz/regressions/), made from real traces of wl_ring:
#
#   forged-nranks.tf          INFO says 100,000 ranks (4 present), checksums valid
#   wrong-ranks-count.tf      RANKS: rank 2 declares one event more than it has
#   wrong-ranks-count-neg.tf  RANKS: rank 1 one fewer
#   mixed-runs.small.tfc      four per-rank files, ranks 0-1 of one run, 2-3 of
#   mixed-runs.small.flat     another (same program, same rank count)
#   truncated-part.tfc        a per-rank file cut in the middle (what a rank
#                             killed while writing leaves as rank-R.tfc.part)
#   checkpoints.tfc           the four checkpoints of a run killed by SIGKILL
#   checkpoints-merged.tf     `tracefold merge` of them (per-rank partial reasons)
#   v2-trace.tf, v2-rank.flat version-2 files, when OLD_BUILD names a build of a
#                             tracefold that wrote version 2 (optional)
#
# usage: tests/fuzz/make_regressions.sh BUILD_DIR [OUT_DIR]   (OUT_DIR: tests/fuzz/regressions)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: make_regressions.sh BUILD_DIR [OUT_DIR]}" && pwd)
out=${2:-$here/regressions}
mpirun=${MPIRUN:-mpirun.mpich}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
lib=$build/src/recorder/libtracefold.so cli=$build/src/cli/tracefold ring=$build/workloads/wl_ring
forge=$build/tests/forge_trace seeds=$build/tests/make_seeds
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-regr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
traced() { # DIR LIB [VAR=VALUE...]: wl_ring at 4 ranks traced into DIR
  local dir=$1 l=$2
  shift 2
  $mpirun -np 4 env LD_PRELOAD="$l" TRACEFOLD_OUTPUT="$dir" "$@" "$ring" -i 12 >/dev/null
}
traced "$tmp/a" "$lib" TRACEFOLD_MODE=both
traced "$tmp/b" "$lib" TRACEFOLD_MODE=both
"$forge" nranks 100000 "$tmp/a/trace.tf" "$out/forged-nranks.tf"
"$forge" nevents 2 1 "$tmp/a/trace.tf" "$out/wrong-ranks-count.tf"
"$forge" nevents 1 -1 "$tmp/a/trace.tf" "$out/wrong-ranks-count-neg.tf"
"$seeds" ranks "$tmp/mixed" 16384 "$tmp/a/rank-0.flat" "$tmp/a/rank-1.flat" "$tmp/b/rank-2.flat" "$tmp/b/rank-3.flat"
cat "$tmp"/mixed-rank-{0,1,2,3}.small.tfc >"$out/mixed-runs.small.tfc"
cat "$tmp"/mixed-rank-{0,1,2,3}.small.flat >"$out/mixed-runs.small.flat"
size=$(stat -c %s "$tmp/mixed-rank-1.small.tfc")
head -c $((size / 2)) "$tmp/mixed-rank-1.small.tfc" >"$out/truncated-part.tfc"
# a run killed by SIGKILL while it runs: every rank keeps its last checkpoint
$mpirun -np 4 env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/k" TRACEFOLD_CHECKPOINT=100ms "$ring" -i 100000000 \
  >/dev/null 2>&1 &
job=$!
for ((k = 0; k < 300; k++)); do [ -f "$tmp/k/rank-3.tfc" ] && break; sleep 0.1; done
sleep 0.5
kill -KILL $job
wait $job 2>/dev/null || true
pkill -KILL -f "$tmp/k" 2>/dev/null || true
cat "$tmp"/k/rank-{0,1,2,3}.tfc >"$out/checkpoints.tfc"
"$cli" merge "$tmp/k" -o "$out/checkpoints-merged.tf" >/dev/null
if [ -n "${OLD_BUILD:-}" ]; then
  traced "$tmp/old" "$OLD_BUILD/src/recorder/libtracefold.so" TRACEFOLD_MODE=both
  cp "$tmp/old/trace.tf" "$out/v2-trace.tf"
  cp "$tmp/old/rank-1.flat" "$out/v2-rank.flat"
fi
ls -l "$out"
