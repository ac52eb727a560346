#!/usr/bin/env bash
# timing.sh — time in a trace, on wl_timed at 4 ranks (test mpi.timing).
#
# wl_timed knows its compute times: phase 1, rank 3 computes 2C longer
# before each MPI_Allreduce; phase 2, one MPI_Bcast, then a loop whose first
# iteration computes 10C before MPI_Barrier, the later ones C. Every traced
# run records the flat files (exact deltas: the reference) beside the merged
# trace.tf (TRACEFOLD_MODE=both). Checks:
#   a. runs with TRACEFOLD_TIMING = stats, histogram, path, none: the
#      program's stdout equals an untraced run's; the trace says its mode;
#   b. `tracefold imbalance` lists MPI_Allreduce first with "slowest rank 3"
#      (stats, histogram, path); fails with a message on the none trace;
#   c. paths (check_timing paths): in path mode MPI_Barrier has a path after
#      MPI_Bcast (n=4, mean >= 5C) and one after MPI_Barrier (n=4*29, mean
#      < 3C); in stats mode one path, mean in [C, 5C), max >= 5C;
#   d. the exact oracle (check_timing exact): counts, min, max, sum, bins and
#      stddev of every event against the flat files; the W1 error of
#      MPI_Barrier's compute distribution is smaller in path than in stats
#      mode (w1: the reconstruction from every path's bins; w1all, from the
#      paths summed into k bins, is reported too);
#   e. search in time: `tracefold time` for 300 random times per rank equals
#      a brute-force linear search over `tracefold unroll` (path and stats
#      traces); against the exact timeline of the flat files the agreement
#      is reported, and at least 50% must be within 2 events;
#   f. time-independent traces: TRACEFOLD_VOLUME=cpu (unit cpu-ns, the
#      communication unchanged, rank 3's Allreduce compute 1.3x..4.5x rank
#      0's: its busy wait is 3x as long in wall time, which is at most 3x the
#      CPU time and less when the 4 ranks share the 2 cores); TRACEFOLD_VOLUME=on: instructions, or one warning line per
#      process and cpu-ns — never more than one line per process;
#   g. `tracefold time` rejects bad times with a message and a non-zero exit.
#
# usage: timing.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD CHECK_TIMING WL_TIMED
# Environment: TF_TIMING_SEED seeds the random times (default: from the clock).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 5 ] || { echo "usage: timing.sh \"MPIRUN ARGS\" LIBTRACEFOLD TRACEFOLD CHECK_TIMING WL_TIMED" >&2; exit 2; }
mpirun=$1 lib=$2 cli=$3 checker=$4 wl=$5
np=4
iters=30
c_us=2000 # the injected times stand well above scheduling noise on 2 shared cores
args=(-i "$iters" -s "$c_us")
c_ns=$((c_us * 1000))
ntimes=300
tf_workdir timing
# fail: fatal, what follows needs it; bad: counted, the checks go on
start=$SECONDS
seed=${TF_TIMING_SEED:-$(( $(date +%s) % 100000 ))}

# ---------------------------------------------------------------- a. runs
# shellcheck disable=SC2086
tf_must "$work/plain" "untraced run exited non-zero" $mpirun -np $np "$wl" "${args[@]}"
grep -q '^checksum: ' "$work/plain.out" || fail "the workload printed no checksum line"

# traced NAME [VAR=VALUE...]: a traced run into $work/NAME (trace dir), stdout NAME.out, stderr NAME.err
traced() {
  local name=$1
  shift
  tf_must "$work/$name" "$name: traced run exited non-zero" \
    tf_traced $np "$work/$name" TRACEFOLD_MODE=both "$@" -- "$wl" "${args[@]}"
  diff -u "$work/plain.out" "$work/$name.out" >&2 || fail "$name: the program's output differs with the recorder"
  [ -f "$work/$name/trace.tf" ] || fail "$name: no merged trace.tf"
  local nflat
  nflat=$(find "$work/$name" -name 'rank-*.flat' | wc -l)
  [ "$nflat" -eq $np ] || fail "$name: expected $np flat files, found $nflat"
}

for mode in stats histogram path none; do
  traced "$mode" TRACEFOLD_TIMING=$mode
  "$cli" show "$work/$mode/trace.tf" >"$work/$mode.show" || fail "$mode: tracefold show failed"
  if [ $mode = none ]; then
    ! grep -q '^times: ' "$work/$mode.show" || bad "none: tracefold show prints times: $(grep '^times: ' "$work/$mode.show")"
  else
    grep -q "^times: $mode, compute in ns" "$work/$mode.show" ||
      bad "$mode: tracefold show does not say 'times: $mode, compute in ns': $(grep '^times' "$work/$mode.show" || true)"
  fi
