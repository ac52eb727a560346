#!/usr/bin/env bash
# partial.sh — traces of runs that stop before MPI_Finalize, under real mpirun.
#
# With TRACEFOLD_MODE=both each rank writes rank-R.flat and, at MPI_Finalize,
# all ranks are merged into trace.tf. A run that stops early cannot merge:
# each rank that still runs tracefold's code writes what it has as
# rank-R.tfc, marked partial (and marks its flat file the same way). The
# workload (workloads/abort_midway.c) is its own oracle: each rank writes
# its per-function call counts just before it stops.
#
#   a. abort: at step K rank P-1 calls MPI_Abort. Only that rank runs our
#      MPI_Abort wrapper; the launcher kills the others (MPICH's hydra with
#      SIGKILL: they leave their last checkpoint, rank-R.tfc marked as one,
#      and no flat file; Open MPI's mpirun with SIGCONT+SIGTERM, SIGKILL
#      later: tracefold's SIGTERM handling writes their files). Checks: rank
#      P-1 left rank-R.tfc, marked MPI_Abort, with its counts; every rank
#      that left both files has unroll = dump; every verb reads the
#      directory (exit 0, "partial trace" note with the number of ranks that
#      wrote: their rank-R.tfc, or for dump their rank-R.flat); `tracefold
#      merge` writes trace.tf, which unrolls to the same events.
#   b. exit: at step K every rank calls exit(0) without MPI_Finalize (the
#      workload's atexit handler, registered before MPI_Init, makes the ranks
#      wait for each other after tracefold's handler so that the launcher
#      kills none early). Every rank leaves both files, marked exit; counts
#      match; unroll = dump on every rank.
#   c. signal: the ranks sleep (no MPI call) after -i steps; SIGTERM goes to
#      mpirun, which forwards it to every rank (hydra and Open MPI both do).
#      tracefold's handler writes the files and chains to the workload's own
#      SIGTERM handler (installed before MPI_Init; it leaves a marker, waits
#      for the other ranks, then dies of SIGTERM). Every rank leaves both
#      files, marked signal, with its counts, a positive event count and
#      unroll = dump; every rank's marker shows the chain.
#
# A failed check prints "FAIL: ..." and the script goes on with the other
# checks; it exits 1 if any failed. One "ok: ..." line per clean sub-case.
#
# usage: partial.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD -- PROGRAM
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli --:prog" "$@"
# Open MPI sends SIGTERM, then SIGKILL 1 s later (odls_base_sigkill_timeout):
# on a loaded machine that can cut tracefold's SIGTERM handler short and leave
# a half-written rank-R.tfc. Give the handlers time (MPICH ignores this).
export OMPI_MCA_odls_base_sigkill_timeout=10
iters=30

bg_pid=""
stop_bg() { # the SIGTERM case's mpirun, if the script stops while it runs
  if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then
    kill -KILL "$bg_pid" 2>/dev/null
    wait "$bg_pid" 2>/dev/null
  fi
}
tf_at_exit+=(stop_bg)
tf_workdir partial

# here a failed check does not stop the script: it is counted (tf_nbad) and
# marks the sub-case failed
case_failed=0
fail() {
  bad "$@"
  case_failed=1
}
start_case() {
  case_failed=0
  case_start=$SECONDS
}
t_start=$SECONDS

# The reason given by the "partial trace" note that tracefold prints on
# stderr when it opens $1 ("" when there is no note).
note_reason() {
  "$cli" summary "$1" 2>&1 >/dev/null |
    sed -n 's/^tracefold: note: partial trace: the run stopped before MPI_Finalize (\(.*\)); [0-9]* of [0-9]* ranks wrote what they had$/\1/p'
}

# Ranks that left a rank-R.tfc / a non-empty rank-R.flat in $1, in rank order.
ranks_with() { # DIR EXT
  for ((r = 0; r < np; r++)); do [ -s "$1/rank-$r.$2" ] && printf '%d ' "$r"; done
}

