#!/usr/bin/env bash
# cli.sh — every verb of `tracefold` keeps one exit-status convention
# (0 done; 1 the trace is missing, unreadable, malformed or refused, or the
# work failed; 2 the command line is wrong: src/cli/cli.h, README "Exit
# statuses"), takes its options anywhere among its arguments, checks the
# ranges of numbers and echoes a bad one as given, and validates the trace
# before it prints anything from it: for each verb one run that works
# (options after the trace), usage errors (exit 2, nothing on stdout), and
# bad traces (exit 1): a missing one, and a forged one whose RANKS event
# count of rank 2 is wrong (checksums valid), which every verb refuses.
# Unknown options name the verb and point to its --help. `tracefold help`
# lists the verbs; each (and each export format) answers --help, -h and
# `tracefold help VERB` alike, anywhere among the arguments and before any
# complaint about them: usage, options, an example, exit 0.
#
# usage: cli.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --cli TRACEFOLD --forge FORGE_TRACE --ring WL_RING
#               --abort WL_ABORT_MIDWAY [--sim yes|no]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim=no
tf_options "mpirun lib cli forge ring abort sim" "$@"
tf_workdir cli

tf_traced 4 "$work/ring" -- "$ring" -i 5 >/dev/null 2>&1 || fail "traced ring failed"
T=$work/ring
"$forge" nevents 2 1 "$T/trace.tf" "$work/counts.tf" || fail "forge_trace"
F=$work/counts.tf
# a version-5 trace whose time summary has its samples in a bin above its maximum (doc/FORMAT.md 4.10)
"$forge" bins "$T/trace.tf" "$work/bins.tf" || fail "forge_trace bins"
M=$work/missing
# per-rank compressed files to merge: rank 1 of 2 calls MPI_Abort
tf_traced 2 "$work/partial" -- "$abort" -i 10 -a 3 >/dev/null 2>&1
[ -f "$work/partial/rank-1.tfc" ] || fail "the aborted run left no rank-1.tfc"
P=$work/partial
export TRACEFOLD_MPIRUN="$mpirun"

n=0
# run STATUS PATTERN ARGS...: tracefold ARGS exits STATUS; PATTERN (if not empty) is on stderr;
# a usage error (2) prints nothing on stdout
run() {
  local want=$1 pattern=$2
  shift 2
  n=$((n + 1))
  timeout 120 "$cli" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -ne "$want" ]; then
    bad "tracefold $*: exit $rc, expected $want: $(head -3 "$work/err")"
  elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$work/err"; then
    bad "tracefold $*: no '$pattern' on stderr: $(head -3 "$work/err")"
  elif [ "$want" -eq 2 ] && [ -s "$work/out" ]; then
    bad "tracefold $*: a usage error, but it printed: $(head -3 "$work/out")"
  elif [ "$want" -ne 0 ] && [ ! -s "$work/err" ]; then
    bad "tracefold $*: exit $rc without a message"
  fi
}
BIG=99999999999999999999

# ---- every verb: works with its options after the trace; usage errors; bad traces
run 0 "" show "$T" --no-time --rank 1
run 2 "--rank x: expected a rank" show --rank x "$T"
run 2 "--rank $BIG: expected a rank, a whole number from 0 to 2147483647" show "$T" --rank $BIG
run 2 'unknown option "--bogus" (see tracefold show --help)' show --bogus "$T"
run 2 "no trace given" show
run 1 "rank 7 is not in the trace" show --rank 7 "$T"
run 1 "missing" show "$M"
run 1 "rank 2: malformed content" show "$F"
run 1 "time statistics: a bin with samples outside \[min, max\]" show "$work/bins.tf"
run 1 "time statistics: a bin with samples outside \[min, max\]" stats "$work/bins.tf"

run 0 "" unroll "$T" --rank 1 --no-time
run 2 "--rank -1: expected a rank" unroll --rank -1 "$T"
run 2 "give one trace" unroll "$T" "$T"
run 1 "rank 2" unroll --rank 2 "$F"
run 0 "" dump --no-time "$T" --rank 0
run 2 "--rank needs a value" dump "$T" --rank
run 1 "missing" dump "$M"

run 0 "" stats "$T"
run 2 'tracefold stats: unknown option "--rank"' stats --rank 1 "$T"
run 1 "rank 2" stats "$F"
run 0 "" summary "$T"
run 2 "no trace given" summary
run 1 "rank 2" summary "$F"
run 0 "" counts "$T" --rank 3
run 2 "--rank $BIG: expected a rank" counts --rank $BIG "$T"
run 2 "choose one with --rank" counts "$T"
run 1 "rank 2" counts --rank 2 "$F"

