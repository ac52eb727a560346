#!/usr/bin/env bash
# cst.sh — the cost of one CST marker (bench_cstmarker, doc/CST.md "Costs"):
# without the recorder (the weak tf_cst_* are absent: a test and a branch)
# and with libtracefold.so preloaded (a call and the recorder's count),
# against a thread-local counter; rewrites the "## CST markers: cost per
# marker" section of bench/RESULTS.md. ~10 s.
#
# usage: bench/cst.sh BUILD_DIR [ITERATIONS]
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
  echo "a call into libtracefold.so and one relaxed atomic increment (cst_markers.c counts markers; they"
  echo "do not guide folding yet). A thread-local counter stays at ~0 ns either way: the cheaper"
  echo "design for loop iterations, read by the recorder at its next MPI call (doc/CST.md)."
} >"${TMPDIR:-/tmp}/cst-section.$$.md"
python3 "$here/results_section.py" "$here/RESULTS.md" "## CST markers: cost per marker" <"${TMPDIR:-/tmp}/cst-section.$$.md"
rm -f "${TMPDIR:-/tmp}/cst-section.$$.md"
sed -n '/^## CST markers: cost per marker/,/^## [^C]/p' "$here/RESULTS.md"
