#!/usr/bin/env bash
# quiet.sh — the recorder is silent on a clean run: a workload's stdout AND
# stderr are byte for byte the same with and without the recorder, in every
# mode (compressed, flat, both); with TRACEFOLD_VERBOSE=1 exactly one line
# says where the trace went (rank 0's), in flat mode too; a warning that
# every rank would give the same (TRACEFOLD_VOLUME=on where hardware
# counters are missing) is said once for the job, not once per rank.
#
# usage: quiet.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib --:prog" "$@"
tf_workdir quiet
cd "$work" || exit 1

# shellcheck disable=SC2086 # $mpirun is a command line
$mpirun -np "$np" "${prog[@]}" >plain.out 2>plain.err || fail "the untraced run failed: $(head -3 plain.err)"
for mode in compressed flat both; do
  tf_traced "$np" "$work/t-$mode" TRACEFOLD_MODE=$mode -- "${prog[@]}" >"$mode.out" 2>"$mode.err" ||
    fail "the traced run ($mode) failed: $(head -3 "$mode.err")"
  cmp -s plain.out "$mode.out" || { diff plain.out "$mode.out" | head -5 >&2; bad "$mode: stdout differs from the untraced run's"; }
  cmp -s plain.err "$mode.err" || { diff plain.err "$mode.err" | head -5 >&2; bad "$mode: stderr differs from the untraced run's"; }
  [ -n "$(ls "$work/t-$mode")" ] || bad "$mode: no trace written"
done
say "stdout and stderr identical with and without the recorder (compressed, flat, both; $(wc -c <plain.out) + $(wc -c <plain.err) bytes)"

for mode in compressed flat; do
  tf_traced "$np" "$work/v-$mode" TRACEFOLD_MODE=$mode TRACEFOLD_VERBOSE=1 -- "${prog[@]}" >v.out 2>v.err ||
    fail "the verbose run ($mode) failed: $(head -3 v.err)"
  n=$(grep -c '^tracefold: .*written to' v.err)
  [ "$n" -eq 1 ] || bad "TRACEFOLD_VERBOSE=1 ($mode): $n lines say where the trace went: $(cat v.err)"
  grep -qF "$work/v-$mode" v.err || bad "TRACEFOLD_VERBOSE=1 ($mode): the line does not name the trace directory: $(cat v.err)"
  say "TRACEFOLD_VERBOSE=1 ($mode): $(grep '^tracefold:' v.err)"
done

tf_traced "$np" "$work/vol" TRACEFOLD_VOLUME=on -- "${prog[@]}" >vol.out 2>vol.err || fail "TRACEFOLD_VOLUME=on failed"
n=$(grep -c 'hardware counters unavailable' vol.err)
[ "$n" -le 1 ] || bad "TRACEFOLD_VOLUME=on: the counters' warning $n times (once per job expected): $(cat vol.err)"
say "TRACEFOLD_VOLUME=on: $( [ "$n" -eq 1 ] && grep 'hardware counters' vol.err || echo 'counters work here, no warning')"
[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
