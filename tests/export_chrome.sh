#!/usr/bin/env bash
# export_chrome.sh — `tracefold export chrome`: every trace of the
# export_traces fixture (every workload at 4 ranks, stencil2d at 1) is
# exported; chrome_check.py loads it with Python's json module and checks
# it against the Trace Event Format's documented fields (phases X, M, s/f
# with bp=e, pid/tid, ts/dur in us), one start and one finish per flow id,
# each inside an MPI slice, MPI slices per rank and function = the trace's
# calls (`tracefold counts`), arrows = the trace's messages. Then the
# window options on stencil2d: --ranks, --from/--to in seconds and in
# percent (every slice overlaps the window, fewer slices than the whole),
# and the refusals.
#
# usage: export_chrome.sh --cli TRACEFOLD --traces DIR
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "cli traces" "$@"
tf_workdir chrome
here=$(dirname "${BASH_SOURCE[0]}")

prepare() { # TRACE NAME: unroll and counts
  "$cli" unroll --no-time "$1" >"$work/$2.unroll"
  np=$(awk '{ print $1 }' "$work/$2.unroll" | sort -un | wc -l)
  for r in $(seq 0 $((np - 1))); do "$cli" counts --rank "$r" "$1" >"$work/$2.counts.$r"; done
}

n=0
for trace in "$traces"/*.np*; do
  [ -d "$trace" ] || continue
  name=$(basename "$trace")
  prepare "$trace" "$name"
  t0=$(date +%s.%N)
  "$cli" export chrome "$trace" "$work/$name.json" >"$work/$name.export" 2>&1 ||
    { cat "$work/$name.export" >&2; fail "$name: export chrome failed"; }
  t1=$(date +%s.%N)
  res=$(python3 "$here/chrome_check.py" "$work/$name.json" "$work/$name.unroll" "$work/$name.counts" "$np") ||
    fail "$name: the JSON file is not what the format and the trace say"
  say "$name: $res; $(du -k "$work/$name.json" | cut -f1) KiB, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "no traces in $traces (the export_traces fixture)"

# ---- windows, on stencil2d at 4 ranks
t="$traces/stencil2d.np4"
prepare "$t" win
full=$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"))' \
  "$work/stencil2d.np4.json")
slices() { python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"))' "$1"; }
"$cli" export chrome --ranks 1,2 "$t" "$work/r12.json" >/dev/null
python3 "$here/chrome_check.py" "$work/r12.json" "$work/win.unroll" "$work/win.counts" 4 --ranks 1,2 >/dev/null ||
  fail "--ranks 1,2: the file is not what it should be"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(0 if {e["pid"] for e in d} == {1, 2} else 1)' \
  "$work/r12.json" || fail "--ranks 1,2: events of other ranks"
say "--ranks 1,2: ranks 1 and 2 only, $(slices "$work/r12.json") of $full slices, arrows between them only"
# the time window: percent of the trace's length, then the same in seconds
"$cli" export chrome --from 40% --to 60% "$t" "$work/pct.json" >/dev/null
end_ns=$(python3 -c 'import json,sys; print(int(max(e["ts"] + e["dur"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X") * 1000))' \
  "$work/stencil2d.np4.json")
from=$((end_ns * 40 / 100)) to=$((end_ns * 60 / 100))
python3 "$here/chrome_check.py" "$work/pct.json" "$work/win.unroll" "$work/win.counts" 4 --from $from --to $to >/dev/null ||
  fail "--from 40% --to 60%: slices outside the window [$from, $to] ns"
w=$(slices "$work/pct.json")
[ "$w" -gt 0 ] && [ "$w" -lt "$full" ] || fail "--from 40% --to 60%: $w slices of $full"
"$cli" export chrome --from "${from}ns" --to "${to}ns" "$t" "$work/sec.json" >/dev/null
python3 "$here/chrome_check.py" "$work/sec.json" "$work/win.unroll" "$work/win.counts" 4 --from $from --to $to >/dev/null ||
  fail "--from ${from}ns --to ${to}ns: slices outside the window"
[ "$(slices "$work/sec.json")" -eq "$w" ] || fail "the window in ns and in percent differ: $(slices "$work/sec.json") vs $w slices"
"$cli" export chrome --from 0% --to 100% "$t" "$work/all.json" >/dev/null
[ "$(slices "$work/all.json")" -eq "$full" ] || fail "--from 0% --to 100%: $(slices "$work/all.json") slices, not $full"
say "--from 40% --to 60%: $w of $full slices, all in [$from, $to] ns; the same in ns; 0%..100% = all"

# ---- progress: nothing on a non-terminal stderr, a line rewritten with \r with --progress
"$cli" export chrome "$t" "$work/p.json" >/dev/null 2>"$work/p.err"
! grep -q "%" "$work/p.err" || fail "a progress line on a stderr that is not a terminal: $(cat "$work/p.err")"
"$cli" export chrome --progress "$t" "$work/p.json" >/dev/null 2>"$work/p.err"
grep -q $'\r'"tracefold export chrome: 100.0% ($(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1])))' "$work/win.unroll") of" "$work/p.err" ||
  fail "--progress: no final progress line: $(tr '\r' '|' <"$work/p.err")"
say "progress: none when stderr is not a terminal, a \\r line up to 100% with --progress"

# ---- refusals
err() { # STATUS WANT_TEXT ARGS...: exit 1 (the trace or the output refused) or 2 (the command line)
  local status=$1 want=$2 rc=0
  shift 2
  "$cli" export chrome "$@" >"$work/err.out" 2>&1 || rc=$?
  [ $rc -eq "$status" ] || fail "tracefold export chrome $*: status $rc, expected $status: $(cat "$work/err.out")"
  grep -qF -- "$want" "$work/err.out" || fail "tracefold export chrome $*: no \"$want\" in: $(cat "$work/err.out")"
}
err 2 "--ranks x: expected ranks and ranges" --ranks x "$t" "$work/x.json"
err 1 "rank 7 is not in the trace" --ranks 7 "$t" "$work/x.json"
err 2 "--from soon: expected seconds" --from soon "$t" "$work/x.json"
err 2 "--to 1parsec: expected seconds" "$t" "$work/x.json" --to=1parsec
err 1 "ends (--to) before it starts" --from 60% --to 40% "$t" "$work/x.json"
err 1 "parent directory does not exist" "$t" "$work/no/such.json"
err 2 'unknown option "--bogus" (see tracefold export chrome --help)' --bogus "$t" "$work/x.json"
err 2 "--ranks needs a value" "$t" "$work/x.json" --ranks
[ ! -e "$work/x.json" ] || fail "a failed export left $work/x.json"
! compgen -G "$work/x.json.tmp-*" >/dev/null || fail "a failed export left a temporary file"
"$cli" export chrome -h | grep -q "usage: tracefold export chrome" || fail "export chrome -h prints no usage"
say "refusals: exit 1 (trace, output) or 2 (command line) with a message, nothing written; -h answers"
say "OK: $n traces exported as Chrome trace-event JSON and checked"