# Every verb on the directory $1: exit 0 and the note, naming reason $2 (if
# not empty) and "N of P ranks" with N = the number of rank-R.tfc files
# (for dump, which reads the flat files, of rank-R.flat files).
# $3: a rank present in the trace (for counts).
check_verbs() { # DIR REASON RANK
  local dir=$1 reason=$2 rank=$3 ntfc nflat
  ntfc=$(find "$dir" -name 'rank-*.tfc' | wc -l)
  nflat=$(find "$dir" -name 'rank-*.flat' | wc -l)
  local v
  for v in show unroll dump summary stats "counts --rank $rank"; do
    local n=$ntfc
    [ "$v" != dump ] || [ "$nflat" -eq 0 ] || n=$nflat
    # shellcheck disable=SC2086
    "$cli" $v "$dir" >"$work/verb.out" 2>"$work/verb.err"
    local rc=$?
    [ "$rc" -eq 0 ] || { fail "$case_name: tracefold $v $dir exited $rc: $(head -3 "$work/verb.err")"; continue; }
    grep -q "^tracefold: note: partial trace: the run stopped before MPI_Finalize (.*); $n of $np ranks wrote what they had\$" \
      "$work/verb.err" || fail "$case_name: tracefold $v: no note \"partial trace ... $n of $np ranks wrote what they had\" on stderr (got: $(head -3 "$work/verb.err"))"
    if [ -n "$reason" ]; then
      grep -qF "stopped before MPI_Finalize ($reason);" "$work/verb.err" ||
        fail "$case_name: tracefold $v: the note does not give the reason \"$reason\" (got: $(head -1 "$work/verb.err"))"
    fi
  done
}

# Rank $2 of directory $1 left both files: the folded trace unrolls to the
# events of the flat file, both carry the partial mark with reason $3 (if not
# empty: else the same reason), and it has events.
check_rank() { # DIR RANK REASON
  local dir=$1 r=$2 reason=$3 rt rf
  "$cli" unroll --no-time --rank "$r" "$dir" >"$work/unrolled" 2>/dev/null ||
    { fail "$case_name: tracefold unroll --rank $r $dir failed"; return; }
  "$cli" dump --no-time "$dir/rank-$r.flat" >"$work/reference" 2>/dev/null ||
    { fail "$case_name: tracefold dump $dir/rank-$r.flat failed"; return; }
  cmp -s "$work/reference" "$work/unrolled" || {
    diff "$work/reference" "$work/unrolled" | head -10 >&2
    fail "$case_name: rank $r: the unrolled rank-$r.tfc differs from rank-$r.flat"
  }
  [ -s "$work/unrolled" ] || fail "$case_name: rank $r: no events"
  rt=$(note_reason "$dir/rank-$r.tfc")
  rf=$(note_reason "$dir/rank-$r.flat")
  [ -n "$rt" ] || fail "$case_name: rank $r: rank-$r.tfc is not marked partial"
  [ -n "$rf" ] || fail "$case_name: rank $r: rank-$r.flat is not marked partial"
  [ "$rt" = "$rf" ] || fail "$case_name: rank $r: rank-$r.tfc is marked \"$rt\", rank-$r.flat \"$rf\""
  [ -z "$reason" ] || [ "$rt" = "$reason" ] || fail "$case_name: rank $r: marked \"$rt\", expected \"$reason\""
}

# tracefold counts --rank R of the directory equals the workload's counts.
check_counts() { # DIR RANK COUNTS_FILE
  [ -f "$3" ] || { fail "$case_name: the workload wrote no counts for rank $2"; return; }
  "$cli" counts --rank "$2" "$1" >"$work/counts" 2>/dev/null || { fail "$case_name: tracefold counts --rank $2 failed"; return; }
  diff -u "$3" "$work/counts" >&2 || fail "$case_name: rank $2: the trace's counts differ from the workload's own"
}

