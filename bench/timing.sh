#!/usr/bin/env bash
# timing.sh — what each timing mode (TRACEFOLD_TIMING) costs in trace bytes
# and in recorder time per call, and how accurately it keeps the compute
# deltas; records the figures in bench/RESULTS.md. Builds nothing.
#
# usage: bench/timing.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (needs src/recorder/libtracefold.so,
#              src/cli/tracefold, bench/bench_callcost, tests/check_timing,
#              workloads/wl_<name>)
# environment (optional):
#   MPIRUN     launcher                                        [mpirun.mpich]
#   MODES      timing modes compared              ["none stats histogram path"]
#   BINS       TRACEFOLD_BINS of every traced run              [5]
#   WORKLOADS  workloads of the bytes-vs-ranks table ["stencil2d ring alltoall timed"]
#   NPS        rank counts of that table, ascending            ["4 16 64"]
#   ITER_WORKLOADS workloads of the bytes-vs-iterations table  ["stencil2d ring"]
#   ITER_NP    ranks of that table                             [16]
#   ITERS      iteration counts of that table, ascending       ["100 1000"]
#   CC_ITERS   bench_callcost iterations per repetition        [15000]
#   CC_REPS    bench_callcost repetitions per run              [15]
#   ROUNDS     rounds of callcost runs                         [6]
#   ACC_NP     ranks of the accuracy runs                      [4]
#   ACC_RUNS   accuracy runs, "workload:args" (args with commas for spaces)
#              ["timed:-i,30,-s,1000 stencil2d: ring:"]
#   ACC_REPS   runs per accuracy configuration (median reported) [3]
#   FOLD_WL, FOLD_ITERS  workload and iterations of the compressor-cost runs [stencil2d 2000]
#   TIMEOUT    hard limit per run, seconds                     [300]
#   RESULTS    the file to update                              [bench/RESULTS.md]
#   SOURCE     what the binaries were built from, for the record [the git
#              commit of BUILD_DIR's source tree, "+ uncommitted changes" if
#              src/ or include/ differ from it]
#
# Three measurements, all in one run, on the same copy of the binaries:
#
# 1. Trace bytes: every workload of WORKLOADS runs at every rank count of NPS
#    with its default iterations and problem size, once per timing mode
#    (TRACEFOLD_MODE=compressed, TRACEFOLD_TIMING=<mode>): bytes of the merged
#    trace.tf, events and nodes (events and loops `tracefold show` prints);
#    the modes' order rotates from one configuration to the next. Then every
#    workload of ITER_WORKLOADS at ITER_NP ranks, once per count of ITERS and
#    mode. Ratios: bytes at the largest / smallest rank count, and at the
#    largest / smallest iteration count, per mode.
#
# 2. Recorder cost per call: bench_callcost (bench/callcost.c, 2 ranks, as
#    bench/run.sh runs it) untraced and traced with TRACEFOLD_MODE=compressed
#    and each timing mode, plus TRACEFOLD_TIMING=path TRACEFOLD_VOLUME=cpu.
#    A round is one untraced run and one run per configuration; odd rounds run
#    them in the order untraced, MODES..., path+cpu, even rounds in the
#    reverse order (so a linear drift of the machine's load hits every
#    configuration alike over two rounds). Per round: added ns per
#    intercepted call = (traced − untraced ns/iter) / calls per iteration; the
#    difference to mode none = (traced − traced with none) / calls per
#    iteration, both within the round; reported: medians over rounds.
#
# 2b. Compressor cost per event, without MPI's noise: FOLD_WL at 4 ranks,
#    -i FOLD_ITERS, recorded once per mode with TRACEFOLD_MODE=both; then
#    bench_foldcost (bench/foldcost.c) folds rank 1's flat file again in
#    the same mode, 5 repetitions: ns per event (median and fastest).
#
# 3. Accuracy: every run of ACC_RUNS at ACC_NP ranks with TRACEFOLD_MODE=both
#    (exact rank-R.flat files beside trace.tf) and each timing mode but none,
#    ACC_REPS times (the modes' order rotating from one repetition to the
#    next); `check_timing exact TRACE FLATDIR` compares the trace's
#    compute-delta distribution of every event key with the exact deltas: w1
#    (per path), w1all (paths merged into k bins), w1raw (unclipped bins),
#    count-weighted over the keys; its exact checks (counts, min, max, sum,
#    bins, stddev) must pass. Reported: the medians over the repetitions (the
#    deltas of an oversubscribed run vary from run to run, and so does how
#    well k bins fit them), and the range of w1.
#
# RESULTS.md is shared: this script replaces only its section ("## Timing
# modes: size, cost and accuracy", up to the next "## " heading) and keeps
# everything else (bench/results_section.py).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/timing.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
MODES=${MODES:-none stats histogram path}
BINS=${BINS:-5}
WORKLOADS=${WORKLOADS:-stencil2d ring alltoall timed}
NPS=${NPS:-4 16 64}
ITER_WORKLOADS=${ITER_WORKLOADS:-stencil2d ring}
ITER_NP=${ITER_NP:-16}
ITERS=${ITERS:-100 1000}
CC_ITERS=${CC_ITERS:-15000}
CC_REPS=${CC_REPS:-15}
ROUNDS=${ROUNDS:-6}
ACC_NP=${ACC_NP:-4}
ACC_RUNS=${ACC_RUNS:-timed:-i,30,-s,1000 stencil2d: ring:}
ACC_REPS=${ACC_REPS:-3}
FOLD_WL=${FOLD_WL:-stencil2d}
FOLD_ITERS=${FOLD_ITERS:-2000}
TIMEOUT=${TIMEOUT:-300}
RESULTS=${RESULTS:-$here/RESULTS.md}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* in the caller's environment would alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS TRACEFOLD_VOLUME

