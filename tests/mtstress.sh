#!/usr/bin/env bash
# mtstress.sh — the recorder under MPI_THREAD_MULTIPLE stress: a threaded
# workload (workloads/mtstress.c: 4 threads per rank on several
# communicators, requests completed by other threads than the ones that
# started them) traced N times in a row at P ranks, TRACEFOLD_MODE=both.
# Threads interleave differently on every run, so each run is a new case.
# Every run must pass every check, each against an independent oracle:
#   1. the traced run exits 0, its stdout is byte-identical to an untraced
#      run's (the workload checks every message it receives, and prints
#      sums and a checksum), and its stderr is empty (a clean traced run
#      prints nothing; a recorder that stopped would warn there);
#   2. one flat file per rank and one merged trace.tf, which
#      `tracefold stats` reads without a LOSSY line (exit 0, not 3);
#   3. for every rank, the calls per function in rank-R.flat and in
#      trace.tf equal the counts the workload kept itself in that run;
#   4. lossless: `tracefold unroll` of trace.tf equals `tracefold dump` of
#      the flat files, event for event, every field but times;
#   5. the request ids are consistent (request_ids.py on the dump): each
#      created once, completed or freed once, never named before it was
#      created or after it was completed;
#   6. every rank's events carry 5 thread ids (the main thread and 4 workers).
# The first run that fails stops the test, saying which run and what failed
# (its files are kept in KEEP when --keep KEEP is given); a run that takes
# longer than --run-limit seconds (default 180: a run takes about 1 s on an
# idle machine) is taken as hung. With --log FILE each run's outcome and
# time is appended to FILE as it ends.
#
# usage: mtstress.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD
#                    --runs N --ids REQUEST_IDS.PY [--keep DIR] [--run-limit S] [--log FILE]
#                    -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
keep=""
run_limit=180
log=/dev/null
tf_options "mpirun np lib cli runs ids keep run-limit log --:prog" "$@"
tf_workdir mtstress
[ -z "$keep" ] || rm -rf "$keep"

run_fail() { # MESSAGE: the run $run failed
  echo "run $run of $runs (np $np): FAIL: $*" >>"$log"
  if [ -n "$keep" ]; then
    rm -rf "$keep" && mkdir -p "$keep" && cp -r "$work/trace" "$work"/traced.* "$work"/counts.* "$keep"/ 2>/dev/null || true
  fi
  fail "run $run of $runs (np $np): $*"
}

# shellcheck disable=SC2086
tf_must "$work/plain" "the untraced run exited non-zero" $mpirun -np "$np" "${prog[@]}"
grep -q '^checksum: ' "$work/plain.out" || fail "the workload printed no checksum line"

start=$(date +%s%N)
slowest=0
for ((run = 1; run <= runs; run++)); do
  rm -rf "$work/trace" "$work"/counts.*
  t0=$(date +%s%N)
  rc=0
  tf_traced_cmd "$np" "$work/trace" TRACEFOLD_MODE=both -- "${prog[@]}" -c "$work/counts"
  timeout -k 10 "$run_limit" "${tf_cmd[@]}" >"$work/traced.out" 2>"$work/traced.err" || rc=$?
  [ "$rc" -ne 124 ] || run_fail "the traced run did not end within $run_limit s (hung)"
  [ "$rc" -eq 0 ] || { cat "$work/traced.err" >&2; run_fail "the traced run exited with status $rc"; }
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ "$ms" -le "$slowest" ] || slowest=$ms

  # 1. output
  cmp -s "$work/plain.out" "$work/traced.out" ||
    { diff "$work/plain.out" "$work/traced.out" >&2; run_fail "the output differs from the untraced run's"; }
  [ ! -s "$work/traced.err" ] || { cat "$work/traced.err" >&2; run_fail "the traced run wrote to stderr"; }

  # 2. files, no loss
  nflat=$(find "$work/trace" -name 'rank-*.flat' | wc -l)
  [ "$nflat" -eq "$np" ] || run_fail "$nflat rank-*.flat files, expected $np"
  [ -f "$work/trace/trace.tf" ] || run_fail "no merged trace.tf"
  [ -z "$(find "$work/trace" -name 'rank-*.tfc')" ] || run_fail "per-rank compressed files left beside trace.tf"
  rc=0
  "$cli" stats "$work/trace/trace.tf" >"$work/stats" 2>"$work/stats.err" || rc=$?
  [ "$rc" -ne 3 ] || { cat "$work/stats.err" >&2; run_fail "the trace is LOSSY"; }
  [ "$rc" -eq 0 ] || { cat "$work/stats.err" >&2; run_fail "tracefold stats exited $rc"; }
  ! grep -q LOSSY "$work/stats" "$work/stats.err" || run_fail "tracefold stats says LOSSY"

  # 3. counts, rank by rank
  for ((r = 0; r < np; r++)); do
    [ -f "$work/counts.$r" ] || run_fail "the workload wrote no counts for rank $r"
    "$cli" counts "$work/trace/rank-$r.flat" >"$work/got" || run_fail "tracefold counts failed on rank-$r.flat"
    diff "$work/counts.$r" "$work/got" >&2 ||
      run_fail "rank $r: the calls per function in rank-$r.flat differ from the workload's own counts"
    "$cli" counts --rank "$r" "$work/trace/trace.tf" >"$work/got" || run_fail "tracefold counts failed on trace.tf"
    diff "$work/counts.$r" "$work/got" >&2 ||
      run_fail "rank $r: the calls per function in trace.tf differ from the workload's own counts"
  done

  # 4. lossless
  "$cli" dump --no-time "$work/trace" >"$work/reference" || run_fail "tracefold dump failed"
  "$cli" unroll --no-time "$work/trace/trace.tf" >"$work/unrolled" || run_fail "tracefold unroll failed"
  cmp -s "$work/reference" "$work/unrolled" || {
    diff "$work/reference" "$work/unrolled" | head -20 >&2
    run_fail "the unrolled merged trace differs from the reference trace"
  }

  # 5. request ids
  python3 -B "$ids" "$work/reference" >"$work/ids" || { cat "$work/ids" >&2; run_fail "inconsistent request ids"; }

  # 6. threads
  while read -r r n; do
    [ "$n" -ge 5 ] || run_fail "rank $r: events carry $n thread ids, expected 5"
  done < <(awk '{print $1, $2}' "$work/reference" | sort -u | awk '{n[$1]++} END {for (r in n) print r, n[r]}')
  echo "run $run of $runs (np $np): ok, $ms ms, $(wc -l <"$work/reference") events" >>"$log"
done
total=$((($(date +%s%N) - start) / 1000000))
events=$(wc -l <"$work/reference")
say "ok: ${prog[*]##*/} at np $np: $runs runs in a row, every one lossless (unroll = reference), counts = the" \
  "workload's, output = untraced, no loss, $(tail -1 "$work/ids" | cut -d: -f1); last run $events events;" \
  "$((total / 1000)).$(printf %03d $((total % 1000))) s in all, slowest run $slowest ms"
