#!/usr/bin/env bash
# report.sh — `tracefold report`: every trace of the export_traces fixture
# (every workload at 4 ranks, stencil2d at 1) becomes one HTML file, which
# headless Chromium (Debian chromium) loads from disk with networking off:
#   - the page's script draws every chart without an exception: <body> ends
#     with data-tf-rendered="ok" in the DOM Chromium dumps (--dump-dom);
#   - no console message at all (--enable-logging=stderr: "CONSOLE" lines);
#   - the expected elements are there: the summary cards, one row per
#     called function in the function table (= `tracefold summary`), the
#     matrix (an SVG with ranks^2 cells, or the note that there are no
#     point-to-point messages), the per-rank bars (one compute and one MPI
#     bar per rank), the loop tree (or the note for flat input), at least
#     one histogram, and the merged event flow graph: an inline <svg> whose
#     nodes (Graphviz's class="node" groups) are as many as the nodes of
#     `tracefold efg --format json` for the same trace (from flat files: a
#     note saying why there is no graph);
#   - the file references nothing outside itself (no src=, no link, no
#     http(s) URL but the SVG namespace);
#   - a screenshot of each (--screenshot) into LOGDIR/report-<trace>.png.
# Then one report from flat files (--flat), one with a graph above
# --graph-limit (not drawn, the section says what is cut), one without
# Graphviz's dot on the PATH (the report is written, its flow-graph section says dot is
# missing), and the verb's refusals.
#
# usage: report.sh --cli TRACEFOLD --traces DIR --logdir DIR
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "cli traces logdir" "$@"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || fail "chromium not found (Debian chromium; scripts/setup.sh installs it)"
tf_workdir report
mkdir -p "$logdir"

chrome() { # OUTFILE ERRFILE ARGS...: headless Chromium with a fresh profile, nothing from the network
  local out=$1 err=$2 profile
  shift 2
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 "$@" >"$out" 2>"$err" || { tail -5 "$err" >&2; return 1; }
  rm -rf "$profile"
}

check() { # TRACE NAME [REPORT OPTIONS...]
  local trace=$1 name=$2 html="$work/$2.html"
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$cli" report -o "$html" "$@" "$trace" >"$work/$name.out" 2>"$work/$name.err" ||
    { cat "$work/$name.err" >&2; fail "$name: tracefold report failed"; }
  t1=$(date +%s.%N)
  ! grep -Eqi '<(link|iframe|img)[ >]|[ <]src=|url\(|https?://' <(sed -E 's#http://www.w3.org/(2000/svg|1999/xlink)##g' "$html") ||
    fail "$name: the report references something outside itself: $(grep -Eoi '<(link|iframe|img)[^>]*|[ <]src=[^ >]*|url\([^)]*|https?://[^ "]*' "$html" | grep -v www.w3.org | head -3)"
  chrome "$work/$name.dom" "$work/$name.log" --dump-dom "file://$html" || fail "$name: chromium --dump-dom failed"
  ! grep -q "CONSOLE" "$work/$name.log" || { grep "CONSOLE" "$work/$name.log" >&2; fail "$name: console messages"; }
  local dom="$work/$name.dom"
  grep -q '<body[^>]*data-tf-rendered="ok"' "$dom" ||
    { grep -o '<div id="tf-error">[^<]*' "$dom" >&2 || true; fail "$name: the page's script did not finish (no data-tf-rendered=\"ok\")"; }
  local nfn want_fn ranks cells bars
  nfn=$(grep -c '^<tr><td class="fn">' "$html" || true)
  want_fn=$("$cli" summary "$trace" | awk '$1 ~ /^MPI_/ && $2 > 0' | wc -l)
  [ "$nfn" -eq "$want_fn" ] || fail "$name: $nfn rows in the function table, $want_fn functions in tracefold summary"
  ranks=$(python3 -c 'import json,re,sys; h=open(sys.argv[1]).read(); print(len(json.loads(re.search(r"id=\"tf-data\">(.*?)</script>", h, re.S).group(1))["ranks"]))' "$html")
  grep -c 'class="card"' "$dom" | grep -q '^6$' || fail "$name: not 6 summary cards"
  if grep -q 'id="matrix-svg"' "$dom"; then
    cells=$(grep -o 'class="cell"' "$dom" | wc -l)
    [ "$cells" -eq $((ranks * ranks)) ] || fail "$name: $cells matrix cells for $ranks ranks"
  else
    grep -q 'id="matrix-empty"' "$dom" || fail "$name: neither a matrix nor the note that there are no messages"
  fi
  bars=$(grep -o 'class="compute"\|class="mpi"' "$dom" | wc -l)
  [ "$bars" -eq $((2 * ranks)) ] || fail "$name: $bars rank bars for $ranks ranks"
  grep -q 'id="loop-tree"\|holds flat files\|read from flat files' "$dom" || fail "$name: no loop tree"
  grep -q 'class="hist-svg"' "$dom" || fail "$name: no histogram"
  # the merged event flow graph: drawn inline (an <svg> in the section), with as many nodes as the graph
  # `tracefold efg --format json` gives for the same trace (Python counts them), or a note saying why not
  local fg want_nodes svg_nodes
  fg=$(python3 -c 'import re,sys; d=open(sys.argv[1]).read(); m=re.search(r"<section id=\"flow-graph\"[^>]*>.*?</section>", d, re.S); print(m.group(0) if m else "")' "$dom")
  [ -n "$fg" ] || fail "$name: no flow-graph section"
  ! grep -q '<section id="flow-graph"[^>]*hidden' <<<"$fg" || fail "$name: the flow-graph section is hidden"
  if [ "$#" -eq 0 ]; then
    "$cli" efg --format json --no-structure "$trace" >"$work/$name.efg.json" 2>"$work/$name.efg.err" ||
      { cat "$work/$name.efg.err" >&2; fail "$name: tracefold efg failed"; }
    want_nodes=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$work/$name.efg.json")
    grep -q '<section id="flow-graph"[^>]* data-drawn="1"' <<<"$fg" || fail "$name: the flow graph is not drawn: $(head -c 600 <<<"$fg")"
    grep -q '<svg' <<<"$fg" || fail "$name: no <svg> in the flow-graph section"
    svg_nodes=$(grep -o 'class="node"' <<<"$fg" | wc -l)
    [ "$svg_nodes" -eq "$want_nodes" ] ||
      fail "$name: the report's flow graph draws $svg_nodes nodes, tracefold efg gives $want_nodes"
    grep -q "data-nodes=\"$want_nodes\"" <<<"$fg" || fail "$name: the section's data-nodes is not $want_nodes"
  else
    grep -q 'flow-missing' <<<"$fg" || fail "$name: no drawing and no note why"
  fi
  chrome "$work/$name.shot.out" "$work/$name.shot.log" --window-size=1280,2600 --screenshot="$logdir/report-$name.png" \
    "file://$html" || fail "$name: chromium --screenshot failed"
  [ -s "$logdir/report-$name.png" ] || fail "$name: no screenshot"
  say "$name: renders in Chromium, no console messages, $nfn functions, ${cells:-no} matrix cells, $bars rank bars," \
      "flow graph of ${svg_nodes:-no drawn} nodes;" \
      "$(du -k "$html" | cut -f1) KiB, written in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s;" \
      "screenshot $logdir/report-$name.png"
  cells=''
  svg_nodes=''
}

