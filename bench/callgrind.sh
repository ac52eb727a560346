#!/usr/bin/env bash
# callgrind.sh — the recorder's cost per intercepted call in instructions
# (valgrind's callgrind): a yardstick that, unlike time, does not move with
# the load of a shared machine. bench_callcost's two loops (p2p: Irecv +
# Isend + Waitall, 3 calls an iteration; allreduce: 1 call) on 1 and 2
# ranks, untraced and traced (default mode: compressed, path timing; and
# TRACEFOLD_MODE=flat); only the loops are counted (--toggle-collect).
#
# usage: bench/callgrind.sh BUILD_DIR [BASELINE_BUILD_DIR] [--write]
#   BASELINE_BUILD_DIR: a build of an earlier commit (its libtracefold.so,
#     its own bench_callcost), measured the same way for a before/after table
#   --write: the table goes to the section "## Recorder cost per call:
#     callgrind instructions" of bench/RESULTS.md (else stdout only)
# environment (optional): ITERS [20000], NPS ["1 2"], MPIRUN [mpirun.mpich],
#   BEFORE [the baseline's directory]: what the baseline is called in the table's note
#
# Per call, rank 0: "added" = (the loop's instructions traced - untraced) /
# calls, everything the recorder makes the process do, MPI calls of its own
# (MPI_Get_count for statuses) included. On 2 ranks a blocking call polls
# for as long as its partner takes, which varies from run to run under
# valgrind: there "added" leaves out the instructions inside the loop's own
# MPI functions (PMPI_Irecv, PMPI_Isend, PMPI_Waitall, PMPI_Allreduce), in
# both runs. 1 rank is given both ways.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
write=0
dirs=()
for a in "$@"; do
  case $a in
    --write) write=1 ;;
    *) dirs+=("$(cd "$a" && pwd)") ;;
  esac
done
[[ ${#dirs[@]} -ge 1 && ${#dirs[@]} -le 2 ]] || { echo "usage: bench/callgrind.sh BUILD_DIR [BASELINE_BUILD_DIR] [--write]" >&2; exit 2; }
for d in "${dirs[@]}"; do
  for f in "$d/bench/bench_callcost" "$d/src/recorder/libtracefold.so"; do
    [[ -e $f ]] || { echo "callgrind.sh: missing $f (build the project first)" >&2; exit 2; }
  done
done
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  echo "callgrind.sh: needs valgrind (Debian: valgrind)" >&2
  exit 2
fi
MPIRUN=${MPIRUN:-mpirun.mpich}
ITERS=${ITERS:-20000}
NPS=${NPS:-1 2}
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS TRACEFOLD_VOLUME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-callgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# run BUILD NP KIND OUT: one callgrind run (KIND untraced, compressed or flat), rank 0's profile to OUT
run() {
  local build=$1 np=$2 kind=$3 out=$4 pre=()
  [[ $kind != untraced ]] && pre=(env LD_PRELOAD="$build/src/recorder/libtracefold.so" TRACEFOLD_OUTPUT="$tmp/trace.$kind"
    TRACEFOLD_MODE="$kind")
  rm -rf "$tmp/trace.$kind"
  nice -n 10 "$MPIRUN" -n "$np" "${pre[@]}" valgrind -q --tool=callgrind --callgrind-out-file="$out.%q{PMI_RANK}" \
    --toggle-collect='p2p_loop*' --toggle-collect='allreduce_loop*' "$build/bench/bench_callcost" "$ITERS" 1 \
    >"$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }
  callgrind_annotate --inclusive=yes "$out.0" >"$out.txt" 2>/dev/null
}

n=0
for d in "${dirs[@]}"; do
  for np in $NPS; do
    for kind in untraced compressed flat; do
      run "$d" "$np" "$kind" "$tmp/b$n.np$np.$kind"
    done
  done
  n=$((n + 1))
done
commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$tmp" "$here/RESULTS.md" "$write" "$ITERS" "$NPS" "$commit" \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" "${BEFORE:-${dirs[1]:-}}" "${dirs[@]}" <<'EOF'
import re, sys

from results_section import update

tmp, results, write, iters, nps, commit, date, before = sys.argv[1:9]
builds = sys.argv[9:]
iters = int(iters)
loops_iters = max(iters // 10, 5000) + iters  # bench_callcost's warm-up, then 1 repetition
mpi_fns = {"p2p_loop": ("PMPI_Irecv", "PMPI_Isend", "PMPI_Waitall"), "allreduce_loop": ("PMPI_Allreduce",)}
calls = {"p2p_loop": 3, "allreduce_loop": 1}

def profile(path):
    """function name -> inclusive Ir (the largest row of that name)"""
    out = {}
    for line in open(path):
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*?:(\w+)(?:'\d+)? \[", line)
        if m:
            name, ir = m.group(2), int(m.group(1).replace(",", ""))
            out[name] = max(out.get(name, 0), ir)
    return out

def per_call(b, np, kind, loop, outside_mpi):
    p = profile(f"{tmp}/b{b}.np{np}.{kind}.txt")
    ir = p.get(loop, 0)
    if outside_mpi:
        ir -= sum(p.get(f, 0) for f in mpi_fns[loop])
    return ir / loops_iters / calls[loop]

rows = []
for np in nps.split():
    for loop, label in (("p2p_loop", "p2p (Irecv+Isend+Waitall)"), ("allreduce_loop", "Allreduce")):
        for outside in ((0, 1) if np == "1" else (1,)):
            cells = []
            for kind in ("compressed", "flat"):
                for b in range(len(builds)):
                    cells.append(per_call(b, np, kind, loop, outside) - per_call(b, np, "untraced", loop, outside))
            base = per_call(0 if len(builds) == 1 else 1, np, "untraced", loop, outside)
            what = "outside MPI" if outside else "all"
            rows.append((np, label, what, base, cells))

if len(builds) == 2:
    head = "| ranks | loop | counted | untraced instr/call | compressed before | compressed after | flat before | flat after |\n|---|---|---|---:|---:|---:|---:|---:|\n"
    order = lambda c: [c[1], c[0], c[3], c[2]]  # cells: comp(after), comp(before), flat(after), flat(before)
else:
    head = "| ranks | loop | counted | untraced instr/call | compressed (default) | flat |\n|---|---|---|---:|---:|---:|\n"
    order = lambda c: c
table = head + "".join(f"| {np} | {label} | {what} | {base:.0f} | " + " | ".join(f"{x:.0f}" for x in order(cells)) + " |\n"
                       for np, label, what, base, cells in rows)
section = f"""## Recorder cost per call: callgrind instructions

Written by `bench/callgrind.sh` on {date}, at {commit}{' (before: ' + before + ')' if len(builds) == 2 else ''}.
Instructions the recorder adds per intercepted call (valgrind's callgrind, rank 0, only inside
bench_callcost's loops: {iters} iterations after a warm-up of {max(iters // 10, 5000)}), traced minus untraced;
"all": everything in the loop, the recorder's own MPI calls included (1 rank: the self-exchange
does not poll); "outside MPI": the loop's own MPI functions left out on both sides (on 2 ranks they
poll for as long as the partner takes, which varies from run to run). Instruction counts do not
move with the machine's load; they leave out what an instruction costs (the clock reads: one
`rdtsc` is 1 instruction here but 30+ ns on this virtual machine).

{table}"""
print(section)
if write == "1":
    update(results, "## Recorder cost per call: callgrind instructions", section)
EOF