done
say "a. wl_timed ${args[*]} at $np ranks, TRACEFOLD_TIMING=stats, histogram, path, none: output identical to the" \
  "untraced run, $np flat files and trace.tf each, show names the mode"

# ---------------------------------------------------------------- b. imbalance
for mode in stats histogram path; do
  "$cli" imbalance "$work/$mode/trace.tf" >"$work/$mode.imb" 2>"$work/$mode.imb.err" ||
    { cat "$work/$mode.imb.err" >&2; fail "$mode: tracefold imbalance failed"; }
  first=$(grep -m1 -E '^ *[0-9]+\. ' "$work/$mode.imb" || true)
  if ! [[ $first =~ ^\ *1\.\ MPI_Allreduce\  ]]; then
    bad "$mode: imbalance does not list MPI_Allreduce first: $first"
    head -20 "$work/$mode.imb" >&2
  elif [[ $first != *"slowest rank 3 "* ]]; then
    bad "$mode: imbalance does not name slowest rank 3: $first"
  fi
  say "b. $mode: imbalance:$first"
done
if "$cli" imbalance "$work/none/trace.tf" >"$work/none.imb" 2>"$work/none.imb.err"; then
  bad "none: tracefold imbalance succeeded on a trace without times"
fi
grep -q 'TRACEFOLD_TIMING' "$work/none.imb.err" || bad "none: tracefold imbalance gives no clear message: $(cat "$work/none.imb.err")"
say "b. none: imbalance fails: $(head -1 "$work/none.imb.err")"

# ---------------------------------------------------------------- c. paths
# path_summary FILE: per prev, the count, count-weighted mean and max ("prev n mean max")
path_summary() {
  awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         p = v["prev"]; n[p] += v["n"]; s[p] += v["n"] * v["mean"]; if (v["max"] > mx[p]) mx[p] = v["max"] }
       END { for (p in n) printf "%s %d %.0f %d\n", p, n[p], n[p] ? s[p] / n[p] : 0, mx[p] }' "$1"
}
for mode in stats histogram path; do
  "$checker" paths "$work/$mode/trace.tf" MPI_Barrier >"$work/$mode.paths" || fail "$mode: check_timing paths failed"
  sed "s/^/timing: c. $mode: MPI_Barrier /" "$work/$mode.paths"
done
path_summary "$work/path.paths" >"$work/path.psum"
read -r _ bc_n bc_mean _ < <(grep '^MPI_Bcast ' "$work/path.psum" || echo "MPI_Bcast 0 0 0")
read -r _ br_n br_mean _ < <(grep '^MPI_Barrier ' "$work/path.psum" || echo "MPI_Barrier 0 0 0")
[ "$bc_n" -eq $np ] || bad "path: MPI_Barrier after MPI_Bcast: n=$bc_n, expected $np (one per rank)"
[ "$bc_mean" -ge $((5 * c_ns)) ] || bad "path: MPI_Barrier after MPI_Bcast: mean $bc_mean ns < 5C = $((5 * c_ns)) ns"
[ "$br_n" -eq $((np * (iters - 1))) ] || bad "path: MPI_Barrier after MPI_Barrier: n=$br_n, expected $((np * (iters - 1)))"
[ "$br_mean" -lt $((3 * c_ns)) ] || bad "path: MPI_Barrier after MPI_Barrier: mean $br_mean ns >= 3C = $((3 * c_ns)) ns"
say "c. path: MPI_Barrier after MPI_Bcast n=$bc_n mean=${bc_mean}ns (>= 5C), after MPI_Barrier n=$br_n mean=${br_mean}ns (< 3C)"
nstats=$(wc -l <"$work/stats.paths")
[ "$nstats" -eq 1 ] || bad "stats: MPI_Barrier has $nstats paths, expected exactly one"
read -r _ st_n st_mean st_max < <(path_summary "$work/stats.paths")
[ "$st_n" -eq $((np * iters)) ] || bad "stats: MPI_Barrier n=$st_n, expected $((np * iters))"
# Within the stats run itself: the one mean lies between C and 5C, so the 10C first
# iteration is hidden in it (comparing with the path run's means would compare two runs).
{ [ "$st_mean" -ge "$c_ns" ] && [ "$st_mean" -lt $((5 * c_ns)) ]; } ||
  bad "stats: MPI_Barrier mean $st_mean ns is not in [C, 5C) = [$c_ns, $((5 * c_ns)))"
