#!/usr/bin/env bash
# launch_bounds.sh — `tracefold replay` and `tracefold simulate` check the
# whole trace before they launch anything, refuse more ranks than
# --ranks-limit (4096 by default), and leave no process behind:
#   - a forged trace (INFO says 100,000 ranks, checksums valid): replay and
#     simulate end within seconds with one message, exit 1, and start no
#     process; with --ranks-limit 200000 they still refuse it (4 of 100,000
#     ranks present), still before launching;
#   - `replay -n 99999`: refused (above the limit), exit 2, nothing started;
#   - a forged RANKS event count (checksums valid): refused before launch,
#     naming the rank;
#   - options in any order (TRACE first, -n last) replay the trace;
#   - a launched job that fails (a launcher that leaves a child behind and
#     exits 1): tracefold replay exits 1 and the child is gone; SIGTERM to
#     tracefold replay while its launcher runs: it dies of SIGTERM within
#     seconds and nothing the launcher started remains.
# Processes are looked for by the scratch directory's name on their
# command line (pgrep -f): every process a launch starts names the trace,
# which is in it (other jobs on the machine are not looked at).
#
# usage: launch_bounds.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --cli TRACEFOLD --forge FORGE_TRACE --ring WL_RING
#                         [--sim yes|no]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim=no
tf_options "mpirun lib cli forge ring sim" "$@"
tf_workdir launch
cleanup_procs() { pkill -KILL -f "$work" 2>/dev/null || true; }
tf_at_exit+=(cleanup_procs)

tf_traced 4 "$work/ring" -- "$ring" -i 5 >/dev/null 2>&1 || fail "traced ring failed"
trace=$work/ring/trace.tf
"$forge" nranks 100000 "$trace" "$work/forged.tf" || fail "forge_trace nranks"
"$forge" nevents 2 1 "$trace" "$work/counts.tf" || fail "forge_trace nevents"

# nothing started on the scratch directory's files
no_procs() { # WHAT
  local left
  left=$(pgrep -fa "$work" || true)
  [ -z "$left" ] || { bad "$1: processes left: $left"; pkill -KILL -f "$work" 2>/dev/null; }
}

# expect NAME STATUS PATTERN CMD...: ends within 20 s with STATUS, one line on stderr matching PATTERN
expect() {
  local name=$1 want=$2 pattern=$3
  shift 3
  local t0=$SECONDS
  timeout -k 2 20 "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    bad "$name: still running after 20 s"
  elif [ $rc -ne "$want" ]; then
    bad "$name: exit $rc, expected $want: $(head -3 "$work/$name.err")"
  elif [ "$(wc -l <"$work/$name.err")" -ne 1 ]; then
    bad "$name: expected one line on stderr, got: $(cat "$work/$name.err")"
  elif ! grep -q -- "$pattern" "$work/$name.err"; then
    bad "$name: no message matching '$pattern': $(cat "$work/$name.err")"
  else
    say "$name: exit $rc in $((SECONDS - t0)) s: $(cat "$work/$name.err")"
  fi
  no_procs "$name"
}

export TRACEFOLD_MPIRUN="$mpirun"
expect replay_forged 1 "100000 ranks, above the limit of 4096" "$cli" replay "$work/forged.tf"
expect replay_forged_limit 1 "4 of 100000 present) cannot be replayed; nothing was launched" \
  "$cli" replay --ranks-limit 200000 "$work/forged.tf"
expect replay_n 2 "\-n 99999: above the limit of 4096" "$cli" replay -n 99999 "$trace"
expect replay_n_other 1 "recorded with 4 ranks; -n 5 cannot replay it" "$cli" replay "$trace" -n 5
expect replay_counts 1 "rank 2: malformed content" "$cli" replay "$work/counts.tf"
expect replay_limit_value 2 "\-\-ranks-limit 99999999999999999999: expected a rank count" \
  "$cli" replay --ranks-limit 99999999999999999999 "$trace"
if [ "$sim" = yes ]; then
  expect simulate_forged 1 "100000 ranks, above the limit of 4096" "$cli" simulate "$work/forged.tf"
  expect simulate_forged_limit 1 "4 of 100000 present) cannot be replayed" \
    "$cli" simulate --ranks-limit 200000 "$work/forged.tf"
  expect simulate_counts 1 "rank 2: malformed content" "$cli" simulate "$work/counts.tf"
fi

# options in any order: the trace first, -n last
if "$cli" replay "$trace" --quiet --compute none -n 4 >"$work/order.out" 2>&1 && grep -q 'on 4 ranks' "$work/order.out"; then
  say "replay TRACE --quiet --compute none -n 4: replays on 4 ranks"
else
  bad "replay with the options after the trace: $(cat "$work/order.out")"
fi
no_procs "replay with options after the trace"

# a launcher that leaves a child behind and fails
cat >"$work/fake-mpirun" <<EOS
#!/bin/sh
# a process manager that starts a process and dies: the child must not outlive tracefold
sleep 300 &
sleep \${FAKE_RUN:-0}
exit 1
EOS
chmod +x "$work/fake-mpirun"
TRACEFOLD_MPIRUN="$work/fake-mpirun" timeout 20 "$cli" replay "$trace" >"$work/fake.out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "a failing launcher: tracefold replay exit $rc, expected 1: $(cat "$work/fake.out")"
sleep 0.2
no_procs "a failing launcher"
say "a failing launcher (it left a child): exit $rc, $(head -1 "$work/fake.out"); no process left"

# SIGTERM to tracefold replay while the launcher runs
FAKE_RUN=300 TRACEFOLD_MPIRUN="$work/fake-mpirun" "$cli" replay "$trace" >"$work/term.out" 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
t0=$SECONDS
for ((k = 0; k < 100; k++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  bad "tracefold replay still runs 10 s after SIGTERM"
  kill -KILL $pid
fi
wait $pid
rc=$?
[ $rc -eq 143 ] || bad "SIGTERM: tracefold replay exit $rc, expected 143 (it dies of SIGTERM)"
sleep 0.2
no_procs "SIGTERM to tracefold replay"
say "SIGTERM to tracefold replay: gone in $((SECONDS - t0)) s (status $rc); no process left"

[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
say "all checks passed"
