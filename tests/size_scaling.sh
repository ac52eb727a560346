#!/usr/bin/env bash
# size_scaling.sh — the merged trace of a regular workload stays nearly the
# same size as ranks grow: the file at P2 ranks is at most BOUND times the
# file at P1 ranks. Sizes come from the workload tests of the same ctest
# run (run_workload.sh --sizes DIR), which also checked those traces
# lossless.
#
# usage: size_scaling.sh SIZES_DIR PROGRAM P1 P2 BOUND
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
dir=$1 prog=$2 p1=$3 p2=$4 bound=$5
for p in "$p1" "$p2"; do
  [ -s "$dir/$prog.np$p" ] || fail "no size for $prog at $p ranks (did wl test at np$p run and pass?)"
done
s1=$(cat "$dir/$prog.np$p1") s2=$(cat "$dir/$prog.np$p2")
ratio=$(awk -v a="$s2" -v b="$s1" 'BEGIN {printf "%.3f", a / b}')
awk -v r="$ratio" -v b="$bound" 'BEGIN {exit !(r <= b)}' ||
  fail "$prog: trace.tf is $s2 bytes at $p2 ranks, $s1 at $p1 ranks: ratio $ratio > $bound"
echo "ok: $prog: trace.tf $s1 bytes at $p1 ranks, $s2 at $p2 ranks (ratio $ratio <= $bound)"