check_every_rank() { # CASE DIR COUNTS_PREFIX REASON: every rank left both files, counts and unroll match
  local r
  for ((r = 0; r < np; r++)); do
    if [ ! -f "$2/rank-$r.tfc" ] || [ ! -s "$2/rank-$r.flat" ]; then
      fail "$1: rank $r left no rank-$r.tfc or rank-$r.flat"
      continue
    fi
    check_counts "$2" "$r" "$3.$r"
    check_rank "$2" "$r" "$4"
  done
}

traced() { # DIR ARGS...: the traced command line, into the array tf_cmd
  local dir=$1
  shift
  tf_traced_cmd "$np" "$dir" TRACEFOLD_MODE=both -- "${prog[@]}" "$@"
}

# ---------------------------------------------------------------- a. MPI_Abort
case_name=abort
start_case
dir=$work/abort
abort_rank=$((np - 1))
traced "$dir" -i $iters -a 17 -c "$work/abort.counts"
timeout -k 5 60 "${tf_cmd[@]}" >"$work/abort.out" 2>"$work/abort.err"
rc=$?
[ "$rc" -ne 0 ] || fail "abort: mpirun exited 0 after MPI_Abort"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "abort: the run did not end within 60 s"; fi
dir_reason=""
tfc_ranks=$(ranks_with "$dir" tfc)
flat_ranks=$(ranks_with "$dir" flat)
empty_flat=$(for ((r = 0; r < np; r++)); do [ -f "$dir/rank-$r.flat" ] && [ ! -s "$dir/rank-$r.flat" ] && printf '%d ' "$r"; done)
[ -z "$empty_flat" ] || fail "abort: ranks [ ${empty_flat}] left a 0-byte rank-R.flat"
if [ ! -f "$dir/rank-$abort_rank.tfc" ]; then
  cat "$work/abort.err" >&2
  fail "abort: the aborting rank $abort_rank left no rank-$abort_rank.tfc"
else
  check_counts "$dir" "$abort_rank" "$work/abort.counts.$abort_rank"
  [ "$(note_reason "$dir/rank-$abort_rank.tfc")" = "MPI_Abort" ] ||
    fail "abort: rank-$abort_rank.tfc is not marked MPI_Abort (note: \"$(note_reason "$dir/rank-$abort_rank.tfc")\")"
  for r in $tfc_ranks; do
    if [ -s "$dir/rank-$r.flat" ]; then
      check_rank "$dir" "$r" ""
    fi
  done
  dir_reason=$(note_reason "$dir")
  check_verbs "$dir" "" "$abort_rank"
  # merge the set into one file: the same events
  "$cli" unroll --no-time "$dir" >"$work/abort.unrolled" 2>/dev/null || fail "abort: tracefold unroll $dir failed"
  "$cli" merge "$dir" >"$work/merge.out" 2>"$work/merge.err" || fail "abort: tracefold merge $dir failed: $(cat "$work/merge.err")"
  if [ -f "$dir/trace.tf" ]; then
    grep -q "(partial)" "$work/merge.out" || fail "abort: tracefold merge does not say the trace is partial: $(cat "$work/merge.out")"
    "$cli" unroll --no-time "$dir/trace.tf" >"$work/merged.unrolled" 2>"$work/merged.err" ||
      fail "abort: tracefold unroll $dir/trace.tf failed"
    cmp -s "$work/abort.unrolled" "$work/merged.unrolled" || {
      diff "$work/abort.unrolled" "$work/merged.unrolled" | head -10 >&2
      fail "abort: the unrolled trace.tf written by tracefold merge differs from the unrolled rank-R.tfc set"
    }
    grep -q "note: partial trace" "$work/merged.err" || fail "abort: trace.tf written by tracefold merge is not marked partial"
  else
    fail "abort: tracefold merge wrote no $dir/trace.tf"
  fi
