#!/usr/bin/env bash
# fuzz.sh — fuzz the trace readers with libFuzzer (tests/fuzz/fuzz_trace.c).
#
#   scripts/fuzz.sh [SECONDS]     (default 60)
#
# 1. builds the harness, the library core, the exporter, the graph library and the CLI verbs
#    (the harness drives show, imbalance, time and export on every input
#    that opens) with clang -fsanitize=fuzzer,address,undefined into
#    build-fuzz/fuzz_trace;
# 2. makes a seed corpus of real traces (build-fuzz/seeds): a few bundled
#    workloads from build/ (scripts/setup.sh) traced with TRACEFOLD_MODE=both;
#    the seeds are each run's trace.tf (also with its sections stored raw),
#    its rank-*.flat, the rank-*.tfc the recorder's compressor makes of them,
#    copies with only the functions used in their function table, and all
#    the ranks' files concatenated (read as one trace directory);
# 3. runs every file of tests/fuzz/regressions/ once through the harness
#    (ctest unit.fuzz_regressions does the same in every build, without
#    libFuzzer: tests/fuzz/regression_driver.c);
# 4. fuzzes for SECONDS (new inputs kept in build-fuzz/corpus; the seeds and
#    the regression inputs are the starting corpus).
# FUZZ_JOBS=N runs N fuzzing processes (libFuzzer -fork=N; default 1);
# FUZZ_STATS=FILE appends "executions coverage features corpus" to FILE
# (bench/fuzz.sh). bench/fuzz.sh is the longer campaign.
# Exits non-zero if a regression input or the fuzzer made the harness crash,
# leak, hang (> 10 s on one input) or exceed 2 GB; the inputs are then in
# build-fuzz/crashes/ and listed at the end with how to reproduce them.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case "$secs" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac
out="build-fuzz"
build=${TF_BUILD:-build}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (scripts/setup.sh installs clang)" >&2; exit 1; }
mkdir -p "$out/obj" "$out/seeds" "$out/corpus" "$out/crashes"