prog=timing.sh
# shellcheck source=SCRIPTDIR/bench_common.sh disable=SC2034 # failed, status: used by bench_common.sh
. "$here/bench_common.sh"
need_commands
read -r -a modes <<<"$MODES"
((${#modes[@]} > 0)) || die "MODES is empty"
for m in "${modes[@]}"; do
  [[ $m =~ ^(none|stats|histogram|path)$ ]] || die "MODES: $m is not a timing mode (none, stats, histogram, path)"
done
[[ " $MODES " == *" none "* ]] || die "MODES must include none (the baseline)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-timing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Work on a private copy of the binaries: a rebuild of BUILD_DIR while this
# runs must not mix two versions into one table.
bin=$tmp/bin
mkdir -p "$bin"
accw=$(for a in $ACC_RUNS; do echo "${a%%:*}"; done)
# shellcheck disable=SC2046,SC2086 # lists of words
copy_binaries "$build" "$bin" src/recorder/libtracefold.so src/cli/tracefold bench/bench_callcost bench/bench_foldcost \
  tests/check_timing $(printf '%s\n' $WORKLOADS $ITER_WORKLOADS $accw "$FOLD_WL" | sort -u)
SOURCE=${SOURCE:-$(source_of "$build")}
lib=$bin/libtracefold.so
cli=$bin/tracefold
failed= # used by bench_common.sh
log=$tmp/log
: >"$log"
status=0
echo unknown >"$tmp/mpi"

# traced_run DIR NP TIMING TFMODE PROGRAM ARGS... — one traced run into DIR; dies on failure
traced_run() {
  local t=$1 np=$2 timing=$3 tfmode=$4 rc=0
  shift 4
  rm -rf "$t"
  timeout "$TIMEOUT" "$MPIRUN" -n "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE="$tfmode" TRACEFOLD_OUTPUT="$t" \
    TRACEFOLD_TIMING="$timing" TRACEFOLD_BINS="$BINS" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if ((rc != 0)); then
    tail -n 15 "$tmp/out" "$tmp/err" >&2
    ((rc == 124)) && die "${*##*/} at $np ranks (TIMING=$timing) did not finish within TIMEOUT=$TIMEOUT s"
    die "${*##*/} at $np ranks (TIMING=$timing) failed (exit status $rc)"
  fi
  [[ -f $t/trace.tf ]] || die "${*##*/} at $np ranks (TIMING=$timing): no merged trace.tf (stderr: $(tail -n 3 "$tmp/err"))"
}

# size_one WORKLOAD NP ITERS(- = default) TIMING TABLE — appends a "size" line to the log
size_one() {
  local w=$1 np=$2 n=$3 m=$4 table=$5 t=$tmp/trace t0 t1 secs
  local args=()
  [[ $n == - ]] || args=(-i "$n")
  t0=$(date +%s.%N)
  traced_run "$t" "$np" "$m" compressed "$bin/wl_$w" "${args[@]}"
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  "$cli" stats "$t/trace.tf" >"$tmp/stats" || die "tracefold stats failed on wl_$w at $np ranks ($m)"
  local events nodes said
  events=$(sed -n 's/^events: *\([0-9]*\).*/\1/p' "$tmp/stats")
  [[ -n $events ]] || die "no event count in tracefold stats of wl_$w at $np ranks ($m)"
  sed -n 's/^MPI: *//p' "$tmp/stats" | head -1 | tr -s ' \t' ' ' >"$tmp/mpi"
  "$cli" show "$t/trace.tf" >"$tmp/show" || die "tracefold show failed on wl_$w at $np ranks ($m)"
  # the trace must say the mode it was recorded with (no "times:" line for none)
  said=$(sed -n 's/^times: \([a-z]*\),.*/\1/p' "$tmp/show" | head -1)
  [[ ${said:-none} == "$m" ]] || die "wl_$w at $np ranks: recorded with TRACEFOLD_TIMING=$m, but show says times: ${said:-(none)}"
  # nodes: the event and loop lines (not the "after ...", "compute bins" lines of the times under them)
  nodes=$(grep -cE '^ *(loop x|MPI_)' "$tmp/show" || true)
  echo "size $table $w $np $n $m $(stat -c %s "$t/trace.tf") $events $nodes $secs" >>"$log"
  rm -rf "$t"
}

# rotate K — the modes, rotated left by K
rotate() {
  local k=$(($1 % ${#modes[@]}))
  echo "${modes[@]:k}" "${modes[@]:0:k}"
}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load0%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
  echo "$prog: warning: load average $load0 exceeds $(nproc) cores; expect noisy cost figures" >&2
fi

# ------------------------------------------------------------ 1. trace bytes
k=0
for w in $WORKLOADS; do
  for np in $NPS; do
    t0=$(date +%s)
    for m in $(rotate $k); do size_one "$w" "$np" - "$m" ranks; done
    k=$((k + 1))
    echo "  bytes: wl_$w at $np ranks, ${#modes[@]} modes: $(($(date +%s) - t0)) s ($(($(date +%s) - start)) s so far)" >&2
  done
done
for w in $ITER_WORKLOADS; do
  for n in $ITERS; do
    t0=$(date +%s)
    for m in $(rotate $k); do size_one "$w" "$ITER_NP" "$n" "$m" iters; done
    k=$((k + 1))
    echo "  bytes: wl_$w -i $n at $ITER_NP ranks, ${#modes[@]} modes: $(($(date +%s) - t0)) s ($(($(date +%s) - start)) s so far)" >&2
  done
done
t_sizes=$(($(date +%s) - start))

# ------------------------------------------------------------ 2. cost per call
configs=("${modes[@]}" path+cpu)
cc_run() { # ROUND CONFIG (untraced: untraced)
  local p=$1 c=$2 t=$tmp/cctrace
  if [[ $c == untraced ]]; then
    "$MPIRUN" -n 2 "$bin/bench_callcost" "$CC_ITERS" "$CC_REPS" >"$tmp/out" 2>"$tmp/err" ||
      { cat "$tmp/out" "$tmp/err" >&2; die "untraced bench_callcost failed"; }
  else
    local m=${c%+cpu} vol=()
    [[ $c == *+cpu ]] && vol=(TRACEFOLD_VOLUME=cpu)
    traced_run "$t" 2 "$m" compressed "${vol[@]}" "$bin/bench_callcost" "$CC_ITERS" "$CC_REPS"
    echo "cctrace $p $c $(stat -c %s "$t/trace.tf")" >>"$log"
    rm -rf "$t"
  fi
  sed "s/^/cc $p $c /" "$tmp/out" >>"$log"
}
t0=$(date +%s)
echo "$prog: callcost, $ROUNDS rounds of untraced + ${#configs[@]} traced runs, $CC_ITERS iterations x $CC_REPS reps each" >&2
for ((p = 1; p <= ROUNDS; p++)); do
  order=(untraced "${configs[@]}")
  if ((p % 2 == 0)); then
    rev=()
    for ((i = ${#order[@]} - 1; i >= 0; i--)); do rev+=("${order[i]}"); done
    order=("${rev[@]}")
  fi
  for c in "${order[@]}"; do cc_run "$p" "$c"; done
  echo "  round $p done ($(($(date +%s) - start)) s so far)" >&2
done
t_cost=$(($(date +%s) - t0))

# ------------------------------------------------------------ 2b. compressor cost per event
for m in "${modes[@]}"; do
  t=$tmp/fold
  traced_run "$t" 4 "$m" both "$bin/wl_$FOLD_WL" -i "$FOLD_ITERS"
  "$bin/bench_foldcost" -r 5 "$t/rank-1.flat" >"$tmp/fold.out" 2>&1 || { cat "$tmp/fold.out" >&2; die "bench_foldcost failed ($m)"; }
  grep -q '^roundtrip ok' "$tmp/fold.out" || die "bench_foldcost: the folded file does not read back ($m)"
  echo "fold $m $(awk '/^fold_ns_per_event/ {print $2, $4}' "$tmp/fold.out")" >>"$log"
  echo "  compressor cost: $m $(grep '^fold_ns_per_event' "$tmp/fold.out")" >&2
  rm -rf "$t"
done

# ------------------------------------------------------------ 3. accuracy
t0=$(date +%s)
tmodes=()
for m in "${modes[@]}"; do [[ $m == none ]] || tmodes+=("$m"); done
for a in $ACC_RUNS; do
  w=${a%%:*} argstr=${a#*:}
  read -r -a args <<<"${argstr//,/ }"
  for ((rep = 0; rep < ACC_REPS; rep++)); do
    k=$((rep % ${#tmodes[@]}))
    for m in "${tmodes[@]:k}" "${tmodes[@]:0:k}"; do
      t=$tmp/acc
      traced_run "$t" "$ACC_NP" "$m" both "$bin/wl_$w" "${args[@]}"
      rc=0
      "$bin/check_timing" exact "$t/trace.tf" "$t" >"$tmp/exact" 2>"$tmp/exact.err" || rc=$?
      ov=$(grep '^overall ' "$tmp/exact" || true)
      [[ -n $ov ]] || { cat "$tmp/exact.err" >&2; die "check_timing exact printed no overall line for wl_$w ($m)"; }
      if ((rc != 0)); then
        status=1
        echo "$prog: check_timing exact FAILED on wl_$w ${args[*]} ($m):" >&2
        head -n 5 "$tmp/exact.err" >&2
      fi
      # the key with the largest w1 ("fn n w1")
      worst=$(awk '/^key / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                            if (v["w1"] + 0 >= best || !seen) { best = v["w1"] + 0; seen = 1; out = $2 " " v["n"] " " v["w1"] } }
                   END { print (seen ? out : "- 0 0") }' "$tmp/exact")
      echo "acc $w ${argstr:-default} $m $rc $(stat -c %s "$t/trace.tf") ${ov#overall } $worst" >>"$log"
      echo "  accuracy: wl_$w ${args[*]} ($m, run $((rep + 1))): $ov$( ((rc == 0)) || echo ' (exact checks FAILED)')" >&2
      rm -rf "$t"
    done
  done
done
t_acc=$(($(date +%s) - t0))

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
elapsed=$(($(date +%s) - start))
# imports results_section.py from here (and leaves no __pycache__ in the tree)
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$RESULTS" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
  "$cpu" "$(cat "$tmp/mpi")" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SOURCE" "$elapsed" \
  "$MODES" "$BINS" "$NPS" "$ITER_NP" "$ITERS" "$CC_ITERS" "$CC_REPS" "$ROUNDS" "$ACC_NP" \
  "$t_sizes" "$t_cost" "$t_acc" "$ACC_REPS" "$FOLD_WL" "$FOLD_ITERS" <<'EOF'
import statistics, sys

from results_section import update

(log, results, date, nproc, cpu, mpi, kernel, load0, load, source, elapsed, modes, bins, nps, iter_np, iters,
 cc_iters, cc_reps, rounds, acc_np, t_sizes, t_cost, t_acc, acc_reps, fold_wl, fold_iters) = sys.argv[1:]
modes = modes.split()
med = statistics.median
size = {}  # (table, workload, np, iters, mode) -> (bytes, events, nodes, secs)
order = {"ranks": [], "iters": []}  # workloads in the order run
cc = {}  # (round, config) -> {"p2p": ns/iter, "p2p_min": ..., ...}
calls = {}
ccbytes = {}  # config -> [trace.tf bytes]
acc = []
fold = {}  # mode -> (median ns/event, fastest)
for line in open(log):
    w = line.split()
    if w[0] == "size":
        tab, wl, np_, n, m = w[1], w[2], int(w[3]), w[4], w[5]
        size[(tab, wl, np_, n, m)] = (int(w[6]), int(w[7]), int(w[8]), float(w[9]))
        if wl not in order[tab]:
            order[tab].append(wl)
    elif w[0] == "cctrace":
        ccbytes.setdefault(w[2], []).append(int(w[3]))
    elif w[0] == "cc" and w[3].endswith("_ns_per_iter"):
        cc.setdefault((int(w[1]), w[2]), {})[w[3][: -len("_ns_per_iter")]] = float(w[4])
        if w[5:6] == ["calls_per_iter"]:
            calls[w[3].split("_")[0]] = int(w[6])
    elif w[0] == "fold":
        fold[w[1]] = (float(w[2]), float(w[3]))
    elif w[0] == "acc":
        kv = dict(x.split("=", 1) for x in w[6:10])
        acc.append(dict(wl=w[1], args=w[2], mode=w[3], rc=int(w[4]), bytes=int(w[5]), **kv,
                        worst_fn=w[10], worst_n=w[11], worst_w1=float(w[12])))


def nodes_of(keys):
    ns = [size[k][2] for k in keys]
    return str(ns[0]) if len(set(ns)) == 1 else "/".join(map(str, ns))


def size_row(keys, label):
    """a table row for one configuration, its modes in `keys`: events, bytes per mode, bytes added, nodes; None if a run is missing"""
    if not all(k in size for k in keys):
        return None
    b = {m: size[k][0] for m, k in zip(modes, keys)}
    extra = "".join(f" {b[m] - b['none']:+d} |" for m in modes if m != "none")
    return f"| {label} | {size[keys[0]][1]} | " + " | ".join(str(b[m]) for m in modes) + f" |{extra} {nodes_of(keys)} |"


# ---- 1. bytes vs ranks
npl = sorted({k[2] for k in size if k[0] == "ranks"})
rows_r, ratio_r = [], []
maxr, maxi = {m: 0.0 for m in modes}, {m: 0.0 for m in modes}  # largest ratio per mode
for wl in order["ranks"]:
    for np_ in npl:
        row = size_row([("ranks", wl, np_, "-", m) for m in modes], f"{wl} | {np_}")
        if row:
            rows_r.append(row)
    lo, hi = npl[0], npl[-1]
    if all(("ranks", wl, p, "-", m) in size for p in (lo, hi) for m in modes):
        r = {m: size[("ranks", wl, hi, "-", m)][0] / size[("ranks", wl, lo, "-", m)][0] for m in modes}
        ratio_r.append(f"| {wl} | " + " | ".join(f"{r[m]:.2f}" for m in modes) + " |")
        maxr = {m: max(maxr[m], r[m]) for m in modes}
        print(f"{wl}: trace.tf {hi}/{lo} ranks: " + ", ".join(f"{m} {r[m]:.2f}" for m in modes), file=sys.stderr)

# ---- 1b. bytes vs iterations
itl = sorted({int(k[3]) for k in size if k[0] == "iters"})
rows_i, ratio_i = [], []
for wl in order["iters"]:
    for n in itl:
        row = size_row([("iters", wl, int(iter_np), str(n), m) for m in modes], f"{wl} | {n}")
        if row:
            rows_i.append(row)
    if len(itl) >= 2:
        lo, hi = str(itl[0]), str(itl[-1])
        if all(("iters", wl, int(iter_np), n, m) in size for n in (lo, hi) for m in modes):
            r = {m: size[("iters", wl, int(iter_np), hi, m)][0] / size[("iters", wl, int(iter_np), lo, m)][0]
                 for m in modes}
            grow = {m: (size[("iters", wl, int(iter_np), hi, m)][0] - size[("iters", wl, int(iter_np), lo, m)][0])
                    / (int(hi) - int(lo)) for m in modes}
            ratio_i.append(f"| {wl} | " + " | ".join(f"{r[m]:.2f} ({grow[m]:+.2f})" for m in modes) + " |")
            maxi = {m: max(maxi[m], r[m]) for m in modes}
            print(f"{wl}: trace.tf {hi}/{lo} iterations: " + ", ".join(f"{m} {r[m]:.2f}" for m in modes), file=sys.stderr)



def verdict(mx):
    """one line: the largest ratio per mode, and whether every mode stays near-constant (<= 1.25)"""
    if not any(mx.values()):
        return "(no ratios)"
    grow = [m for m in modes if mx[m] > 1.25]
    return ("Largest ratio per mode: " + ", ".join(f"{m} {mx[m]:.2f}" for m in modes) + "; "
            + (f"grows by more than 25% in: {', '.join(grow)}." if grow else "every mode stays within 25% (near-constant)."))


# ---- 2. cost per call
configs = modes + ["path+cpu"]
rs = sorted({p for (p, c) in cc})
names = {"p2p": "Irecv+Isend+Waitall", "allreduce": "Allreduce"}


def cost(key, c):
    """median over rounds of: traced ns/iter, added ns/call vs untraced, ns/call vs none"""
    n = calls[key.split("_")[0]]
    ok = [p for p in rs if (p, c) in cc and (p, "untraced") in cc and (p, "none") in cc]
    t = [cc[(p, c)][key] for p in ok]
    add = [(cc[(p, c)][key] - cc[(p, "untraced")][key]) / n for p in ok]
    vsn = [(cc[(p, c)][key] - cc[(p, "none")][key]) / n for p in ok]
    return med(t), med(add), med(vsn), add


cost_rows, cost_rows_min, detail = [], [], []
unt = {k: med(cc[(p, "untraced")][k] for p in rs if (p, "untraced") in cc) for k in ("p2p", "allreduce", "p2p_min", "allreduce_min")}
cost_rows.append(f"| untraced | {unt['p2p']:.0f} | – | – | {unt['allreduce']:.0f} | – | – | – |")
cost_rows_min.append(f"| untraced | {unt['p2p_min']:.0f} | – | – | {unt['allreduce_min']:.0f} | – | – |")
for c in configs:
    label = "path + VOLUME=cpu" if c == "path+cpu" else c
    pt, pa, pv, padd = cost("p2p", c)
    at, aa, av, aadd = cost("allreduce", c)
    vs = "–" if c == "none" else None
    cost_rows.append(f"| {label} | {pt:.0f} | {pa:.0f} | {vs or f'{pv:+.0f}'} | {at:.0f} | {aa:.0f} | {vs or f'{av:+.0f}'} | "
                     f"{med(ccbytes.get(c, [0])):.0f} |")
    pt, pa, pv, _ = cost("p2p_min", c)
    at, aa, av, _ = cost("allreduce_min", c)
    cost_rows_min.append(f"| {label} | {pt:.0f} | {pa:.0f} | {vs or f'{pv:+.0f}'} | {at:.0f} | {aa:.0f} | {vs or f'{av:+.0f}'} |")
    detail.append(f"- {label}: added ns/call per round, p2p: " + ", ".join(f"{x:.0f}" for x in padd)
                  + "; allreduce: " + ", ".join(f"{x:.0f}" for x in aadd))
    print(f"cost {label}: p2p +{cost('p2p', c)[1]:.0f} ns/call ({cost('p2p', c)[2]:+.0f} vs none), "
          f"allreduce +{cost('allreduce', c)[1]:.0f} ns/call ({cost('allreduce', c)[2]:+.0f} vs none)", file=sys.stderr)

# ---- 2b. compressor cost per event
fold_rows = []
for m in modes:
    if m not in fold:
        continue
    vs = "–" if m == "none" or "none" not in fold else "%+.0f" % (fold[m][0] - fold["none"][0])
    fold_rows.append(f"| {m} | {fold[m][0]:.0f} | {fold[m][1]:.0f} | {vs} |")

# ---- 3. accuracy
acc_rows, groups = [], {}
for a in acc:  # (workload, args, mode) -> its runs, in the order run
    groups.setdefault((a["wl"], a["args"], a["mode"]), []).append(a)
for (wl, args, mode), runs in groups.items():
    args = "default" if args == "default" else args.replace(",", " ")
    w1 = [float(a["w1"]) for a in runs]
    mid = sorted(runs, key=lambda a: float(a["w1"]))[(len(runs) - 1) // 2]  # the median run (lower median)
    npass = sum(a["rc"] == 0 for a in runs)
    ok = f"{npass}/{len(runs)} passed" if npass == len(runs) else f"**{len(runs) - npass}/{len(runs)} FAILED**"
    acc_rows.append(f"| {wl} | {args} | {mode} | {med(w1):.4f} | {min(w1):.4f}–{max(w1):.4f} | "
                    f"{med(float(a['w1all']) for a in runs):.4f} | {med(float(a['w1raw']) for a in runs):.4f} | "
                    f"{mid['keys']} | {mid['worst_fn']} (n={mid['worst_n']}) {mid['worst_w1']:.4f} | "
                    f"{med(a['bytes'] for a in runs):.0f} | {ok} |")
    print(f"accuracy {wl} {mode}: w1 median {med(w1):.4f} ({min(w1):.4f}..{max(w1):.4f}), "
          f"w1all median {med(float(a['w1all']) for a in runs):.4f}", file=sys.stderr)

mh = " | ".join(f"{m} B" for m in modes)
ms = "|".join("---:" for _ in modes)
dh = " | ".join(f"{m} − none" for m in modes if m != "none")
ds = "|".join("---:" for m in modes if m != "none")
heading = "## Timing modes: size, cost and accuracy"
section = f"""{heading}

Written by `bench/timing.sh` on {date} (took {elapsed} s: bytes {t_sizes} s, cost {t_cost} s, accuracy {t_acc} s).
Machine: {nproc} cores, {cpu}, Linux {kernel}; load average {load0} at the start, {load} at the end.
MPI: {mpi}; ranks oversubscribed on the {nproc} cores, `MPIR_CVAR_POLLS_BEFORE_YIELD=1`. Built from: {source}.

What the trace keeps of each event's compute delta and call duration (`TRACEFOLD_TIMING`): none; stats (count,
min, max, sum, sum of squares); histogram (stats + `TRACEFOLD_BINS`={bins} bins); path (histograms per path,
i.e. per preceding event — the default). All runs of the size and cost tables use `TRACEFOLD_MODE=compressed`.

### Trace bytes vs ranks

Each workload at {nps.replace(' ', ', ')} ranks with its default iterations and problem size, one run per timing
mode (the modes' order rotates from one configuration to the next): bytes of the merged `trace.tf`; events
(all ranks); the "− none" columns: bytes added by the mode; nodes (events and loops of `tracefold show`, one
number if every mode prints the same count).

| workload | ranks | events | {mh} | {dh} | nodes |
|---|---:|---:|{ms}|{ds}|---:|
{chr(10).join(rows_r)}

`trace.tf` bytes at {npl[-1]} / at {npl[0]} ranks, per mode:

| workload | {' | '.join(modes)} |
|---|{ms}|
{chr(10).join(ratio_r)}

{verdict(maxr)}

### Trace bytes vs iterations

The same at {iter_np} ranks with `-i` {iters.replace(' ', ' and ')}:

| workload | iterations | events | {mh} | {dh} | nodes |
|---|---:|---:|{ms}|{ds}|---:|
{chr(10).join(rows_i)}

`trace.tf` bytes at {itl[-1] if itl else '–'} / at {itl[0] if itl else '–'} iterations, per mode (in parentheses:
bytes added per iteration):

| workload | {' | '.join(modes)} |
|---|{ms}|
{chr(10).join(ratio_i)}

{verdict(maxi)}

### Recorder cost per call

`bench_callcost` (bench/callcost.c, as `bench/run.sh` runs it) on 2 ranks, {cc_iters} iterations per repetition,
{cc_reps} repetitions per benchmark after a warm-up, the median repetition reported; untraced, and traced
(`LD_PRELOAD=libtracefold.so TRACEFOLD_MODE=compressed`) with each `TRACEFOLD_TIMING`, and with path timing plus
`TRACEFOLD_VOLUME=cpu` (compute bursts measured as per-thread CPU time). {rounds} rounds of one run of each;
odd rounds run untraced first and path + VOLUME=cpu last, even rounds the reverse. Per round: added ns per
intercepted call = (traced − untraced ns/iter) / calls per iteration (p2p: 3, allreduce: 1); vs none =
(traced − traced with none ns/iter) / calls per iteration, from the same round; the table gives medians over
rounds (ns/iter: median over rounds). trace.tf B = the merged trace of the traced run (median).

| TRACEFOLD_TIMING | p2p ns/iter | p2p added ns/call | p2p vs none ns/call | allreduce ns/iter | allreduce added ns/call | allreduce vs none ns/call | trace.tf B |
|---|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(cost_rows)}

The same from the fastest repetition of each run (a lower bound, less sensitive to other processes):

| TRACEFOLD_TIMING | p2p ns/iter | p2p added ns/call | p2p vs none ns/call | allreduce ns/iter | allreduce added ns/call | allreduce vs none ns/call |
|---|---:|---:|---:|---:|---:|---:|
{chr(10).join(cost_rows_min)}

Per round (median repetition):
{chr(10).join(detail)}

### Compressor cost per event

The recorder's folding alone, without MPI's noise: `wl_{fold_wl}` at 4 ranks with `-i {fold_iters}` recorded once per
mode (`TRACEFOLD_MODE=both`), then `bench_foldcost` (bench/foldcost.c) folds rank 1's flat file again in the
same mode, 5 repetitions (every result read back and compared with the flat file): ns per event.

| TRACEFOLD_TIMING | ns per event (median) | fastest | vs none |
|---|---:|---:|---:|
{chr(10).join(fold_rows)}

### Accuracy of the compute deltas

Each run at {acc_np} ranks with `TRACEFOLD_MODE=both` (the exact `rank-R.flat` files beside `trace.tf`), {acc_reps} times
per mode that keeps times (the modes' order rotating); `check_timing exact TRACE FLATDIR` (tests/check_timing.c) checks counts, min, max,
sum, bins and standard deviation of every event key (function, thread, call site) against the flat files
("exact checks"), and computes the normalised 1-Wasserstein error of the compute-delta distribution the
trace describes (∫|Q_exact(u) − Q_rec(u)| du / exact mean; 0 = exact): w1 from every path's bins (what
the trace keeps), w1all from the paths merged into {bins} bins, w1raw the same with every bin uniform over its
whole range; count-weighted mean over the keys. Columns: medians over the {acc_reps} runs, and the range of w1; worst
key = the key with the largest w1 in the median run; exact checks = runs whose exact checks passed.

| workload | args | mode | w1 | w1 range | w1all | w1raw | keys | worst key (w1) | trace.tf B | exact checks |
|---|---|---|---:|---|---:|---:|---:|---|---:|---|
{chr(10).join(acc_rows)}
"""

update(results, heading, section)
print(f"timing.sh: wrote {results}", file=sys.stderr)
EOF
finish "check_timing exact failed on some accuracy run (see above)"
