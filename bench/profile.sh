#!/usr/bin/env bash
# profile.sh — where the recorder's nanoseconds per call go: a perf profile
# of bench_callcost on 1 rank, traced (default mode: compressed, path
# timing), its samples summed by part of the recorder, written to the
# section "## Recorder cost per call: where the time goes" of
# bench/RESULTS.md.
#
# usage: bench/profile.sh BUILD_DIR
# environment (optional): ITERS [100000], REPS [9], MPIRUN [mpirun.mpich]
#
# How: `perf record -F 20000` (the cpu-clock event: it works on virtual
# machines without hardware counters) of one traced run and one untraced
# run of the same length; every sample's symbol is put in one part (the
# table `parts` below; unknown symbols of libtracefold.so are "other
# recorder", of the MPI library "MPI library"). A part's ns per intercepted
# call = its share of the traced run's samples x the traced run's time per
# call (the median repetition bench_callcost reports), so the parts add up
# to the traced time per call; the untraced run gives the MPI library's and
# the loop's own share for comparison. 1 rank: the p2p loop exchanges with
# itself, so what the MPI library does is small and the recorder's own work
# is what shows.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:?usage: bench/profile.sh BUILD_DIR}" && pwd)
bin=$build/bench/bench_callcost
lib=$build/src/recorder/libtracefold.so
for f in "$bin" "$lib"; do
  [[ -e $f ]] || { echo "profile.sh: missing $f (build the project first)" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "profile.sh: needs perf (Debian: linux-perf)" >&2; exit 2; }
MPIRUN=${MPIRUN:-mpirun.mpich}
ITERS=${ITERS:-100000}
REPS=${REPS:-9}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS TRACEFOLD_VOLUME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-profile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for kind in untraced traced; do
  pre=()
  [[ $kind == traced ]] && pre=(env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/trace")
  "$MPIRUN" -n 1 "${pre[@]}" perf record -q -F 20000 -o "$tmp/$kind.data" "$bin" "$ITERS" "$REPS" >"$tmp/$kind.out" \
    2>"$tmp/$kind.err" || { cat "$tmp/$kind.out" "$tmp/$kind.err" >&2; exit 1; }
  perf report -i "$tmp/$kind.data" --no-children --sort dso,sym -F overhead,sample,dso,sym --stdio -q 2>/dev/null |
    sed 's/^ *//' >"$tmp/$kind.syms"
done
commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$tmp" "$here/RESULTS.md" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$ITERS" "$REPS" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$commit" <<'EOF'
import re, sys

from results_section import update

tmp, results, date, iters, reps, load0, load, commit = sys.argv[1:]
# part -> symbol patterns (re.match on the symbol name), in the order tried
parts = [
    ("clock reads", r"(__vdso_clock_gettime|clock_gettime|tf_now_ns)$"),
    ("time summaries (path histograms)", r"(tf_timing_|dstat_|tf_dstat|tf_hist_|hist_|bin_|tf_bin|tf_bins_|scaled_deviation|stats_add|settle)"),
    ("folding (fast path, loops, value sequences)", r"(tf_folder_|absorb|push_node|kmap_|truncate_to|fold_|tf_vseq_|hold|commit|slow_push|new_event|recycle|grow_slots|reserve)"),
    ("request ids, call sites, handles", r"(tf_req_|tf_map_|snap_|simple_get|fill_req|shared_index|tf_comm_get|tf_dtype_get|tf_op_get|tf_callsite|tf_msg_|put_status|tf_statuses|tf_call_scratch)"),
    ("argument values, checks", r"(tf_put|tf_call_|tf_event_fields|split|transform|tf_req_transform)"),
    ("compressor and writer bookkeeping", r"(tf_compressor_|tf_file_writer_|tf_prev_|tf_order_|folder_of|recount)"),
    ("lock", r"(tf_lock|tf_unlock|pthread_mutex)"),
]
rows = {}
def load_syms(kind):
    total, by = 0, {}
    for line in open(f"{tmp}/{kind}.syms"):
        w = line.split(None, 4)
        if len(w) < 5 or not w[1].isdigit():
            continue
        n, dso, sym = int(w[1]), w[2], w[4].strip()
        total += n
        name = sym.split()[-1] if sym else ""
        if "libtracefold" in dso:
            part = next((p for p, rx in parts if re.match(rx, name)), "other recorder (wrappers, tf_call_begin/end)")
        elif name.startswith(("clock_gettime", "__vdso_clock_gettime")):
            part = "clock reads"
        elif "libmpi" in dso or "libuc" in dso or "libfabric" in dso or "libhwloc" in dso:
            part = "MPI library"
        elif "bench_callcost" in dso:
            part = "the benchmark's loop"
        else:
            part = "other (libc, kernel)"
        by[part] = by.get(part, 0) + n
    return total, by
def ns_per_call(kind):
    out = {}
    for line in open(f"{tmp}/{kind}.out"):
        w = line.split()
        if w and w[0].endswith("_ns_per_iter") and "min" not in w[0]:
            out[w[0].split("_")[0]] = float(w[1]) / int(w[3])
    return out
tt, tby = load_syms("traced")
ut, uby = load_syms("untraced")
tns, uns = ns_per_call("traced"), ns_per_call("untraced")
# both loops run alike often: the time per call of the whole run is their average
t_call = (tns["p2p"] * 3 + tns["allreduce"]) / 4
u_call = (uns["p2p"] * 3 + uns["allreduce"]) / 4
order = [p for p, _ in parts] + ["other recorder (wrappers, tf_call_begin/end)", "MPI library", "the benchmark's loop",
                                  "other (libc, kernel)"]
lines = []
for p in order:
    a, b = tby.get(p, 0), uby.get(p, 0)
    if not a and not b:
        continue
    lines.append(f"| {p} | {100 * a / tt:.1f} % | {a / tt * t_call:.0f} | {b / ut * u_call:.0f} |")
    print(f"{p}: {100 * a / tt:.1f} % of the traced run, {a / tt * t_call:.0f} ns/call", file=sys.stderr)
heading = "## Recorder cost per call: where the time goes"
section = f"""{heading}

Written by `bench/profile.sh` on {date}, at {commit}. Load average (1/5/15 min): {load0} at the start,
{load} at the end.

How measured: `perf record -F 20000` (cpu-clock) of `bench_callcost {iters} {reps}` on 1 rank (the p2p loop
exchanges with itself), once traced (`LD_PRELOAD=libtracefold.so`, compressed mode, path timing) and once
untraced; samples summed by part (bench/profile.sh lists which symbols make each part). ns per call = the
part's share of the run's samples × the run's time per intercepted call (median repetition, the two loops
weighted by their calls): traced {t_call:.0f} ns, untraced {u_call:.0f} ns per call, so the recorder adds
{t_call - u_call:.0f} ns per call here. The run includes start-up and MPI_Finalize (the merge and the write),
a few percent of it.

| part | share of the traced run | traced ns/call | untraced ns/call |
|---|---:|---:|---:|
{chr(10).join(lines)}
"""
update(results, heading, section)
print(f"profile.sh: traced {t_call:.0f} ns/call, untraced {u_call:.0f}; wrote {results}", file=sys.stderr)
EOF
