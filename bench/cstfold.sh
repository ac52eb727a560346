#!/usr/bin/env bash
# cstfold.sh — CST-guided folding against dynamic folding (doc/CST.md
# "CST-guided folding"); rewrites the section "## CST-guided folding" of
# bench/RESULTS.md.
#
#   1. Every bundled C workload (and cstbranch) built by tracefold-cc, run
#      at NP ranks [4] with its default iterations, twice with the same
#      binary: guided (the default for a tracefold-cc build) and dynamic
#      (TRACEFOLD_CST_GUIDE=0): trace.tf bytes, the merge time rank 0 reports
#      (TRACEFOLD_VERBOSE=1: the merge at MPI_Finalize), and the loop nodes of
#      rank 0 in `tracefold show`. The workloads of LARGE [all] also at
#      NP_LARGE ranks [16; 0 leaves them out]. Then twice more with rank 0
#      under callgrind (callgrind_rank0.sh, the other ranks native): the
#      instructions the recorder itself executes per intercepted call of
#      rank 0 (cg_recorder.py: the recorder's library and what it calls
#      outside the MPI library, so MPI's polling in waits is left out;
#      MPI_Init and the merge at MPI_Finalize cut off with callgrind's
#      --dump-after/--dump-before), and those of the merge (rank 0).
#   2. bench_callcost's loops (bench/callcost.c) built by tracefold-cc, one
#      rank: the recorder's instructions per MPI call, untraced, dynamic and
#      guided (callgrind, the whole run at two iteration counts, the
#      difference divided by the calls added), and ns per call (the median
#      repetition, traced minus untraced, per call).
# ~26 min at 4 and 16 ranks on a 2-core machine at load 10-17 (2026-11-28).
#
# usage: bench/cstfold.sh BUILD_DIR
# environment: WORKLOADS [every bundled C workload], NP [4], NP_LARGE [16], LARGE [all] (workloads; "all": every one), MPIRUN, MPICC (default: those of
# BUILD_DIR/CMakeCache.txt), ITERS [200000] (callcost, ns per call), RUN_TIMEOUT [300] (seconds a
# traced run may take), LARGE_BUDGET [0: none] (seconds for all the NP_LARGE runs; the rows after it
# say "not run: time budget")
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:?usage: bench/cstfold.sh BUILD_DIR}" && pwd)
prog=cstfold.sh
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
mpi_of_build "$build"
np=${NP:-4}
np_large=${NP_LARGE:-16}
large=${LARGE:-all}
iters=${ITERS:-200000}
run_timeout=${RUN_TIMEOUT:-300}
large_budget=${LARGE_BUDGET:-0}
large_spent=0
lib=$build/src/recorder/libtracefold.so
cli=$build/src/cli/tracefold
tcc=$build/src/cst/tracefold-cc
for f in "$lib" "$cli" "$tcc"; do [ -x "$f" ] || [ -f "$f" ] || die "missing $f (build the project first)"; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-cstfold.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
src=$here/../workloads
workloads=${WORKLOADS:-$(awk '/^set\(TF_C_WORKLOADS$/ { f = 1; next } f && /^\)/ { exit } f { sub(/#.*/, ""); if (NF) print $1 }' "$src/CMakeLists.txt")}
[ "$large" != all ] || large="cstbranch $(echo $workloads)"

# recorder_cost NP GUIDE OUT: the program $tmp/prog traced at NP ranks as in run, rank 0 under
# callgrind (callgrind_rank0.sh; LD_BIND_NOW=1: symbols bound at load, not at a first call;
# TRACEFOLD_CHECKPOINT=off: no checkpoints, which come by the clock, not by the call), its
# profile cut in parts: .1 up to the end of tf_recorder_start (MPI_Init), .2 the calls, the last
# from tf_recorder_before_finalize on (the merge at MPI_Finalize, then the exit); prints
# "calls instr_per_call merge_kinstr": rank 0's calls (tracefold counts, MPI_Init* and
# MPI_Finalize left out), the recorder's own instructions (cg_recorder.py: its library, and what it
# calls outside MPI) in the calls part per call, and in the last part (thousands)
recorder_cost() {
  local n=$1 guide=$2 out=$3 calls
  rm -rf "$out" "$tmp"/cg.out*
  # shellcheck disable=SC2086 # $mpirun is a command line
  (cd "$tmp" && CALLGRIND_ARGS="--dump-after=tf_recorder_start --dump-before=tf_recorder_before_finalize" nice -n 10 timeout "$run_timeout" $mpirun -np "$n" \
    env LD_PRELOAD="$lib" LD_BIND_NOW=1 TRACEFOLD_CHECKPOINT=off TRACEFOLD_OUTPUT="$out" TRACEFOLD_CST_GUIDE="$guide" \
    "$here/callgrind_rank0.sh" "$tmp/cg.out" ./prog >/dev/null 2>"$out.err") || return 1
  [ -f "$tmp/cg.out.2" ] && [ -f "$tmp/cg.out" ] || return 1
  calls=$("$cli" counts --rank 0 "$out/trace.tf" | awk '$1 !~ /^MPI_(Init|Init_thread|Finalize)$/ { s += $2 } END { print s + 0 }')
  [ "$calls" -gt 0 ] || return 1
  echo "$calls" "$(($(python3 "$here/cg_recorder.py" "$tmp/cg.out.2") / calls))" \
    "$(($(python3 "$here/cg_recorder.py" "$tmp/cg.out") / 1000))"
}