fi
echo "abort: mpirun exit $rc; rank-R.tfc from ranks [ ${tfc_ranks}], non-empty rank-R.flat from [ ${flat_ranks}]," \
  "0-byte files from [ ${empty_flat}]; the directory reads as" \
  "partial (${dir_reason:-?}) ($((SECONDS - case_start)) s)"
[ "$case_failed" -eq 0 ] && echo "ok: abort: counts of rank $abort_rank match; unroll = dump on every rank with both" \
  "files; every verb reads the directory; tracefold merge gives the same events ($((SECONDS - case_start)) s)"

# ---------------------------------------------------------------- b. exit without MPI_Finalize
case_name="exit"
start_case
dir=$work/exit
traced "$dir" -i $iters -e 12 -c "$work/exit.counts"
timeout -k 5 60 "${tf_cmd[@]}" >"$work/exit.out" 2>"$work/exit.err"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "exit: the run did not end within 60 s"; fi
reason="an exit without MPI_Finalize"
check_every_rank exit "$dir" "$work/exit.counts" "$reason"
[ "$case_failed" -eq 0 ] || cat "$work/exit.err" >&2
check_verbs "$dir" "$reason" 0
[ "$case_failed" -eq 0 ] && echo "ok: exit (mpirun exit $rc): all $np ranks left rank-R.tfc and rank-R.flat, marked" \
  "\"$reason\"; counts match; unroll = dump on every rank; every verb reads the directory ($((SECONDS - case_start)) s)"

# ---------------------------------------------------------------- c. SIGTERM
case_name=signal
start_case
dir=$work/signal
traced "$dir" -i $iters -s -c "$work/signal.counts"
"${tf_cmd[@]}" >"$work/signal.out" 2>"$work/signal.err" &
bg_pid=$!
ready=0
for ((k = 0; k < 600; k++)); do # 60 s: every rank wrote its counts and sleeps
  n=0
  for ((r = 0; r < np; r++)); do [ -f "$work/signal.counts.$r" ] && n=$((n + 1)); done
  [ "$n" -eq "$np" ] && { ready=1; break; }
  kill -0 "$bg_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$ready" -eq 0 ]; then
  cat "$work/signal.err" >&2
  fail "signal: the ranks did not all reach the sleep loop within 60 s"
else
  kill -TERM "$bg_pid"
  for ((k = 0; k < 300; k++)); do # 30 s
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$bg_pid" 2>/dev/null; then
    fail "signal: mpirun still runs 30 s after SIGTERM"
    kill -KILL "$bg_pid"
  fi
fi
wait "$bg_pid"
rc=$?
bg_pid=""
if [ "$ready" -eq 1 ]; then
  reason="a signal (SIGTERM or SIGINT)"
  chained=0
  for ((r = 0; r < np; r++)); do
    [ -f "$work/signal.counts.done.$r" ] && chained=$((chained + 1))
  done
  check_every_rank signal "$dir" "$work/signal.counts" "$reason"
  [ "$chained" -eq "$np" ] ||
    fail "signal: the workload's own SIGTERM handler ran on $chained of $np ranks (tracefold's handler must chain to it)"
  [ "$case_failed" -eq 0 ] || cat "$work/signal.err" >&2
  check_verbs "$dir" "$reason" 0
  events=$("$cli" stats "$dir" 2>/dev/null | awk '/^events:/ {print $2}')
  [ "$case_failed" -eq 0 ] && echo "ok: signal (SIGTERM to mpirun, which forwarded it; mpirun exit $rc): all $np ranks left" \
    "rank-R.tfc and rank-R.flat, marked \"$reason\" ($events events); counts match; unroll = dump on every rank;" \
    "tracefold's handler chained to the program's on every rank; every verb reads the directory ($((SECONDS - case_start)) s)"
fi

echo "partial.sh: $((SECONDS - t_start)) s"
[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad failed check(s)" >&2; exit 1; }
