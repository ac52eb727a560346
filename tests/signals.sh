#!/usr/bin/env bash
# signals.sh — partial traces that survive the launcher, with nothing in the
# workload that helps (wl_ring, a ring of MPI_Sendrecv and MPI_Barrier: the
# ranks are inside MPI most of the time, and no file-system meeting of its
# own):
#   a. SIGTERM to mpirun at a random moment of the run (uniform in 0 to
#      1.5 s after every rank's first checkpoint is there, i.e. recording
#      has begun), --trials times: within 20 s mpirun is gone and no
#      process is left; every rank's rank-R.tfc is there and the directory
#      reads (`tracefold stats` exit 0, "partial trace" note); no .part,
#      .ckpt or meeting file is left. A rank killed before it wrote its
#      final file (hydra SIGKILLs the others once one rank dies; Open MPI
#      1 s after its SIGTERM) keeps its last checkpoint (TRACEFOLD_CHECKPOINT
#      200ms here): the loss is bounded and `tracefold stats` says so
#      ("left only their last checkpoint"); such ranks are counted;
#   b. kill -9 of one rank: the launcher ends the job; every rank's file
#      is there and reads, the killed rank's is its last checkpoint.
# The last line gives the figures: trials, rank files, ranks that kept only
# a checkpoint, seconds per trial.
#
# usage: signals.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD --trials N -- WL_RING
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli trials --:prog" "$@"
tf_workdir signals
kill_left() { pkill -KILL -f "$work" 2>/dev/null || true; }
tf_at_exit+=(kill_left)
t_start=$SECONDS

# start DIR NAME: the traced ring in the background (pid in $job); its
# ranks carry $work/NAME on their command line (-c: their counts prefix)
start() {
  tf_traced_cmd "$np" "$1" TRACEFOLD_CHECKPOINT=200ms -- "${prog[@]}" -i 100000000 -c "$work/$2"
  "${tf_cmd[@]}" >"$work/$2.out" 2>"$work/$2.err" &
  job=$!
}

# every rank's first checkpoint: recording has begun everywhere (30 s at most)
wait_ready() { # DIR
  local k r n
  for ((k = 0; k < 300; k++)); do
    n=0
    for ((r = 0; r < np; r++)); do [ -f "$1/rank-$r.tfc" ] && n=$((n + 1)); done
    [ "$n" -eq "$np" ] && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# mpirun ends within 20 s (else it is killed, and that is a failure)
wait_end() { # WHAT
  local k
  for ((k = 0; k < 200; k++)); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$job" 2>/dev/null; then
    bad "$1: mpirun still runs 20 s after the signal"
    kill -KILL "$job"
  fi
  wait "$job" 2>/dev/null
  sleep 0.3
  local left
  left=$(pgrep -fa "$work" || true)
  [ -z "$left" ] || { bad "$1: processes left: $left"; kill_left; }
}

# the directory: every rank's file, readable; the ranks that kept only a checkpoint into $ckpt_ranks
check_dir() { # WHAT DIR
  local what=$1 dir=$2 r
  for ((r = 0; r < np; r++)); do
    [ -f "$dir/rank-$r.tfc" ] || bad "$what: rank $r left no rank-$r.tfc ($(ls "$dir" | tr '\n' ' '))"
  done
  local junk
  junk=$(find "$dir" -name '*.part' -o -name '*.ckpt' -o -name '.tracefold-stop-*' | tr '\n' ' ')
  [ -z "$junk" ] || bad "$what: left behind: $junk"
  if ! "$cli" stats "$dir" >"$work/stats.out" 2>"$work/stats.err"; then
    bad "$what: tracefold stats $dir failed: $(head -3 "$work/stats.err")"
    return
  fi
  grep -q "note: partial trace: the run stopped before MPI_Finalize" "$work/stats.err" ||
    bad "$what: tracefold stats does not say the trace is partial: $(head -2 "$work/stats.err")"
  grep -q "^ranks: *$np of $np" "$work/stats.out" || bad "$what: not $np of $np ranks: $(grep '^ranks' "$work/stats.out")"
  ckpt_ranks=$(sed -n 's/^tracefold: note: ranks\{0,1\} \(.*\) left only .* last checkpoint.*/\1/p' "$work/stats.err")
}

# ---- a. SIGTERM to mpirun at random moments
ntrials=0 nckpt=0 trials_with_ckpt=0 per_trial=""
for ((t = 1; t <= trials; t++)); do
  case_start=$SECONDS
  dir=$work/term$t
  start "$dir" "term$t"
  if ! wait_ready "$dir"; then
    bad "trial $t: the ranks' first checkpoints did not all appear within 30 s: $(head -3 "$work/term$t.err")"
    kill -KILL "$job" 2>/dev/null
    wait_end "trial $t"
    continue
  fi
  delay=$(awk -v s="$RANDOM" 'BEGIN { printf "%.3f", (s % 1500) / 1000 }')
  sleep "$delay"
  kill -TERM "$job"
  wait_end "trial $t"
  ckpt_ranks=""
  check_dir "trial $t" "$dir"
  ntrials=$((ntrials + 1))
  if [ -n "$ckpt_ranks" ]; then
    nckpt=$((nckpt + $(echo "$ckpt_ranks" | tr ',' '\n' | awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')))
    trials_with_ckpt=$((trials_with_ckpt + 1))
  fi
  per_trial+="$t:${delay}s:$((SECONDS - case_start))s${ckpt_ranks:+:ckpt[$ckpt_ranks]} "
  rm -rf "$dir"
done
say "SIGTERM trials: $per_trial"

# ---- b. kill -9 of one rank
dir=$work/kill9
start "$dir" kill9
if wait_ready "$dir"; then
  sleep 0.5
  victim=$(pgrep -f "$work/kill9" | while read -r p; do
    [ "$(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | grep -c "^${prog[0]}")" -eq 1 ] && echo "$p"
  done | head -1)
  if [ -z "$victim" ]; then
    bad "kill -9: no rank process found"
    kill -TERM "$job"
  else
    kill -KILL "$victim"
  fi
  wait_end "kill -9"
  ckpt_ranks=""
  check_dir "kill -9" "$dir"
  [ -n "$ckpt_ranks" ] || bad "kill -9: no rank is reported as having left only a checkpoint"
  say "kill -9 of one rank: every rank's file reads; only a checkpoint from ranks [$ckpt_ranks]"
else
  bad "kill -9: the ranks' first checkpoints did not all appear within 30 s"
  kill -KILL "$job" 2>/dev/null
  wait_end "kill -9"
fi

say "$ntrials SIGTERM trials at $np ranks: $((ntrials * np)) rank files, all present and readable;" \
  "$nckpt ranks in $trials_with_ckpt trials kept only their last checkpoint (at most 200 ms lost, reported);" \
  "$(( (SECONDS - t_start) / (trials + 1) )) s per trial"
[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