# run NP GUIDE OUT: the program $tmp/prog traced at NP ranks, TRACEFOLD_CST_GUIDE=GUIDE, into OUT
# (a run longer than RUN_TIMEOUT fails);
# prints "bytes merge_ms loops" (loops: `loop x` lines of rank 0 in tracefold show)
run() {
  local n=$1 guide=$2 out=$3
  rm -rf "$out"
  # shellcheck disable=SC2086 # $mpirun is a command line
  (cd "$tmp" && nice -n 10 timeout "$run_timeout" $mpirun -np "$n" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$out" TRACEFOLD_VERBOSE=1 \
    TRACEFOLD_CST_GUIDE="$guide" ./prog >/dev/null 2>"$out.err") || return 1
  echo "$(stat -c %s "$out/trace.tf")" \
    "$(sed -n 's/.*merged in \([0-9.]*\) ms.*/\1/p' "$out.err" | head -1)" \
    "$("$cli" show --rank 0 --no-time "$out/trace.tf" | grep -c 'loop x')"
}

{
  echo "## CST-guided folding"
  echo
  echo "bench/cstfold.sh: every bundled C workload and cstbranch built by tracefold-cc, default iterations,"
  echo "traced twice with the same binary: guided (the default for a tracefold-cc build: loops built from"
  echo "the loop markers, src/core/fold/cst_guide.c) and dynamic (TRACEFOLD_CST_GUIDE=0: the pattern search"
  echo "of doc/FOLDING.md). Bytes of trace.tf (time summaries included), the merge at MPI_Finalize as rank 0"
  echo "reports it (guided: loops aligned across ranks by their CST ids, doc/MERGING.md), loop nodes of rank 0"
  echo "in \`tracefold show\`. Then the same two runs with rank 0 under valgrind's callgrind (bench/callgrind_rank0.sh,"
  echo "the other ranks native, LD_BIND_NOW=1, TRACEFOLD_CHECKPOINT=off: checkpoints come by the clock, which"
  echo "valgrind slows): rank 0's intercepted calls (\`tracefold counts\`, MPI_Init and"
  echo "MPI_Finalize left out) and the instructions the recorder itself executes per call between the end of"
  echo "its start at MPI_Init and the start of the merge at MPI_Finalize (bench/cg_recorder.py: the self"
  echo "instructions of libtracefold.so and the calls it makes outside the MPI library, libzstd and libc"
  echo "included; everything inside libmpi left out, MPI's polling in waits and the recorder's own MPI calls"
  echo "alike); untraced (\"none\") adds 0 by this count. The workloads make few calls at their default"
  echo "iterations (column \"calls\"), so a call's figure includes the first-call costs (a call"
  echo "site's first lookup, the folder's first nodes and buffers, the first segment); the steady state is"
  echo "bench_callcost's below. \"merge k instr\": the recorder's instructions (thousands, the same count) from"
  echo "the merge at MPI_Finalize to the exit, rank 0. $(nproc) cores shared with other jobs (load average at"
  echo "the start: $(cut -d' ' -f1-3 /proc/loadavg)): merge times of a few ms are noise; instruction counts"
  echo "do not move with the load. Written on $(date -u '+%Y-%m-%d %H:%M') UTC"
  echo "at $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo
  echo "| workload | ranks | trace.tf bytes, guided | dynamic | guided / dynamic | merge ms, guided | dynamic | loops (rank 0), guided | dynamic | calls (rank 0) | recorder instr/call, guided | dynamic | guided / dynamic | merge k instr (rank 0), guided | dynamic |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for wl in cstbranch $workloads; do
    [ -f "$src/$wl.c" ] || continue
    (cd "$src" && "$tcc" "$mpicc" -O2 -g "$wl.c" wl_common.c -lm -lpthread -o "$tmp/prog") >/dev/null 2>&1 ||
      { echo "| $wl | tracefold-cc failed | | | | | | | |"; continue; }
    sizes=$np
    [[ " $large " != *" $wl "* || $np_large -le 0 ]] || sizes="$np $np_large"
    for n in $sizes; do
      if [ "$n" = "$np_large" ] && [ "$large_budget" -gt 0 ] && [ "$large_spent" -ge "$large_budget" ]; then
        echo "| $wl | $n | not run: time budget (LARGE_BUDGET=$large_budget s) | | | | | | |"
        continue
      fi
      t0=$SECONDS
      if g=$(run "$n" 1 "$tmp/guided") && d=$(run "$n" 0 "$tmp/dynamic"); then
        read -r gb gm gl <<<"$g"
        read -r db dm dl <<<"$d"
        if cg=$(recorder_cost "$n" 1 "$tmp/guided") && cgd=$(recorder_cost "$n" 0 "$tmp/dynamic"); then
          read -r calls gi gk <<<"$cg"
          read -r _ di dk <<<"$cgd"
          cost="$calls | $gi | $di | $(awk -v a="$gi" -v b="$di" 'BEGIN { printf "%.2f", a / b }') | $gk | $dk"
        else
          cost="callgrind run failed | | | | |"
        fi
        echo "| $wl | $n | $gb | $db | $(awk -v a="$gb" -v b="$db" 'BEGIN { printf "%.2f", a / b }') | $gm | $dm | $gl | $dl | $cost |"
      else
        echo "| $wl | $n | a run failed in this MPI (or took over $run_timeout s) | | | | | | |"
      fi
      [ "$n" != "$np_large" ] || large_spent=$((large_spent + SECONDS - t0))
    done
  done
  echo
  # ---- cost per call: bench_callcost's two loops, one rank
  (cd "$here" && "$tcc" "$mpicc" -O2 -g callcost.c -o "$tmp/callcost") >/dev/null 2>&1 || die "tracefold-cc of callcost.c failed"
  echo "Cost per call: \`bench_callcost\` (bench/callcost.c: Irecv + Isend + Waitall, then Allreduce, in loops)"
  echo "built by tracefold-cc, one rank. Instructions: callgrind of the whole run at 20,000 and 40,000"
  echo "iterations (one repetition), the difference divided by the 80,000 calls it adds (untraced: the MPI"
  echo "library's own; traced: the library's plus the recorder's). ns: the median of 9 repetitions of"
  echo "$iters iterations, traced minus untraced, per call."
  echo
  echo "| | instructions per call | recorder's, per call | ns per call added, p2p | allreduce |"
  echo "|---|---|---|---|---|"
  declare -A ir ns_p2p ns_ar
  for v in none dynamic guided; do
    pre=()
    [ $v = none ] || pre=(env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/cc.trace" TRACEFOLD_CST_GUIDE=$([ $v = guided ] && echo 1 || echo 0))
    total=()
    for n in 20000 40000; do
      rm -rf "$tmp/cc.trace"
      (cd "$tmp" && "${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" ./callcost $n 1 >/dev/null 2>&1) ||
        die "callgrind of callcost ($v) failed"
      total+=("$(sed -n 's/^summary: //p' "$tmp/cg.out")")
    done
    ir[$v]=$(((total[1] - total[0]) / 80000))
    rm -rf "$tmp/cc.trace"
    out=$(cd "$tmp" && nice -n 10 "${pre[@]}" ./callcost "$iters" 9)
    ns_p2p[$v]=$(awk '$1 == "p2p_ns_per_iter" { print $2 / $4 }' <<<"$out")
    ns_ar[$v]=$(awk '$1 == "allreduce_ns_per_iter" { print $2 / $4 }' <<<"$out")
  done
  for v in none dynamic guided; do
    if [ $v = none ]; then
      echo "| untraced | ${ir[none]} | | | |"
    else
      echo "| $v | ${ir[$v]} | $((ir[$v] - ir[none])) |" \
        "$(awk -v a="${ns_p2p[$v]}" -v b="${ns_p2p[none]}" 'BEGIN { printf "%.0f", a - b }') |" \
        "$(awk -v a="${ns_ar[$v]}" -v b="${ns_ar[none]}" 'BEGIN { printf "%.0f", a - b }') |"
    fi
  done
  echo
  echo "Reading it: the guided trace's loops are the source's (tests: cst.nesting), so a loop count"
  echo "differs from the dynamic one where the dynamic folder rotated or merged loops. A loop whose"
  echo "iterations take different shapes in a pattern is one run of up to 8 iterations per trace iteration"
  echo "(stencil2d: 4 exchange iterations, then one that adds an Allreduce: x4 {A A A A A B}, about 2x the"
  echo "dynamic folder's x4 { x4 {A} A B }, which nests a loop the source does not have). Per call the guide holds"
  echo "the values of an iteration that repeats its loop's last run, as the dynamic fast path does (doc/CST.md"
  echo "\"held iterations\"); what is left over the dynamic folder is the markers' own path. ns per call on this shared machine vary by more than"
  echo "the difference (run it on an idle machine). Ranks beyond NP: NP_LARGE ($np_large for $large; 0 leaves"
  echo "them out). Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$tmp/section.md" >&2 # the rows on stderr as they come
python3 "$here/results_section.py" "$here/RESULTS.md" "## CST-guided folding" <"$tmp/section.md"
