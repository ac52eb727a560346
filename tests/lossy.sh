#!/usr/bin/env bash
# lossy.sh — a recorder that stops recording says so, and so does every
# verb that reads its trace (README, "Lossy traces"):
#   1. mid-run: rank 0's flat file is /dev/full (a full disk), so its first
#      flush fails. The program's output is unchanged; rank 0 warns once,
#      naming the file and the error; the merged trace.tf is written, with
#      rank 0's calls counted as not recorded. Then every reading verb
#      (stats, show, unroll, dump, summary, counts, time, imbalance) prints
#      a LOSSY line on stderr and exits 3, `stats` also says LOSSY in its
#      report; `dump` of the directory, whose rank 0 has no flat file, is
#      LOSSY too; tracefold-replay and `export smpi` refuse the trace.
#   2. at MPI_Init: rank 0's flat file cannot be created (a directory is in
#      its way): rank 0 records nothing, takes part in the merge, and its
#      calls are counted: `stats` is LOSSY (exit 3), not "0 events" and 0.
#   3. a healthy trace: exit 0, no LOSSY line.
#
# usage: lossy.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD TRACEFOLD_REPLAY WL_RING
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 cli=$3 replay=$4 ring=$5
tf_workdir lossy
np=2

# ---- 1. mid-run: the flat file of rank 0 on a full disk
mkdir "$work/full"
ln -s /dev/full "$work/full/rank-0.flat.part"
# shellcheck disable=SC2086
$mpirun -np $np "$ring" -i 30000 >"$work/plain.out" 2>/dev/null || fail "the untraced run failed"
tf_traced $np "$work/full" TRACEFOLD_MODE=both -- "$ring" -i 30000 >"$work/full.out" 2>"$work/full.err" ||
  { cat "$work/full.err" >&2; fail "the traced run failed (the recorder must never break the program)"; }
cmp -s "$work/plain.out" "$work/full.out" || fail "the output differs when the recorder fails"
grep -q 'rank 0: cannot write .*rank-0.flat: No space left on device; recording stopped' "$work/full.err" ||
  { cat "$work/full.err" >&2; fail "rank 0 did not warn, naming the file and the error"; }
[ "$(grep -c 'recording stopped' "$work/full.err")" -eq 1 ] || fail "more than one 'recording stopped' warning"
[ -f "$work/full/trace.tf" ] || fail "no merged trace.tf"
say "1. rank 0 on a full disk: $(grep -m1 'recording stopped' "$work/full.err" | cut -c1-110)..."

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
t=$work/full/trace.tf
lossy stats stats "$t"
grep -q '^LOSSY: .*calls were not recorded' "$work/stats.out" || bad "the stats report has no LOSSY line"
lossy show show "$t"
lossy unroll unroll --rank 1 "$t"
lossy dump dump "$t"
lossy dumpdir dump "$work/full"
grep -q 'ranks have no file' "$work/dumpdir.err" || bad "dump of the directory does not say rank 0 has no file"
lossy summary summary "$t"
lossy counts counts --rank 1 "$t"
lossy time time 50% "$t"
lossy imbalance imbalance "$t"
say "1. stats, show, unroll, dump (file and directory), summary, counts, time, imbalance: exit 3, LOSSY"
# shellcheck disable=SC2086
timeout 120 $mpirun -np $np "$replay" "$t" >"$work/replay.out" 2>"$work/replay.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'a lossy trace' "$work/replay.err" ||
  bad "tracefold-replay did not refuse the lossy trace (exit $rc): $(head -3 "$work/replay.err")"
"$cli" export smpi "$t" "$work/ti" >"$work/export.out" 2>&1 && bad "export smpi accepted the lossy trace"
grep -q 'lost calls' "$work/export.out" || bad "export smpi does not say why it refuses: $(head -3 "$work/export.out")"
say "1. tracefold-replay and export smpi refuse it"

# ---- 2. at MPI_Init: rank 0 cannot create its flat file
mkdir -p "$work/init/rank-0.flat.part"
tf_traced $np "$work/init" TRACEFOLD_MODE=both -- "$ring" -i 20 >"$work/init.out" 2>"$work/init.err" ||
  { cat "$work/init.err" >&2; fail "the traced run (flat file blocked) failed"; }
grep -q 'rank 0: .*rank-0.flat: cannot create' "$work/init.err" || bad "rank 0 did not say it cannot create its file"
[ -f "$work/init/trace.tf" ] || fail "no merged trace.tf when rank 0 recorded nothing"
lossy initstats stats "$work/init/trace.tf"
grep -q '^ranks: *2 of 2' "$work/initstats.out" || bad "rank 0 is not in the merged trace: $(cat "$work/initstats.out")"
say "2. rank 0 failing at MPI_Init: stats exit 3, $(grep -m1 '^LOSSY' "$work/initstats.out")"

# ---- 3. a healthy trace
tf_traced $np "$work/ok" -- "$ring" -i 20 >/dev/null 2>&1 || fail "the healthy traced run failed"
"$cli" stats "$work/ok/trace.tf" >"$work/ok.out" 2>"$work/ok.err" || bad "stats of a healthy trace: exit $?"
grep -q LOSSY "$work/ok.out" "$work/ok.err" && bad "a healthy trace is reported LOSSY"
say "3. a healthy trace: exit 0, no LOSSY"

[ $tf_nbad -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
echo "ok: lossy traces are reported by the recorder and every verb"