run 0 "" time 50% "$T" --rank 1
run 0 "" time --rank 1 1ms 2ms "$T"
run 2 "" time "$T"
run 2 "is not a time" time 5parsecs "$T"
run 2 "--rank $BIG: expected a rank" time 1ms "$T" --rank $BIG
run 1 "rank 2: malformed content" time 50% "$F"

run 0 "" imbalance "$T" --top 2
run 2 "--top 0: expected" imbalance --top 0 "$T"
run 2 "--top $BIG: expected" imbalance "$T" --top $BIG
run 1 "rank 2: malformed content" imbalance "$F"

run 0 "" merge "$P" -o "$work/merged.tf"
[ -f "$work/merged.tf" ] || bad "merge DIR -o FILE wrote no FILE"
run 2 "" merge
run 2 "unknown option" merge -x "$P"
run 1 "already merged" merge "$T"

# ---- progress (merge, replay, simulate): nothing when stderr is not a terminal, a \r line with --progress
# (merge: the ranks merged, to 100%; replay and simulate: the time elapsed while the launcher runs), and
# the line without --progress when stderr is a terminal (script(1) gives one)
progress() { # WHAT PATTERN ARGS...: tracefold ARGS (no --progress) prints no PATTERN; with --progress it does
  local what=$1 pattern=$2
  shift 2
  rm -f "$work/m1.tf" # merge's output, written by each run
  timeout 120 "$cli" "$@" >/dev/null 2>"$work/p.err" || bad "$what: tracefold $* failed: $(head -3 "$work/p.err")"
  rm -f "$work/m1.tf"
  ! grep -q $'\r' "$work/p.err" || bad "$what: a progress line on a stderr that is not a terminal: $(tr '\r' '|' <"$work/p.err")"
  timeout 120 "$cli" "$@" --progress >/dev/null 2>"$work/p.err" || bad "$what: tracefold $* --progress failed"
  grep -Eq $'\r'"$pattern" "$work/p.err" || bad "$what: --progress: no '$pattern' line: $(tr '\r' '|' <"$work/p.err")"
}
rm -f "$work/m1.tf" "$work/m2.tf"
# (under load the aborted run's rank 0 may be killed before its first checkpoint: 1 or 2 ranks)
progress merge "tracefold merge: 100\\.0% \\([12] of [12] ranks\\)" merge "$P" -o "$work/m1.tf"
[ -f "$work/m1.tf" ] || bad "merge --progress wrote no file"
rm -f "$work/m1.tf"
progress replay "tracefold replay: .*[0-9.]+ s elapsed" replay "$T" --quiet --compute none
[ "$sim" != yes ] || progress simulate "tracefold simulate: smpirun, [0-9.]+ s elapsed" simulate "$T" --quiet --compute none
if command -v script >/dev/null; then
  script -qec "$(printf '%q ' "$cli" merge "$P" -o "$work/m2.tf")" /dev/null >"$work/tty.out" 2>&1 || bad "merge on a terminal failed"
  grep -Eq $'\r'"tracefold merge: 100\\.0% \\([12] of [12] ranks\\)" "$work/tty.out" ||
    bad "merge on a terminal: no progress line: $(tr '\r' '|' <"$work/tty.out")"
fi
say "progress: merge (ranks merged), replay$([ "$sim" != yes ] || echo ", simulate") (time elapsed): none off a terminal, a \\r line with --progress$(command -v script >/dev/null && echo " and on a terminal (script)")"

run 0 "" export smpi "$T" "$work/ti" --compute none
run 2 "--compute takes none or mean" export smpi --compute often "$T" "$work/ti2"
run 2 "" export smpi "$T"
run 2 "unknown format" export vtf "$T" "$work/ti2"
run 1 "not an empty directory" export smpi "$T" "$work/ti"
run 1 "missing" export smpi "$M" "$work/ti2"
run 1 "rank 2" export smpi "$F" "$work/ti3"
[ ! -e "$work/ti3" ] || bad "a refused export left $work/ti3"

run 0 "" replay "$T" --quiet --compute none
run 2 "--scale -1: expected a number" replay --scale -1 "$T"
run 2 "-n $BIG: expected a rank count" replay "$T" -n $BIG
run 2 'tracefold replay: unknown option "--bogus" (see tracefold replay --help)' replay --bogus "$T"
run 1 "rank 2: malformed content" replay "$F"
run 1 "missing" replay "$M"
if [ "$sim" = yes ]; then
  run 0 "" simulate "$T" --quiet --compute none
  run 2 "expected a bandwidth" simulate --bandwidth 10Gbs "$T"
  run 2 "--ranks-limit 0: expected a rank count" simulate --ranks-limit 0 "$T"
  run 1 "rank 2: malformed content" simulate "$F"
  run 1 "missing" simulate "$M"