[ "$st_max" -ge $((5 * c_ns)) ] || bad "stats: MPI_Barrier max $st_max ns < 5C: the slow iteration is lost"
say "c. stats: MPI_Barrier one path n=$st_n mean=${st_mean}ns (in [C, 5C): the slow iteration is hidden), max=${st_max}ns (>= 5C: the slow first iteration)"

# ---------------------------------------------------------------- d. exact oracle
declare -A w1 w1bar
for mode in stats histogram path; do
  "$checker" exact "$work/$mode/trace.tf" "$work/$mode" >"$work/$mode.exact" 2>"$work/$mode.exact.err" ||
    { cat "$work/$mode.exact" "$work/$mode.exact.err" >&2; bad "$mode: the exact oracle failed"; }
  w1[$mode]=$(awk '/^overall /{for (i = 2; i <= NF; i++) if ($i ~ /^w1=/) print substr($i, 4)}' "$work/$mode.exact")
  "$checker" exact --fn MPI_Barrier "$work/$mode/trace.tf" "$work/$mode" >"$work/$mode.exact.bar" 2>&1 ||
    { cat "$work/$mode.exact.bar" >&2; bad "$mode: the exact oracle failed on MPI_Barrier"; }
  w1bar[$mode]=$(awk '/^overall /{for (i = 2; i <= NF; i++) if ($i ~ /^w1=/) print substr($i, 4)}' "$work/$mode.exact.bar")
  grep '^key ' "$work/$mode.exact" | sed "s/^/timing: d. $mode: /"
  say "d. $mode: exact checks passed (counts, min, max, sum, bins, stddev of every key);" \
    "$(grep '^overall ' "$work/$mode.exact"); MPI_Barrier $(grep '^overall ' "$work/$mode.exact.bar")"
done
awk -v p="${w1bar[path]}" -v s="${w1bar[stats]}" 'BEGIN { exit !(p < s) }' ||
  bad "MPI_Barrier W1 error in path mode (${w1bar[path]}) is not smaller than in stats mode (${w1bar[stats]})"
say "d. W1 overall: stats ${w1[stats]}, histogram ${w1[histogram]}, path ${w1[path]};" \
  "MPI_Barrier: stats ${w1bar[stats]}, histogram ${w1bar[histogram]}, path ${w1bar[path]} (path < stats)"

