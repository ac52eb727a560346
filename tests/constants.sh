#!/usr/bin/env bash
# constants.sh — library-specific MPI constants are recorded as portable
# values (gen/portable.table, doc/RECORDED.md "Portable constants"): the
# trace of tests/constants_program.c at 2 ranks, without call sites (which
# name the binary), equals tests/golden/constants.unroll, the same file
# under MPICH and under Open MPI; and the replay maps the values back to
# this library's constants: the replay runs, and its own trace is the same.
#
# usage: constants.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD TRACEFOLD_REPLAY CONSTANTS_PROGRAM GOLDEN
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 cli=$3 replay=$4 prog=$5 golden=$6
tf_workdir constants
export MPIR_CVAR_POLLS_BEFORE_YIELD=1

unroll() { # DIR OUT: the trace's events without call sites
  "$cli" unroll --no-time "$1" >"$2.raw" || fail "tracefold unroll $1 failed"
  sed 's/ cs=[0-9a-f]*//' "$2.raw" >"$2"
}
tf_traced 2 "$work/t" -- "$prog" >"$work/run.out" 2>&1 || { cat "$work/run.out" >&2; fail "the traced program failed"; }
unroll "$work/t" "$work/t.unroll"
diff -u "$golden" "$work/t.unroll" >&2 || fail "the trace differs from $golden (a constant recorded as this library's value?)"
say "the trace equals $(basename "$golden") ($(wc -l <"$golden") events)"

# shellcheck disable=SC2086
$mpirun -np 2 env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$work/r" "$replay" --compute none "$work/t/trace.tf" \
  >"$work/replay.out" 2>&1 || { cat "$work/replay.out" >&2; fail "the replay failed"; }
unroll "$work/r" "$work/r.unroll"
diff -u "$work/t.unroll" "$work/r.unroll" >&2 || fail "the replay's trace differs from the original"
say "replayed with this library's constants: the replay's trace is the same"
echo "ok: portable constants"