# ---- 1. build: the core's, the exporter's and the verbs' sources as their CMakeLists.txt list them
# shellcheck source=fuzz_sources.sh
. scripts/fuzz_sources.sh
[ -f "$build/src/export/report_assets.c" ] || { echo "fuzz.sh: $build is not built (run scripts/setup.sh)" >&2; exit 1; }
mapfile -t srcs < <(tf_lib_sources src/core tracefold_core | sed 's|^src/core/||')
mapfile -t more < <(tf_fuzz_sources | grep -v '^src/core/')
[ ${#srcs[@]} -gt 0 ] && [ ${#more[@]} -gt 0 ] ||
  { echo "fuzz.sh: no sources found for tracefold_core, tracefold_export or tracefold_cli_verbs" >&2; exit 1; }
for s in "${more[@]}"; do srcs+=("$(realpath -m --relative-to=src/core "$s")"); done # relative to src/core, as the core's
san=(-g -O1 -std=c11 -fno-omit-frame-pointer -fno-sanitize-recover=all -Iinclude -Isrc/core -Isrc/export -Isrc/graph -Isrc/cst -Isrc/genapp -Isrc/cli "-I$build/src/recorder/gen"
     -DTF_REPLAY_PATH=\"\" -DTF_MPIRUN_DEFAULT=\"\" -DTF_SIM_PATH=\"\" -DTF_SMPIRUN_PATH=\"\")
rm -f "$out"/obj/*.o
pids=()
for s in "${srcs[@]}"; do
  o=${s//\//_} # util/bytes.c -> util_bytes
  o=${o//../_}
  "$cc" "${san[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "src/core/$s" -o "$out/obj/${o%.c}.o" \
    2>"$out/obj/${o%.c}.log" &
  pids+=($!)
done
built=0
for i in "${!pids[@]}"; do
  o=${srcs[$i]//\//_}
  o=${o//../_}
  wait "${pids[$i]}" || { cat "$out/obj/${o%.c}.log" >&2; built=1; }
done
[ $built -eq 0 ] || { echo "fuzz.sh: compiling the core with $cc failed" >&2; exit 1; }
"$cc" "${san[@]}" -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_trace.c "$out"/obj/*.o \
  -lzstd -lpthread -lm -o "$out/fuzz_trace"
"$cc" "${san[@]}" -Wall -Wextra -Werror -fsanitize=fuzzer-no-link,address,undefined tests/fuzz/make_seeds.c \
  "$out"/obj/*.o -lzstd -lpthread -lm -o "$out/make_seeds"
echo "fuzz: built $out/fuzz_trace (${#srcs[@]} sources: core, exporter, CLI verbs; ${SECONDS} s)"

# ---- 2. seeds: real traces of a few workloads
lib=$build/src/recorder/libtracefold.so
[ -f "$lib" ] || { echo "fuzz.sh: $lib not built (run scripts/setup.sh)" >&2; exit 1; }
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/files"
fuzz() { TMPDIR=$tmp/files "$out/fuzz_trace" "$@"; } # the harness writes its trace directories there
rm -f "$out"/seeds/*
for spec in stencil2d:4 masterworker:3 branchy:3 nbcoll:2 threads:2; do
  wl=${spec%:*} np=${spec#*:}
  prog=$build/workloads/wl_$wl
  [ -x "$prog" ] || { echo "fuzz.sh: $prog not built" >&2; exit 1; }
  mpirun.mpich -np "$np" env LD_PRELOAD="$lib" TRACEFOLD_MODE=both TRACEFOLD_OUTPUT="$tmp/$wl" "$prog" \
    >"$tmp/$wl.out" 2>&1 || { cat "$tmp/$wl.out" >&2; echo "fuzz.sh: traced run of $wl failed" >&2; exit 1; }
  t=$tmp/$wl
  [ -f "$t/trace.tf" ] || { echo "fuzz.sh: the traced run of $wl wrote no trace.tf" >&2; exit 1; }
  for f in "$t"/trace.tf "$t"/rank-*.flat; do
    cp "$f" "$out/seeds/$wl-np$np-$(basename "$f")"
  done
  # the merged trace with stored (mutable) and zstd sections, and a small copy (used functions only)
  "$out/make_seeds" merged "$out/seeds/$wl-np$np-trace" "$t/trace.tf"
  # per-rank compressed files (a run writes them only when it stops early), made of the flat files
  # by the recorder's compressor (a 16K memory cap on rank 0: several segments), and "small" copies
  # of both whose function table holds only the functions the run uses (tests/fuzz/make_seeds.c)
  flat=()
  for ((r = 0; r < np; r++)); do flat+=("$t/rank-$r.flat"); done
  "$out/make_seeds" ranks "$out/seeds/$wl-np$np" 16384 "${flat[@]}"
  # several per-rank files in one input: the harness reads them as one trace directory (merged)
  for kind in tfc flat; do
    cat "$out/seeds/$wl-np$np"-rank-*.small.$kind >"$tmp/ranks.$kind"
    mv "$tmp/ranks.$kind" "$out/seeds/$wl-np$np-ranks.small.$kind"
  done
done
nseeds=$(find "$out/seeds" -type f | wc -l)
nmerged=$(find "$out/seeds" -name '*.tf' | wc -l)
echo "fuzz: $nseeds seed files, $(du -sk "$out/seeds" | cut -f1) KB ($nmerged merged traces; ${SECONDS} s)"

# ---- 3 and 4: regressions, then fuzzing
opts=(-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -artifact_prefix="$out/crashes/")
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# the sanitizer's or libFuzzer's report from a log, without libFuzzer's own frames
report() {
  sed -n '/ERROR: \|runtime error: \|ALARM: /,$p' "$1" | grep -v -E 'in fuzzer::|in __libc_start|in _start|in main ' |
    head -n 60 >&2
}
status=0
nreg=0
for f in tests/fuzz/regressions/*; do
  case "$(basename "$f")" in README*) continue ;; esac
  [ -f "$f" ] || continue
  nreg=$((nreg + 1))
  if ! fuzz "${opts[@]}" "$f" >"$tmp/reg.log" 2>&1; then
    report "$tmp/reg.log"
    echo "FAIL: regression input $f" >&2
    status=1
  fi
done
echo "fuzz: $nreg regression inputs run"

echo "fuzz: fuzzing for $secs s (log in $out/fuzz.log)"
touch "$tmp/stamp"
fuzz_rc=0
jobs=()
[ "${FUZZ_JOBS:-1}" -le 1 ] || jobs=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
fuzz "${opts[@]}" "${jobs[@]}" -max_total_time="$secs" -print_final_stats=1 -dict=tests/fuzz/trace.dict \
  "$out/corpus" "$out/seeds" tests/fuzz/regressions >"$out/fuzz.log" 2>&1 || fuzz_rc=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$out/fuzz.log" |
  sed 's/^stat::/fuzz: /' || true
# the last status line: "#N ... cov: C ft: F corp: U/..."
last=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$out/fuzz.log" | tail -1 || true)
execs=$(grep -E '^stat::number_of_executed_units' "$out/fuzz.log" | awk '{ print $2 }' || true)
[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last") ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
echo "fuzz: ${execs:-?} executions, coverage ${cov:-?} edges, ${ft:-?} features"
echo "fuzz: corpus now $(find "$out/corpus" -type f | wc -l) inputs"
[ -z "${FUZZ_STATS:-}" ] || echo "${execs:-0} ${cov:-0} ${ft:-0} $(find "$out/corpus" -type f | wc -l)" >>"$FUZZ_STATS"

# A timeout is wall-clock time: on a loaded machine an input can exceed it without any hang.
# One that finishes when run again (same limit) is reported and not counted.
found="" flaky=0
for f in $(find "$out/crashes" -type f -newer "$tmp/stamp" ! -name 'slow-unit-*' | sort); do
  if [[ $(basename "$f") == timeout-* ]] && fuzz "${opts[@]}" "$f" >"$tmp/again.log" 2>&1; then
    echo "fuzz: $f timed out but finished when run again (machine load, not a hang): not counted" >&2
    flaky=1
    continue
  fi
  found+="$f "
done
if [ $fuzz_rc -ne 0 ] && { [ -n "$found" ] || [ $flaky -eq 0 ]; }; then
  report "$out/fuzz.log"
  grep -E 'Test unit written|^MS: ' "$out/fuzz.log" >&2 || true
  echo "FAIL: the fuzzer found an input that crashes, leaks or hangs a reader (exit status $fuzz_rc)" >&2
  status=1
fi
if [ -n "$found" ]; then
  echo "fuzz: inputs that failed (reproduce: $out/fuzz_trace FILE; keep it in tests/fuzz/regressions/):" >&2
  for f in $found; do
    echo "  $f ($(stat -c %s "$f") bytes)" >&2
  done
fi
exit $status
