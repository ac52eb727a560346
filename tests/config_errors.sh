#!/usr/bin/env bash
# config_errors.sh — TRACEFOLD_* settings: a bad value or an unknown variable
# stops the run at MPI_Init with one line naming the variable, the value and
# what is accepted (never a run that silently goes untraced); the default
# output name never overwrites an earlier trace; the default mode writes the
# compressed trace only.
#
# usage: config_errors.sh "MPIRUN ARGS" LIBTRACEFOLD PROGRAM
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 prog=$3
tf_workdir cfg
cd "$work"

expect_stop() { # VAR=VALUE  expected-substring
  local setting=$1 want=$2 rc=0
  tf_traced 2 "" "$setting" -- "$prog" >out 2>err || rc=$?
  [ "$rc" -ne 0 ] || fail "$setting: the run was not stopped"
  grep -q "$want" err || { cat err >&2; fail "$setting: message lacks '$want'"; }
  [ "$(grep -c '^tracefold:' err)" -eq 1 ] || { cat err >&2; fail "$setting: expected exactly one tracefold line"; }
  ! grep -q '^checksum' out || fail "$setting: the program ran on"
  echo "ok: $setting stops the run: $(grep '^tracefold:' err)"
}
expect_stop TRACEFOLD_MODE=bogus 'TRACEFOLD_MODE="bogus" is not valid; accepted: compressed, flat, both, off'
expect_stop TRACEFOLD_MODEE=flat 'unknown variable TRACEFOLD_MODEE'
expect_stop TRACEFOLD_OUTPUT= 'TRACEFOLD_OUTPUT is empty'
expect_stop TRACEFOLD_MEMORY=lots 'TRACEFOLD_MEMORY="lots" is not valid'
expect_stop TRACEFOLD_MEMORY=64Q 'TRACEFOLD_MEMORY="64Q" is not valid'
expect_stop TRACEFOLD_MEMORY=100 'TRACEFOLD_MEMORY="100" is not valid; accepted: a size of at least 4096 bytes'
expect_stop TRACEFOLD_CHECKPOINT=often 'TRACEFOLD_CHECKPOINT="often" is not valid; accepted: off, or an interval from 10ms'
expect_stop TRACEFOLD_CHECKPOINT=1ms 'TRACEFOLD_CHECKPOINT="1ms" is not valid'
expect_stop TRACEFOLD_CHECKPOINT=10h 'TRACEFOLD_CHECKPOINT="10h" is not valid'
expect_stop TRACEFOLD_VERBOSE=yes 'TRACEFOLD_VERBOSE="yes" is not valid; accepted: 0, 1'
expect_stop TRACEFOLD_CST_GUIDE=on 'TRACEFOLD_CST_GUIDE="on" is not valid; accepted: 0, 1'
expect_stop TRACEFOLD_FLATRUN=yes 'TRACEFOLD_FLATRUN="yes" is not valid; accepted: off, on, or a window of 64 to'
expect_stop TRACEFOLD_FLATRUN=32 'TRACEFOLD_FLATRUN="32" is not valid'
expect_stop TRACEFOLD_FLATRUN=32M 'TRACEFOLD_FLATRUN="32M" is not valid'

# the tracefold command's own variables are known, and leave the run alone
tf_traced 2 cmdvars TRACEFOLD_MPIRUN=mpirun TRACEFOLD_CHECKPOINT=500ms TRACEFOLD_VERBOSE=0 -- "$prog" >out 2>err ||
  { cat err >&2; fail "TRACEFOLD_MPIRUN (a variable of the tracefold command) stopped the run"; }
[ -f cmdvars/trace.tf ] || fail "no trace with TRACEFOLD_MPIRUN, TRACEFOLD_CHECKPOINT and TRACEFOLD_VERBOSE set"
echo "ok: TRACEFOLD_MPIRUN is accepted and ignored; TRACEFOLD_CHECKPOINT=500ms, TRACEFOLD_VERBOSE=0 accepted"

# default names: two runs in one directory give two traces
for i in 1 2; do
  tf_traced 2 "" -- "$prog" >"out$i" 2>/dev/null || fail "default-name run $i failed"
done
n=$(find . -maxdepth 1 -type d -name 'tracefold-*-2p*' | wc -l)
[ "$n" -eq 2 ] || { ls >&2; fail "expected 2 distinct default trace directories, found $n"; }
echo "ok: default output names are never reused ($(find . -maxdepth 1 -type d -name 'tracefold-*' -printf '%f ' ))"
d=$(find . -maxdepth 1 -type d -name 'tracefold-*-2p' | head -1)
[ -f "$d/trace.tf" ] && [ "$(find "$d" -type f | wc -l)" -eq 1 ] ||
  { ls "$d" >&2; fail "the default mode should write one merged trace.tf only"; }
echo "ok: the default mode writes the compressed trace"

# TRACEFOLD_MODE=off: no trace, same output
tf_traced 2 offtrace TRACEFOLD_MODE=off -- "$prog" >out3 2>/dev/null
[ ! -e offtrace ] || fail "TRACEFOLD_MODE=off wrote a trace"
cmp -s out1 out3 || fail "output differs with TRACEFOLD_MODE=off"
echo "ok: TRACEFOLD_MODE=off records nothing"
