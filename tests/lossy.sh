#!/usr/bin/env bash
# lossy.sh — a recorder that stops recording says so, and so does every
# verb that reads its trace (README, "Lossy traces"):
#   1. mid-run, TRACEFOLD_MODE=flat: rank 0's flat file is /dev/full (a full
#      disk), so its first flush fails. The program's output is unchanged;
#      one warning for the job names the error; rank 0 leaves no file (no
#      half-written file), so the directory is lossy: `dump` and `stats` of
#      it print a LOSSY line and exit 3.
#   2. a merged trace in which a rank lost calls (its recorder stopped after
#      an internal failure such as memory running out; forged here from a
#      real trace with forge_trace, every checksum valid): every reading verb
#      (stats, show, unroll, dump, summary, counts, time, imbalance) prints a
#      LOSSY line on stderr and exits 3, `stats` also says LOSSY in its
#      report; tracefold-replay and `export smpi` refuse the trace.
#   3. a healthy trace: exit 0, no LOSSY line.
#
# usage: lossy.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD TRACEFOLD_REPLAY WL_RING FORGE_TRACE
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 cli=$3 replay=$4 ring=$5 forge=$6
tf_workdir lossy
np=2

# ---- 1. mid-run, flat mode: the flat file of rank 0 on a full disk
mkdir "$work/full"
ln -s /dev/full "$work/full/rank-0.flat.part"
# shellcheck disable=SC2086
$mpirun -np $np "$ring" -i 30000 >"$work/plain.out" 2>/dev/null || fail "the untraced run failed"
tf_traced $np "$work/full" TRACEFOLD_MODE=flat -- "$ring" -i 30000 >"$work/full.out" 2>"$work/full.err" ||
  { cat "$work/full.err" >&2; fail "the traced run failed (the recorder must never break the program)"; }
cmp -s "$work/plain.out" "$work/full.out" || fail "the output differs when the recorder fails"
grep -q 'could not be written on 1 of 2 ranks.*No space left on device' "$work/full.err" ||
  { cat "$work/full.err" >&2; fail "no warning naming the failed files and the error"; }
[ "$(grep -c 'tracefold: warning' "$work/full.err")" -eq 1 ] || fail "more than one warning for the job"
[ -e "$work/full/rank-0.flat" ] && fail "rank 0 left a half-written flat file"
say "1. rank 0 on a full disk: $(grep -m1 'could not be written' "$work/full.err" | cut -c1-110)..."

# lossy NAME ARGS...: tracefold ARGS exits 3 with a LOSSY line on stderr
lossy() {
  local name=$1
  shift
  "$cli" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  if [ $rc -ne 3 ]; then
    bad "tracefold $*: exit $rc, expected 3 (lossy): $(head -3 "$work/$name.err")"
  elif ! grep -q '^tracefold: LOSSY: ' "$work/$name.err"; then
    bad "tracefold $*: exit 3 but no LOSSY line on stderr"
  fi
}
lossy dumpdir dump "$work/full"
grep -q 'ranks have no file' "$work/dumpdir.err" || bad "dump of the directory does not say rank 0 has no file"
lossy statsdir stats "$work/full"
say "1. dump and stats of the directory: exit 3, LOSSY"

# ---- 2. a merged trace whose rank 0 lost calls
tf_traced $np "$work/lost" -- "$ring" -i 50 >/dev/null 2>&1 || fail "the traced run failed"
"$forge" lost 0 33005 "$work/lost/trace.tf" "$work/lost.tf" || fail "forge_trace lost failed"
t=$work/lost.tf
lossy stats stats "$t"
grep -q '^LOSSY: .*calls were not recorded' "$work/stats.out" || bad "the stats report has no LOSSY line"
lossy show show "$t"
lossy unroll unroll --rank 1 "$t"
lossy dump dump "$t"
lossy summary summary "$t"
lossy counts counts --rank 1 "$t"
lossy time time 50% "$t"
lossy imbalance imbalance "$t"
say "2. stats, show, unroll, dump, summary, counts, time, imbalance: exit 3, LOSSY"
# shellcheck disable=SC2086
timeout 120 $mpirun -np $np "$replay" "$t" >"$work/replay.out" 2>"$work/replay.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'a lossy trace' "$work/replay.err" ||
  bad "tracefold-replay did not refuse the lossy trace (exit $rc): $(head -3 "$work/replay.err")"
"$cli" export smpi "$t" "$work/ti" >"$work/export.out" 2>&1 && bad "export smpi accepted the lossy trace"
grep -q 'lost calls' "$work/export.out" || bad "export smpi does not say why it refuses: $(head -3 "$work/export.out")"
say "2. tracefold-replay and export smpi refuse it"

# ---- 3. a healthy trace
tf_traced $np "$work/ok" -- "$ring" -i 20 >/dev/null 2>&1 || fail "the healthy traced run failed"
"$cli" stats "$work/ok/trace.tf" >"$work/ok.out" 2>"$work/ok.err" || bad "stats of a healthy trace: exit $?"
grep -q LOSSY "$work/ok.out" "$work/ok.err" && bad "a healthy trace is reported LOSSY"
say "3. a healthy trace: exit 0, no LOSSY"

[ $tf_nbad -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
echo "ok: lossy traces are reported by the recorder and every verb"
