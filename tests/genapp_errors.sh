#!/usr/bin/env bash
# genapp_errors.sh — `tracefold genapp` and its programs on bad input: a
# wrong command line exits 2, a missing trace or an unwritable output 1
# (leaving no file), each with a message naming the option, file or
# problem; a generated program run on another rank count than its trace's
# stops at MPI_Init, naming both counts.
#
# usage: genapp_errors.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --cli TRACEFOLD --mpicc MPICC -- RING
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib cli mpicc --:prog" "$@"
tf_workdir genapp-errors
tf_nbad=0
np=2
tf_record "$work/rec" "$work/trace" -- "${prog[@]}" -i 3

# expect STATUS PATTERN ARGS...: tracefold genapp ARGS exits STATUS with PATTERN on stderr
expect() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$cli" genapp "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq "$want" ] || bad "genapp $*: exit $rc, expected $want"
  grep -q -- "$pattern" "$work/err" || { cat "$work/err" >&2; bad "genapp $*: no \"$pattern\" in its message"; }
}
expect 2 "no trace\|usage\|argument" 
expect 2 "--compute fast" --compute fast "$work/trace"
expect 2 "--scale -1" --scale -1 "$work/trace"
expect 2 "--scale x" --scale x "$work/trace"
expect 2 "unknown option" --frobnicate "$work/trace"
expect 1 "$work/none" "$work/none"
expect 1 "cannot write" -o "$work/no/such/dir/app.c" "$work/trace"
[ ! -e "$work/no/such/dir/app.c" ] || bad "a file was left behind"

"$cli" genapp -o "$work/app.c" "$work/trace" 2>"$work/err" || { cat "$work/err" >&2; fail "genapp failed"; }
$mpicc -std=c11 -Wall -Wextra -Werror -o "$work/app" "$work/app.c" || fail "the program does not build"
# shellcheck disable=SC2086 # $mpirun is a command line
if $mpirun -np 1 "$work/app" >"$work/run.out" 2>&1; then
  bad "the 2-rank program ran on 1 rank"
fi
grep -q "trace of 2 ranks.*not 1" "$work/run.out" || { cat "$work/run.out" >&2; bad "no message naming the rank counts"; }
[ "$tf_nbad" -eq 0 ] || fail "$tf_nbad checks failed"
say "bad command lines, a missing trace, an unwritable output and a wrong rank count: refused with their messages"
