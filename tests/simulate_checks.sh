#!/usr/bin/env bash
# simulate_checks.sh — what-if sanity and errors of `tracefold simulate`.
#   what-if (each a sweep, the generated platform otherwise fixed):
#     - a communication-bound trace (alltoall, 64 KiB blocks, its
#       communication alone): halving the bandwidth never makes it faster,
#       and from 100 to 1 Gbit/s it gets 2x slower at least; more latency
#       never makes it faster;
#     - a compute-bound trace (timed): doubling the node speed never makes
#       it slower, and halves its compute time;
#     - a user platform file gives the same time as the generated platform
#       it copies;
#   errors (clear message, nothing run; exit 2 for the command line, 1 for
#   what is found looking at files and programs: src/cli/cli.h):
#     - SimGrid not installed (TRACEFOLD_SMPIRUN names no program);
#     - a platform file that does not exist, one that is not a platform,
#       one SimGrid rejects (the run fails and the file is named);
#     - more ranks than hosts without --fold (and --fold then works);
#     - bad units, an unknown sweep parameter, platform options with --platform.
#
# usage: simulate_checks.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --cli TRACEFOLD --wldir DIR
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib cli wldir" "$@"
tf_workdir simchecks

record() { # NAME NP ARGS...: trace workload NAME into $work/NAME
  local wl=$1 np=$2
  shift 2
  tf_traced "$np" "$work/$wl" -- "$wldir/wl_$wl" "$@" >/dev/null 2>"$work/$wl.err" ||
    { cat "$work/$wl.err" >&2; fail "the traced run of $wl failed"; }
}
record alltoall 4 -s 8192 -i 5
record timed 2 -i 5

# column 2 (simulated s) of a sweep table, one value per line
times() { awk 'NR > 2 { print $2 }' "$1"; }
nondecreasing() { awk 'NR > 1 && $1 < prev * (1 - 1e-9) { bad = 1 } { prev = $1 } END { exit bad }'; }

# ---- what-if: bandwidth, halved at each step, on the communication-bound trace
# (communication alone, --compute none: the recorded compute of a run on a
# loaded machine can outweigh the messages and hide the bandwidth)
"$cli" simulate --compute none --sweep bandwidth=100Gbps,50Gbps,25Gbps,12.5Gbps,6.25Gbps,1Gbps "$work/alltoall" \
  >"$work/bw.txt" || { cat "$work/bw.txt" >&2; fail "the bandwidth sweep failed"; }
cat "$work/bw.txt"
[ "$(times "$work/bw.txt" | wc -l)" = 6 ] || fail "the bandwidth sweep has not 6 rows"
times "$work/bw.txt" | nondecreasing || fail "halving the bandwidth made the communication-bound trace faster"
awk 'NR == 3 { a = $2 } NR == 8 { b = $2 } END { exit !(b > 2 * a) }' "$work/bw.txt" ||
  fail "100 Gbit/s to 1 Gbit/s did not slow the communication-bound trace down by 2x"
say "halving the bandwidth never made alltoall faster"

"$cli" simulate --compute mean --sweep latency=100ns,1us,10us,100us "$work/alltoall" >"$work/lat.txt" ||
  { cat "$work/lat.txt" >&2; fail "the latency sweep failed"; }
times "$work/lat.txt" | nondecreasing || fail "more latency made the trace faster"
say "more latency never made alltoall faster"

# ---- what-if: speed, doubled at each step, on the compute-bound trace
"$cli" simulate --compute mean --sweep speed=0.5Gf,1Gf,2Gf,4Gf "$work/timed" >"$work/speed.txt" ||
  { cat "$work/speed.txt" >&2; fail "the speed sweep failed"; }
cat "$work/speed.txt"
times "$work/speed.txt" | tac | nondecreasing || fail "doubling the speed made the compute-bound trace slower"
awk 'NR > 2 { c[NR] = $4 } END { for (i = 4; i <= NR; i++) { r = c[i - 1] / c[i]; if (r < 1.999 || r > 2.001) exit 1 } }' \
  "$work/speed.txt" || fail "doubling the speed did not halve the compute time"
say "doubling the speed never made timed slower and halved its compute"

# ---- a user platform: the generated one, given back
"$cli" simulate --compute mean --quiet --keep "$work/gen" "$work/timed" >"$work/gen.txt" || fail "simulate --keep failed"
cp "$work/gen/platform.xml" "$work/copy.xml"
"$cli" simulate --compute mean --quiet --platform "$work/copy.xml" --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1 \
  "$work/timed" >"$work/copy.txt" || { cat "$work/copy.txt" >&2; fail "simulate --platform failed"; }
a=$(awk '/simulated time/ { print $3 }' "$work/gen.txt")
b=$(awk '/simulated time/ { print $3 }' "$work/copy.txt")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the same platform as a file gave $b s, generated $a s"
say "--platform FILE = the generated platform ($a s)"

# ---- errors
expect() { # NAME STATUS MESSAGE-PART CMD...: exit STATUS with the message
  local what=$1 status=$2 msg=$3
  shift 3
  set +e
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  set -e
  [ "$rc" = "$status" ] || { cat "$work/out" "$work/err" >&2; fail "$what: exit $rc, expected $status"; }
  grep -qF -- "$msg" "$work/err" || { cat "$work/err" >&2; fail "$what: no '$msg' in the message"; }
  say "$what: $(head -c 200 "$work/err" | head -1)"
}
expect "SimGrid missing" 1 "SimGrid is not installed" env TRACEFOLD_SMPIRUN=/nonexistent/smpirun "$cli" simulate "$work/timed"
expect "missing platform" 1 "$work/none.xml" "$cli" simulate --platform "$work/none.xml" "$work/timed"
echo "not xml at all" >"$work/junk.xml"
expect "not a platform" 1 "not a SimGrid platform file" "$cli" simulate --platform "$work/junk.xml" "$work/timed"
sed 's/<cluster /<cluster bogus="1" /' "$work/copy.xml" >"$work/bad.xml"
expect "platform SimGrid rejects" 1 "platform $work/bad.xml" "$cli" simulate --platform "$work/bad.xml" "$work/timed"
expect "ranks > hosts" 1 "give --fold" "$cli" simulate --nodes 2 "$work/alltoall"
"$cli" simulate --nodes 2 --fold --compute mean --quiet "$work/alltoall" >"$work/fold.txt" || fail "--fold failed"
grep -q 'simulated time' "$work/fold.txt" || fail "--fold: no simulated time"
say "--nodes 2 --fold: 4 ranks on 2 nodes simulate"
expect "bad unit" 2 "expected a bandwidth" "$cli" simulate --bandwidth 10Gbs "$work/timed"
expect "bad sweep" 2 "--sweep colour=red" "$cli" simulate --sweep colour=red "$work/timed"
expect "platform and --speed" 2 "apply to a generated platform only" "$cli" simulate --platform "$work/copy.xml" --speed 2Gf "$work/timed"
say "all checks passed"
