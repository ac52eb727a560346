#!/usr/bin/env bash
# cst.sh — the cost of one CST marker (bench_cstmarker, doc/CST.md "Costs"):
# without the recorder (the weak tf_cst_* are absent: a test and a branch)
# and with libtracefold.so preloaded (a call and the recorder's count),
# against a thread-local counter; rewrites the "## CST markers: cost per
# marker" section of bench/RESULTS.md. ~10 s. Then, for every bundled C
# workload at 4 ranks (default iterations; NP to change): built by
# tracefold-cc and traced (compressed mode, TRACEFOLD_CST_REPORT=1), its
# markers per MPI call and the merged trace's bytes against the plain
# build's, folded dynamically (TRACEFOLD_CST_GUIDE=0: what the markers cost
# without changing the folding; guided folding: bench/cstfold.sh); rewrites
# "## CST markers in the workloads". ~2 min.
#
# usage: bench/cst.sh BUILD_DIR [ITERATIONS]
# environment: MPIRUN (default: TF_MPIRUN of BUILD_DIR/CMakeCache.txt, else
# mpirun), MPICC (default: MPI_C_COMPILER of it), NP [4]
set -euo pipefail
build=$(cd "$1" && pwd)
n=${2:-20000000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$build/bench/bench_cstmarker
lib=$build/src/recorder/libtracefold.so
[ -x "$bin" ] || { echo "cst.sh: no $bin (cmake --build $1 --target bench_cstmarker)" >&2; exit 1; }
without=$("$bin" "$n")
with=$(LD_PRELOAD=$lib "$bin" "$n")
val() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
{
  echo "## CST markers: cost per marker"
  echo
  echo "bench/cst.sh: \`bench_cstmarker $n\` (no MPI), the median of 7 loops of $n iterations with one marker"
  echo "each, minus the empty loop's time ($(val "$without" empty_loop) ns an iteration); $(nproc) cores shared"
  echo "with other jobs: differences under ~0.5 ns are noise (they can come out negative)."
  echo
  echo "| marker | without the recorder | libtracefold.so preloaded |"
  echo "|---|---|---|"
  echo "| \`tf__cst_iter\`: call of the weak \`tf_cst_loop_iter\` (what tracefold-cc inserts) | $(val "$without" marker_call) ns | $(val "$with" marker_call) ns |"
  echo "| a thread-local counter in a shared library (initial-exec TLS), the alternative | $(val "$without" tls_counter) ns | $(val "$with" tls_counter) ns |"
  echo
  echo "Without the recorder the weak function's test costs nothing measurable. With it, a marker is"
  echo "a call into libtracefold.so, one relaxed atomic increment (cst_markers.c counts markers) and the"
  echo "thread's marker buffer (an iteration without a call replaces the one before it: CST-guided"
  echo "folding, bench/cstfold.sh). A thread-local counter costs at most a few ns here, the noise of"
  echo "this shared machine, well under the call; it would need a runtime library linked into every"
  echo "program built by tracefold-cc (a weak thread-local variable cannot be tested for absence: doc/CST.md)."
} >"${TMPDIR:-/tmp}/cst-section.$$.md"
python3 "$here/results_section.py" "$here/RESULTS.md" "## CST markers: cost per marker" <"${TMPDIR:-/tmp}/cst-section.$$.md"
rm -f "${TMPDIR:-/tmp}/cst-section.$$.md"

# ---- markers in the workloads
prog=cst.sh
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
mpi_of_build "$build"
np=${NP:-4}
cli=$build/src/cli/tracefold
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-cst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
workloads=$(sed -n '/^set(TF_C_WORKLOADS/,/^)/p' "$here/../workloads/CMakeLists.txt" | grep -v '^set\|^)' | tr -d ' ')
{
  echo "## CST markers in the workloads"
  echo
  echo "bench/cst.sh: every bundled C workload (and cstbranch) built by tracefold-cc, run at $np ranks with"
  echo "its default iterations under the recorder (compressed mode, TRACEFOLD_TIMING=none: no times, whose"
  echo "summaries differ from run to run); markers per MPI call (all ranks), and the merged trace's bytes"
  echo "against the plain build's (the same program path). Markers: loop enters, iterations and exits,"
  echo "arms taken and branch ends. Markers per call x the cost of a marker (above) is what the marker"
  echo "calls add to each MPI call; what guided folding then does with them: bench/cstfold.sh."
  echo
  echo "| workload | MPI calls | markers | markers per call | trace.tf bytes, plain | trace.tf bytes, tracefold-cc |"
  echo "|---|---|---|---|---|---|"
  for wl in $workloads cstbranch; do
    src=$here/../workloads
    [ -f "$src/$wl.c" ] || continue
    mkdir -p "$tmp/plain" "$tmp/cst" # the same program path in both traces: */prog
    (cd "$src" && "$mpicc" -O2 -g "$wl.c" wl_common.c -lm -lpthread -o "$tmp/plain/prog") >/dev/null 2>&1 || continue
    (cd "$src" && "$build/src/cst/tracefold-cc" "$mpicc" -O2 -g "$wl.c" wl_common.c -lm -lpthread -o "$tmp/cst/prog") \
      >/dev/null 2>&1 || { echo "| $wl | tracefold-cc failed | | | | |"; continue; }
    ok=1
    for b in plain cst; do
      rm -rf "$tmp/$b.trace"
      # shellcheck disable=SC2086 # $mpirun is a command line
      (cd "$tmp/$b" && nice -n 10 $mpirun -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$tmp/$b.trace" \
        TRACEFOLD_TIMING=none TRACEFOLD_CST_REPORT=1 TRACEFOLD_CST_GUIDE=0 ./prog >/dev/null 2>"$tmp/$b.err") || ok=0
    done
    [ "$ok" = 1 ] || { echo "| $wl | a run failed in this MPI | | | | |"; continue; }
    calls=$("$cli" stats "$tmp/cst.trace" | awk '$1 == "events:" { print $2 }')
    markers=$(awk '/cst markers/ { n += $7 + $9 + $11 + $13 + $15 } END { print n + 0 }' "$tmp/cst.err") # enter iter exit arm end
    echo "| $wl | $calls | $markers | $(awk -v m="$markers" -v c="$calls" 'BEGIN { printf "%.2f", c ? m / c : 0 }') |" \
      "$(stat -c %s "$tmp/plain.trace/trace.tf") | $(stat -c %s "$tmp/cst.trace/trace.tf") |"
  done
  echo
  echo "Both traces are folded dynamically (TRACEFOLD_CST_GUIDE=0; guided folding, the default for a"
  echo "tracefold-cc build: \"CST-guided folding\" below), so they hold the same events (tests/cst.sh); a few bytes differ because the call sites' offsets in the binary, kept in the"
  echo "trace, differ (ring at 4 ranks: the same unrolled events, offsets 0x190e vs 0x199e). Larger"
  echo "differences: programs whose calls vary from run to run (masterworker's any-source order at 4"
  echo "ranks, mtstress's threads and polling, mpiio's file names with the pid)."
} >"$tmp/section.md"
python3 "$here/results_section.py" "$here/RESULTS.md" "## CST markers in the workloads" <"$tmp/section.md"
sed -n '/^## CST markers: cost per marker/,$p' "$here/RESULTS.md" | sed '/^## [^C]/,$d'

