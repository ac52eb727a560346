#!/usr/bin/env bash
# fortran_cost.sh — a Fortran workload traced runs at most FACTOR times as long
# as untraced (test mpi.fortran_cost).
#
# The workload times its own loop and prints on stderr (rank 0)
#   <name>: loop <seconds> s
# (workloads/fcg.f90). The script runs it ROUNDS times untraced and ROUNDS
# times traced (LD_PRELOAD=LIB, the recorder's defaults, the trace in a
# temporary directory), interleaved U T, T U, U T, ... so that drift in the
# machine's load hits both alike, and compares the best (shortest) loop of
# each side: a noisy, shared machine only ever makes runs slower, so the
# minimum is the least disturbed figure. Fails if best traced > FACTOR x best
# untraced, naming every run's time; but before failing it runs more rounds,
# up to MAX rounds in all (a burst of load can slow all of three runs; a
# recorder that is slower stays slower).
#
# usage: fortran_cost.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD [--np P] [--rounds R]
#                        [--max-rounds MAX] [--factor F] -- PROGRAM [ARGS...]
set -euo pipefail

np=2
rounds=3
max_rounds=6
factor=2
while [ $# -gt 0 ]; do
  case "$1" in
    --mpirun) mpirun=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --max-rounds) max_rounds=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "fortran_cost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
prog=("$@")
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_TIMING TRACEFOLD_VOLUME TRACEFOLD_MEMORY TRACEFOLD_BINS

work=$(mktemp -d "${TMPDIR:-/tmp}/tf-fcost.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

loop_time() { # stderr file -> seconds
  sed -n 's/^[^:]*: loop \([0-9.]*\) s$/\1/p' "$1" | head -1
}

run() { # untraced|traced round -> appends "kind seconds" to $work/times
  local kind=$1 r=$2 out=$work/$1.$2
  if [ "$kind" = untraced ]; then
    # shellcheck disable=SC2086
    $mpirun -np "$np" "${prog[@]}" >"$out.out" 2>"$out.err" || { cat "$out.err" >&2; fail "untraced run exited non-zero"; }
  else
    # shellcheck disable=SC2086
    $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$work/trace.$r" "${prog[@]}" >"$out.out" 2>"$out.err" ||
      { cat "$out.err" >&2; fail "traced run exited non-zero"; }
    [ -f "$work/trace.$r/trace.tf" ] || { cat "$out.err" >&2; fail "the traced run wrote no trace"; }
    rm -rf "$work/trace.$r"
  fi
  local t
  t=$(loop_time "$out.err")
  [ -n "$t" ] || { cat "$out.err" >&2; fail "no '<name>: loop <seconds> s' line from the $kind run"; }
  echo "$kind $t" >>"$work/times"
}

: >"$work/times"
compare() { # -> bu bt ratio ok
  awk -v f="$factor" '
    $1 == "untraced" && (u == "" || $2 < u) { u = $2 }
    $1 == "traced" && (t == "" || $2 < t) { t = $2 }
    END { r = u > 0 ? t / u : 1e9; printf "%s %s %.2f %d\n", u, t, r, r <= f }' "$work/times"
}
r=0
while :; do
  r=$((r + 1))
  if ((r % 2)); then run untraced "$r"; run traced "$r"; else run traced "$r"; run untraced "$r"; fi
  ((r < rounds)) && continue
  read -r bu bt ratio ok < <(compare)
  [[ $ok == 1 || $r -ge $max_rounds ]] && break
done

untraced=$(awk '$1 == "untraced" {print $2}' "$work/times" | tr '\n' ' ')
traced=$(awk '$1 == "traced" {print $2}' "$work/times" | tr '\n' ' ')
msg="$(basename "${prog[0]}") ${prog[*]:1} np=$np: best loop untraced ${bu} s, traced ${bt} s, ratio ${ratio}"
msg+=" (limit ${factor}); $r rounds: untraced ${untraced}; traced ${traced}"
[ "$ok" = 1 ] || fail "$msg"
echo "ok: $msg"
