#!/usr/bin/env bash
# fuzz.sh — a longer fuzzing campaign of the trace readers and of the
# tracefold verbs' reading paths (show, imbalance, time, export: the harness
# tests/fuzz/fuzz_trace.c), for the nightly/bench path, not CI, and its
# figures in bench/RESULTS.md ("## Fuzzing campaign"):
#   executions, libFuzzer's edge coverage and features, corpus size, and
#   the source lines of src/core, src/export and src/cli that the final
#   corpus reaches (clang source-based coverage: the harness built with
#   -fprofile-instr-generate -fcoverage-mapping and driven by
#   tests/fuzz/regression_driver.c over the corpus, seeds and regression
#   inputs; llvm-cov report).
#
# usage: bench/fuzz.sh [SECONDS]        (default 1800; scripts/setup.sh first: seeds come from build/)
# environment: FUZZ_JOBS (libFuzzer processes, default: the cores), RESULTS (default bench/RESULTS.md)
# Exits non-zero if the campaign found a crash, leak or hang (scripts/fuzz.sh says which input).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-1800}
case "$secs" in '' | *[!0-9]*) echo "usage: bench/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac
results=${RESULTS:-bench/RESULTS.md}
jobs=${FUZZ_JOBS:-$(nproc)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-bench-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

t0=$SECONDS
status=0
FUZZ_JOBS=$jobs FUZZ_STATS=$tmp/stats scripts/fuzz.sh "$secs" | tee "$tmp/fuzz.out" || status=$?
wall=$((SECONDS - t0))
read -r execs cov ft corpus <"$tmp/stats" || { execs=0 cov=0 ft=0 corpus=0; }

# ---- source lines reached by the corpus
out=build-fuzz/cov
rm -rf "$out"
mkdir -p "$out"
build=${TF_BUILD:-build}
# shellcheck source=../scripts/fuzz_sources.sh
. scripts/fuzz_sources.sh
mapfile -t srcs < <(tf_fuzz_sources)
clang -g -O1 -std=c11 -fprofile-instr-generate -fcoverage-mapping -Iinclude -Isrc/core -Isrc/export -Isrc/graph -Isrc/cli \
  -DTF_REPLAY_PATH=\"\" -DTF_MPIRUN_DEFAULT=\"\" -DTF_SIM_PATH=\"\" -DTF_SMPIRUN_PATH=\"\" \
  tests/fuzz/fuzz_trace.c tests/fuzz/regression_driver.c "${srcs[@]}" -lzstd -lm -lpthread -o "$out/driver"
mkdir -p "$tmp/files"
LLVM_PROFILE_FILE="$out/corpus.profraw" TMPDIR=$tmp/files \
  "$out/driver" build-fuzz/corpus build-fuzz/seeds tests/fuzz/regressions >"$out/driver.log" 2>&1 ||
  { tail -5 "$out/driver.log" >&2; echo "bench/fuzz.sh: the coverage driver failed" >&2; status=1; }
llvm-profdata merge -sparse "$out/corpus.profraw" -o "$out/corpus.profdata"
llvm-cov report "$out/driver" -instr-profile="$out/corpus.profdata" "${srcs[@]}" >"$out/report.txt"
lines() { # DIR: "covered of total (pct)" of the lines of DIR's sources
  # (llvm-cov strips the sources' common prefix: "src/core/x.c" or "core/x.c")
  awk -v d="${1#src/}/" '$1 ~ ("^(src/)?" d) { t += $8; m += $9 } END { if (t) printf "%d of %d (%.1f %%)", t - m, t, 100 * (t - m) / t }' \
    "$out/report.txt"
}
core=$(lines src/core) export=$(lines src/export) graph=$(lines src/graph) cli=$(lines src/cli)
total=$(awk '$1 == "TOTAL" { printf "%d of %d (%s)", $8 - $9, $8, $10 }' "$out/report.txt")
# the verbs' own files: the ones the harness drives
verbs=$(awk '$1 ~ /^(src\/)?cli\/(cmd_show|cmd_imbalance|cmd_time|cmd_export|input|options|timefmt)\.c$/ {
  t += $8; m += $9 } END { if (t) printf "%d of %d (%.1f %%)", t - m, t, 100 * (t - m) / t }' "$out/report.txt")
echo "fuzz: lines reached by the corpus: core $core, export $export, graph $graph, cli $cli (the verbs driven: $verbs); total $total"

{
  echo "## Fuzzing campaign"
  echo
  echo "\`bench/fuzz.sh $secs\` on $(date -u +%Y-%m-%d), $(nproc) cores, $jobs libFuzzer processes ($(clang --version | head -1))."
  echo "The harness (tests/fuzz/fuzz_trace.c) reads each input as every reader does and then runs the"
  echo "verbs show, imbalance, time and export smpi on it (src/cli linked as tracefold_cli_verbs), under"
  echo "ASan and UBSan with leak detection; the starting corpus is scripts/fuzz.sh's seeds (real traces)"
  echo "and tests/fuzz/regressions (the hostile classes of issue 16: forged rank counts, wrong RANKS event"
  echo "counts, mixed runs, truncated and .part files, checkpoints, version-2 files)."
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| wall time | $wall s |"
  echo "| executions | $execs |"
  echo "| libFuzzer coverage | $cov edges, $ft features |"
  echo "| corpus | $corpus inputs |"
  echo "| crashes, leaks, hangs | $([ $status -eq 0 ] && echo none || echo "FOUND (build-fuzz/crashes)") |"
  echo "| lines reached, src/core | $core |"
  echo "| lines reached, src/export | $export |"
  echo "| lines reached, src/graph | $graph |"
  echo "| lines reached, src/cli | $cli |"
  echo "| of which show, imbalance, time, export, input, options | $verbs |"
  echo
  echo "Line coverage is clang's source-based coverage of the final corpus (llvm-cov report);"
  echo "replay, simulate, merge and stats launch or shell out and are not driven, hence src/cli's total."
  echo
} >"$tmp/section.md"
python3 bench/results_section.py "$results" "## Fuzzing campaign" <"$tmp/section.md"
echo "bench/fuzz.sh: section \"## Fuzzing campaign\" of $results written"
exit $status
