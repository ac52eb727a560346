#!/usr/bin/env bash
# export_otf2.sh — `tracefold export otf2`: every trace of the export_traces
# fixture (every workload at 4 ranks, stencil2d at 1) is exported and read
# back with otf2-print, which must accept it; otf2_check.py then compares
# the archive with the trace: Enter/Leave per region and rank = the trace's
# calls per function (`tracefold counts`), point-to-point and collective
# events per rank = the trace's, every send matches a receive. One trace is
# also exported from its flat files (--flat: the properties say the
# timestamps are exact). Then the verb's refusals.
#
# usage: export_otf2.sh --cli TRACEFOLD --traces DIR
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "cli traces" "$@"
command -v otf2-print >/dev/null || fail "otf2-print not found (Debian otf2-tools; scripts/setup.sh installs it)"
tf_workdir otf2
here=$(dirname "${BASH_SOURCE[0]}")

check() { # TRACE NAME [EXPORT OPTIONS...]
  local trace=$1 name=$2
  shift 2
  local out="$work/$name.otf2" t0 t1 np
  t0=$(date +%s.%N)
  "$cli" export otf2 "$@" "$trace" "$out" >"$work/$name.export" 2>&1 ||
    { cat "$work/$name.export" >&2; fail "$name: export otf2 failed"; }
  t1=$(date +%s.%N)
  [ -f "$out/traces.otf2" ] && [ -f "$out/traces.def" ] || fail "$name: no traces.otf2 / traces.def in $out"
  otf2-print -G "$out/traces.otf2" >"$work/$name.defs" 2>"$work/$name.print.err" ||
    { cat "$work/$name.print.err" >&2; fail "$name: otf2-print -G rejects the archive"; }
  otf2-print "$out/traces.otf2" >"$work/$name.events" 2>>"$work/$name.print.err" ||
    { cat "$work/$name.print.err" >&2; fail "$name: otf2-print rejects the archive"; }
  [ ! -s "$work/$name.print.err" ] || { cat "$work/$name.print.err" >&2; fail "$name: otf2-print complained"; }
  "$cli" unroll --no-time "$trace" >"$work/$name.unroll"
  np=$(awk '{ print $1 }' "$work/$name.unroll" | sort -un | wc -l)
  for r in $(seq 0 $((np - 1))); do "$cli" counts --rank "$r" "$trace" >"$work/$name.counts.$r"; done
  local res
  res=$(python3 "$here/otf2_check.py" "$work/$name.defs" "$work/$name.events" "$work/$name.unroll" \
    "$work/$name.counts" "$np") || fail "$name: the archive differs from the trace"
  say "$name: otf2-print reads it; $res; $(du -sk "$out" | cut -f1) KiB," \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
}

n=0
for trace in "$traces"/*.np*; do
  [ -d "$trace" ] || continue
  check "$trace" "$(basename "$trace")"
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "no traces in $traces (the export_traces fixture)"

# from the flat files: exact timestamps, said in the archive's properties
check "$traces/stencil2d.np4" stencil2d.flat --flat
otf2-print -I "$work/stencil2d.flat.otf2/traces.otf2" | grep -A1 "TRACEFOLD::TIMESTAMPS" | grep -q "exact" ||
  fail "stencil2d --flat: the archive's TRACEFOLD::TIMESTAMPS property does not say exact"
otf2-print -I "$work/stencil2d.np4.otf2/traces.otf2" | grep -A1 "TRACEFOLD::TIMESTAMPS" | grep -q "regenerated" ||
  fail "stencil2d: the archive's TRACEFOLD::TIMESTAMPS property does not say regenerated"
say "properties: TRACEFOLD::TIMESTAMPS says exact (--flat) and regenerated (trace.tf)"

# refusals (exit 1: the trace or the output refused; exit 2: the command line), a message, nothing
# written or overwritten
err() { # STATUS WANT_TEXT ARGS...
  local status=$1 want=$2 rc=0
  shift 2
  "$cli" export otf2 "$@" >"$work/err.out" 2>&1 || rc=$?
  [ $rc -eq "$status" ] || fail "tracefold export otf2 $*: status $rc, expected $status: $(cat "$work/err.out")"
  grep -qF -- "$want" "$work/err.out" || fail "tracefold export otf2 $*: no \"$want\" in: $(cat "$work/err.out")"
}
t="$traces/stencil2d.np4"
err 1 "not an empty directory" "$t" "$work/stencil2d.np4.otf2"
err 1 "parent directory does not exist" "$t" "$work/no/such/dir"
err 1 "$work/missing" "$work/missing" "$work/x"
err 2 'unknown option "--bogus" (see tracefold export otf2 --help)' --bogus "$t" "$work/x"
err 2 "give the trace and the output directory" "$t"
err 2 "--progress takes no value" --progress=yes "$t" "$work/x"
[ ! -e "$work/x" ] || fail "a failed export left $work/x"
"$cli" export otf2 "$t" --help | grep -q "usage: tracefold export otf2" || fail "export otf2 --help prints no usage"
say "refusals: exit 1 (trace, output) or 2 (command line) with a message; --help answers"
say "OK: $n traces exported as OTF2 and checked with otf2-print"