n=0
for trace in "$traces"/*.np*; do
  [ -d "$trace" ] || continue
  check "$trace" "$(basename "$trace")"
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "no traces in $traces (the export_traces fixture)"
check "$traces/stencil2d.np4" stencil2d.flat --flat
grep -q "read from flat files" "$work/stencil2d.flat.html" || fail "--flat: the report does not say it has no loop structure"

# a graph above --graph-limit is not drawn; the section gives its size and the limit
"$cli" report --graph-limit 5 -o "$work/limit.html" "$traces/stencil2d.np4" >/dev/null ||
  fail "--graph-limit 5: tracefold report failed"
lim_nodes=$(grep -o '<section id="flow-graph"[^>]*data-drawn="0"' "$work/limit.html" | grep -o 'data-nodes="[0-9]*"' | tr -dc 0-9)
[ -n "$lim_nodes" ] && [ "$lim_nodes" -gt 5 ] || fail "--graph-limit 5: the flow graph is drawn, or its size is not given"
grep -q "the graph has $lim_nodes nodes and [0-9]* edges; this report draws graphs of up to 5 nodes and 20 edges" \
  "$work/limit.html" || fail "--graph-limit 5: the section does not say what is cut"
! grep -q '<svg[^>]*class="graph"\|<g id="graph0"' "$work/limit.html" || fail "--graph-limit 5: a graph drawing is in the page"
say "--graph-limit 5: the $lim_nodes-node graph of stencil2d is not drawn, and the section says so and why"

# without Graphviz: the report is still written; the flow-graph section says why it has no drawing
mkdir -p "$work/nodot"
ln -sf "$(command -v addr2line)" "$work/nodot/addr2line"
PATH="$work/nodot" "$cli" report -o "$work/nodot.html" "$traces/stencil2d.np4" >"$work/nodot.out" 2>&1 ||
  { cat "$work/nodot.out" >&2; fail "without dot: tracefold report failed"; }
if ! grep -q 'data-drawn="0"' "$work/nodot.html" || ! grep -q "dot was not found" "$work/nodot.html"; then
  fail "without dot: the flow-graph section does not say dot is missing"
fi
say "without dot on the PATH: the report is written, its flow-graph section says Graphviz's dot was not found"

# refusals
err() { # STATUS WANT_TEXT ARGS...: exit 1 (the trace or the output refused) or 2 (the command line)
  local status=$1 want=$2 rc=0
  shift 2
  "$cli" report "$@" >"$work/err.out" 2>&1 || rc=$?
  [ $rc -eq "$status" ] || fail "tracefold report $*: status $rc, expected $status: $(cat "$work/err.out")"
  grep -qF -- "$want" "$work/err.out" || fail "tracefold report $*: no \"$want\" in: $(cat "$work/err.out")"
}
err 2 "no trace given (see tracefold report --help)" -o "$work/x.html"
err 2 'unknown option "--bogus" (see tracefold report --help)' --bogus "$traces/stencil2d.np4"
err 2 "give one trace" -o "$work/x.html" "$traces/stencil2d.np4" "$traces/stencil2d.np4"
err 1 "parent directory does not exist" -o "$work/no/x.html" "$traces/stencil2d.np4"
err 1 "$work/missing" -o "$work/x.html" "$work/missing"
[ ! -e "$work/x.html" ] || fail "a failed report left $work/x.html"
"$cli" report --help | grep -q "usage: tracefold report" || fail "report --help prints no usage"
say "refusals: exit 1 (trace, output) or 2 (command line) with a message, nothing written; --help answers"
say "OK: $n reports (and one from flat files) render in headless Chromium; screenshots in $logdir"