fi
run 0 "" export otf2 "$T" "$work/otf2"
run 2 'tracefold export otf2: unknown option "--bogus" (see tracefold export otf2 --help)' export otf2 --bogus "$T" "$work/o2"
run 2 "" export otf2 "$T"
run 1 "rank 2" export otf2 "$F" "$work/o3"
run 1 "missing" export otf2 "$M" "$work/o3"
run 0 "" export chrome "$T" "$work/c.json" --ranks 0-1 --to=50%
run 2 "--ranks 3-1: expected ranks" export chrome --ranks 3-1 "$T" "$work/c2.json"
run 2 "--from 5parsecs: expected seconds" export chrome "$T" "$work/c2.json" --from 5parsecs
run 2 'tracefold export chrome: unknown option "--bogus"' export chrome --bogus "$T" "$work/c2.json"
run 1 "rank 2" export chrome "$F" "$work/c3.json"
[ ! -e "$work/c3.json" ] || bad "a refused export left $work/c3.json"
run 0 "" report "$T" -o "$work/r.html"
run 0 "" report --output="$work/r2.html" "$T"
run 2 "no trace given" report -o "$work/r3.html"
run 2 'tracefold report: unknown option "--bogus"' report --bogus "$T"
run 2 "-o needs a value" report "$T" -o
run 2 "--graph-limit -1: expected a number of nodes" report "$T" --graph-limit -1
run 1 "rank 2" report "$F" -o "$work/r3.html"
run 1 "missing" report "$M" -o "$work/r3.html"
run 0 "" efg "$T" --format=dot -o "$work/g.dot"
run 0 "" efg --replay-check "$T" --rank 1
run 2 "--rank x: expected a rank" efg --rank x "$T"
run 2 "--format png: expected json, dot or svg" efg "$T" --format png
run 2 "give -o FILE.svg" efg --format svg "$T"
run 2 'tracefold efg: unknown option "--bogus" (see tracefold efg --help)' efg --bogus "$T"
run 1 "rank 7 is not in the trace" efg --rank 7 "$T"
run 1 "missing" efg "$M"
run 2 "unknown verb" frobnicate "$T"
run 2 "" # no verb

# ---- help: `tracefold help` lists the verbs, one line each; every verb answers --help and -h (exit 0,
# stdout: usage, options, an example; nothing on stderr), the same as `tracefold help VERB`
if ! "$cli" help >"$work/verbs" 2>"$work/err" || [ -s "$work/err" ]; then
  bad "tracefold help failed: $(head -3 "$work/err")"
fi
"$cli" --help | cmp -s - "$work/verbs" || bad "tracefold --help differs from tracefold help"
"$cli" -h | cmp -s - "$work/verbs" || bad "tracefold -h differs from tracefold help"
verbs=$(awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' "$work/verbs" |
        grep -vx "help\|version")
[ "$(echo "$verbs" | wc -l)" -ge 14 ] || bad "tracefold help lists too few verbs: $verbs"
nhelp=0
helpcheck() { # helpcheck NAME ARGS...: tracefold ARGS prints NAME's help
  local name=$1
  shift
  nhelp=$((nhelp + 1))
  local rc=0
  "$cli" "$@" >"$work/help.out" 2>"$work/help.err" || rc=$?
  if [ $rc -ne 0 ]; then
    bad "tracefold $*: exit $rc: $(head -2 "$work/help.err")"
  elif [ -s "$work/help.err" ]; then
    bad "tracefold $*: printed on stderr: $(head -2 "$work/help.err")"
  elif ! head -1 "$work/help.out" | grep -q "^usage: tracefold $name" ||
       ! grep -q "^example: " "$work/help.out"; then
    bad "tracefold $*: no usage line for $name or no example: $(head -2 "$work/help.out")"
  fi
}
for v in $verbs export\ smpi export\ otf2 export\ chrome; do
  # shellcheck disable=SC2086 # "export smpi" is two words
  set -- $v
  helpcheck "$v" "$@" --help
  cp "$work/help.out" "$work/help.long"
  helpcheck "$v" "$@" -h
  cmp -s "$work/help.out" "$work/help.long" || bad "tracefold $v -h differs from --help"
  helpcheck "$v" help "$@"
  cmp -s "$work/help.out" "$work/help.long" || bad "tracefold help $v differs from tracefold $v --help"
  helpcheck "$v" "$@" "$T" --help # anywhere among the arguments, nothing read
  helpcheck "$v" "$@" --bogus "$T" -h # before any complaint about the command line
done
run 2 'unknown verb "frobnicate"' help frobnicate
say "help: $(echo "$verbs" | wc -w) verbs listed by tracefold help; $nhelp help requests (--help, -h, help VERB, after a trace) answered with usage and an example, exit 0"
say "$n runs of $(if [ "$sim" = yes ]; then echo 16; else echo 15; fi) verbs: exit statuses 0/1/2 as documented, options after the trace, numbers range-checked and echoed as given, the forged RANKS count refused by every verb"
[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