# ---------------------------------------------------------------- e. search in time
# timeline < dump/unroll lines: "seq start end" per event
timeline() {
  awk '{ c = d = 0; for (i = 5; i <= NF; i++) { if ($i ~ /^compute=/) c = substr($i, 9); else if ($i ~ /^dur=/) d = substr($i, 5) }
         s = e + c; e = s + d; printf "%d %.0f %.0f\n", $3, s, e }'
}
# brute TIMELINE < times: "index in|before" per time (the first event whose call ends after T), "N after" past the end
brute() {
  awk 'NR == FNR { n++; s[n] = $2; e[n] = $3; next }
       { t = $1 + 0; for (i = 1; i <= n; i++) if (e[i] > t) break
         if (i > n) print n, "after"; else print i - 1, (t >= s[i] ? "in" : "before") }' "$1" -
}
for mode in path stats; do
  tr="$work/$mode/trace.tf"
  : >"$work/$mode.diffs"
  for ((r = 0; r < np; r++)); do
    "$cli" unroll --rank $r "$tr" | timeline >"$work/$mode.tl.$r" || fail "$mode: tracefold unroll --rank $r failed"
    "$cli" dump --rank $r "$work/$mode" | timeline >"$work/$mode.xtl.$r" || fail "$mode: tracefold dump --rank $r failed"
    end=$(awk 'END { print $3 }' "$work/$mode.tl.$r")
    [ "$end" -gt 0 ] || fail "$mode: rank $r: the timeline ends at $end"
    awk -v seed=$((seed + r)) -v end="$end" -v n=$ntimes \
      'BEGIN { srand(seed); for (i = 0; i < n; i++) { t = int(rand() * end); if (t >= end) t = end - 1; print t } }' \
      >"$work/$mode.t.$r"
    mapfile -t ts <"$work/$mode.t.$r"
    "$cli" time --rank $r "${ts[@]/%/ns}" "$tr" >"$work/$mode.time.$r" 2>"$work/$mode.time.err.$r" ||
      { cat "$work/$mode.time.err.$r" >&2; fail "$mode: tracefold time --rank $r failed"; }
    awk '{ idx = "?"; where = "?"
           for (i = 1; i < NF; i++) if ($i == "event") { idx = $(i + 1); break }
           if ($0 ~ /in the call/) where = "in"; else if ($0 ~ /before the call/) where = "before"; else if ($0 ~ /after the last event/) where = "after"
           print idx, where }' "$work/$mode.time.$r" >"$work/$mode.ans.$r"
    brute "$work/$mode.tl.$r" <"$work/$mode.t.$r" >"$work/$mode.brute.$r"
    brute "$work/$mode.xtl.$r" <"$work/$mode.t.$r" >"$work/$mode.exactans.$r"
    nans=$(wc -l <"$work/$mode.ans.$r")
    [ "$nans" -eq $ntimes ] || bad "$mode: rank $r: tracefold time printed $nans answers for $ntimes times"
    if ! cmp -s "$work/$mode.ans.$r" "$work/$mode.brute.$r"; then
      paste -d' ' "$work/$mode.t.$r" "$work/$mode.ans.$r" "$work/$mode.brute.$r" |
        awk '$2 != $4 || $3 != $5 { print "  T=" $1 "ns: tracefold time says event " $2 " " $3 ", brute force " $4 " " $5 }' |
        head -10 >&2
      nmis=$(paste -d' ' "$work/$mode.ans.$r" "$work/$mode.brute.$r" | awk '$1 != $3 || $2 != $4' | wc -l)
      bad "$mode: rank $r: tracefold time disagrees with the brute-force search over unroll on $nmis of $ntimes times (seed $seed)"
    fi
    paste -d' ' "$work/$mode.ans.$r" "$work/$mode.exactans.$r" | awk '{ d = $1 - $3; print (d < 0 ? -d : d) }' >>"$work/$mode.diffs"
  done
  total=$((np * ntimes))
  same=$(awk '$1 == 0' "$work/$mode.diffs" | wc -l)
  near=$(awk '$1 <= 2' "$work/$mode.diffs" | wc -l)
  median=$(sort -n "$work/$mode.diffs" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
  say "e. $mode: tracefold time = brute force over unroll on all $total times ($np ranks x $ntimes, seed $seed);" \
    "vs the exact flat timeline: same event $same/$total ($((100 * same / total))%), within 2 events $near/$total" \
    "($((100 * near / total))%), median |index difference| $median"
  [ $((2 * near)) -ge "$total" ] || bad "$mode: fewer than 50% of the answers are within 2 events of the exact timeline's"
done

# ---------------------------------------------------------------- f. time-independent
traced cpu TRACEFOLD_TIMING=path TRACEFOLD_VOLUME=cpu
"$cli" stats "$work/cpu/trace.tf" >/dev/null || fail "cpu: tracefold stats cannot read the trace"
"$cli" show "$work/cpu/trace.tf" >"$work/cpu.show" || fail "cpu: tracefold show failed"
grep -q 'cpu-ns' "$work/cpu.show" || bad "cpu: tracefold show does not say cpu-ns: $(grep '^times' "$work/cpu.show" || true)"
"$cli" dump --no-time "$work/cpu" >"$work/cpu.ref" || fail "cpu: tracefold dump failed"
"$cli" unroll --no-time "$work/cpu/trace.tf" >"$work/cpu.unr" || fail "cpu: tracefold unroll failed"
cmp -s "$work/cpu.ref" "$work/cpu.unr" || { diff "$work/cpu.ref" "$work/cpu.unr" | head >&2; bad "cpu: unroll differs from the flat dump"; }
"$checker" exact "$work/cpu/trace.tf" "$work/cpu" >"$work/cpu.exact" 2>&1 ||
  { cat "$work/cpu.exact" >&2; bad "cpu: the exact oracle failed"; }
allreduce_mean() {
  "$cli" dump --rank "$1" "$work/cpu" |
    awk '$4 == "MPI_Allreduce" { for (i = 5; i <= NF; i++) if ($i ~ /^compute=/) { s += substr($i, 9); n++ } }
         END { printf "%.0f\n", n ? s / n : 0 }'
}
m0=$(allreduce_mean 0)
m3=$(allreduce_mean 3)
ratio=$(awk -v a="$m3" -v b="$m0" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
say "f. cpu: show says cpu-ns, unroll --no-time = flat dump --no-time, exact oracle passed ($(grep '^overall ' "$work/cpu.exact"));" \
  "MPI_Allreduce compute in CPU time: rank 0 ${m0} ns, rank 3 ${m3} ns, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.3 && r <= 4.5) }' ||
  bad "cpu: rank 3's Allreduce compute is $ratio x rank 0's in CPU time, expected 1.3x..4.5x (busy wait 3C vs C)"

# VOLUME=on: every process's stderr to its own file (by pid)
# shellcheck disable=SC2016,SC2086
$mpirun -np $np bash -c 'exec "$@" 2>"$0.$$"' "$work/on.err" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both \
  TRACEFOLD_OUTPUT="$work/on" TRACEFOLD_TIMING=path TRACEFOLD_VOLUME=on "$wl" "${args[@]}" >"$work/on.out" 2>"$work/on.mpirun.err" ||
  { cat "$work/on.mpirun.err" "$work"/on.err.* >&2; fail "on: traced run exited non-zero"; }
diff -u "$work/plain.out" "$work/on.out" >&2 || bad "on: the program's output differs with the recorder"
nerr=$(find "$work" -maxdepth 1 -name 'on.err.*' | wc -l)
[ "$nerr" -eq $np ] || fail "on: expected $np per-process stderr files, found $nerr"
warned=0
for f in "$work"/on.err.*; do
  lines=$(grep -c 'TRACEFOLD_VOLUME' "$f" || true)
  [ "$lines" -le 1 ] || { cat "$f" >&2; bad "on: a process printed $lines TRACEFOLD_VOLUME warnings (at most one)"; }
  if grep -q 'TRACEFOLD_VOLUME counts per-thread CPU time instead' "$f"; then warned=$((warned + 1)); fi
done
"$cli" show "$work/on/trace.tf" >"$work/on.show" || fail "on: tracefold show failed"
unit=$(awk '/^times: / { for (i = 1; i <= NF; i++) if ($i == "in") { u = $(i + 1); sub(/[,(].*/, "", u); print u; exit } }' "$work/on.show")
# the fallback is said once for the job (by the first rank without counters) and applies to every rank
if [ "$warned" -eq 1 ]; then
  [ "$unit" = cpu-ns ] || bad "on: a process warned of CPU time, but the trace's unit is '$unit'"
  say "f. on: no hardware counters here: one warning line for the job, unit cpu-ns:" \
    "$(grep -h TRACEFOLD_VOLUME "$work"/on.err.* | head -1)"
elif [ "$warned" -eq 0 ]; then
  [ "$unit" = instructions ] || bad "on: no process warned, but the trace's unit is '$unit', not instructions"
  say "f. on: hardware counters available: no warning, unit instructions"
else
  bad "on: $warned of $np processes warned that they count CPU time (expected one for the job, or none)"
fi

# ---------------------------------------------------------------- g. bad times
# a share of the timeline: 100% is its end (after the last event), 0% its first event
"$cli" time --rank 0 0% 100% "$work/path/trace.tf" >"$work/share.out" 2>&1 || bad "tracefold time 0% 100% failed"
grep -q 'event 0 MPI_Init' "$work/share.out" || bad "tracefold time 0%: not rank 0's first event: $(head -1 "$work/share.out")"
grep -q 'after the last event' "$work/share.out" || bad "tracefold time 100%: not after the last event"
for tbad in abc -1s 1.5xs 10m "" nan 1e30s 101% x% -5%; do
  if "$cli" time "$tbad" "$work/path/trace.tf" >"$work/bad.out" 2>"$work/bad.err"; then
    bad "tracefold time '$tbad' succeeded"
  fi
  [ -s "$work/bad.err" ] || bad "tracefold time '$tbad' failed without a message"
done
if "$cli" time "$work/path/trace.tf" >"$work/bad.out" 2>"$work/bad.err"; then bad "tracefold time without T succeeded"; fi
[ -s "$work/bad.err" ] || bad "tracefold time without T failed without a message"
if "$cli" time --rank 9 1ms "$work/path/trace.tf" >"$work/bad.out" 2>"$work/bad.err"; then bad "tracefold time --rank 9 succeeded"; fi
[ -s "$work/bad.err" ] || bad "tracefold time --rank 9 failed without a message"
say "g. tracefold time takes 0% and 100% of the timeline, rejects abc, -1s, 1.5xs, 10m, '', nan, 1e30s, 101%, x%, -5%," \
  "no time and --rank 9 with a message:" \
  "$("$cli" time abc "$work/path/trace.tf" 2>&1 || true)"

[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed (see above); $((SECONDS - start)) s" >&2; exit 1; }
say "ok: all checks passed in $((SECONDS - start)) s"
