#!/usr/bin/env bash
# efg.sh — event flow graphs of one bundled workload at several rank counts
# (doc/EFG.md), one ctest test per workload (efg.<workload>).
#
# For each rank count P the workload is recorded under the recorder (the
# default mode: folded and merged into trace.tf, counting its own calls),
# then, each against an independent oracle:
#   1. the merged graph's JSON is valid JSON (Python's reader), its node
#      counts summed per function equal the calls the workload counted, and
#      on every rank every thread's events are its edge weights plus one;
#   2. `tracefold efg --replay-check`: the merged graph and each rank's own
#      graph, written as JSON and read back by tracefold's reader, regenerate
#      every rank's events exactly (the trace's cursor, every field), and
#      their transitions, node counts and initial nodes agree;
#   3. the same through files and text: `tracefold efg --regenerate` of the
#      merged graph's file prints exactly what `tracefold unroll --no-time`
#      prints for the trace (every rank), and the last rank's own graph
#      (--rank) what unroll prints for that rank;
#   4. Graphviz renders the merged graph: `dot -Tsvg` of the DOT form exits
#      0 with a non-empty SVG holding as many nodes as the JSON, and the
#      library's renderer (-o FILE.svg) does the same;
#   5. `--time` adds the transitions' time summaries: in path mode (the
#      default) every occurrence of a node is counted in the summary of the
#      edge it came by, or of its thread's first call.
#
# usage: efg.sh --mpirun "CMD ARGS" --nps "1 4 16" --lib LIBTRACEFOLD --cli TRACEFOLD -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun nps lib cli --:prog" "$@"
tf_workdir efg
command -v dot >/dev/null || fail "Graphviz's dot not found (scripts/setup.sh installs it; or apt-get install graphviz)"

summary=()
for np in $nps; do
  dir=$work/np$np
  rm -f "$work"/counts.*
  tf_record "$work/run$np" "$dir" -- "${prog[@]}" -c "$work/counts"
  trace=$dir/trace.tf

  # 1. the JSON, read by another reader: counts per function, edges + 1 per thread = events, per rank
  tf_must "$work/json$np" "tracefold efg (JSON) failed" "$cli" efg --no-resolve "$trace" -o "$work/efg$np.json"
  python3 - "$work/efg$np.json" "$work/efg$np.counts" >"$work/py$np" 2>&1 <<'EOF' || { cat "$work/py$np" >&2; fail "np=$np: the merged graph's JSON does not hold together (above)"; }
import json, re, sys
g = json.load(open(sys.argv[1]))
def ranks(text):  # the rank-list text form, expanded
    out = []
    def blocks(s, shift):
        i = 0
        while i < len(s):
            if s[i] == ' ': i += 1; continue
            if s[i] == '<':
                j = s.index('>', i); w = [int(x) for x in s[i + 1:j].split()]
                d, start, cs = w[0], w[1], w[2:]
                vals = [start]
                for k in range(d):
                    vals = [v + c * cs[2 * k + 1] for v in vals for c in range(cs[2 * k])]
                out.extend(v + shift for v in vals); i = j + 1
            elif s[i] == '(':
                depth, j = 1, i + 1
                while depth: depth += {'(': 1, ')': -1}.get(s[j], 0); j += 1
                m = re.match(r'x(\d+)\+(-?\d+)', s[j:])
                for k in range(int(m.group(1))): blocks(s[i + 1:j - 1], shift + k * int(m.group(2)))
                i = j + m.end()
            else: raise ValueError("bad rank list " + s)
    blocks(text, 0)
    return out
present = ranks(g["ranks"])
fnames = [f["name"] for f in g["functions"]]
calls, events, trans, first = {}, {}, {}, {}  # per (rank, thread): events, transitions, initial nodes
for n in g["nodes"]:
    assert sum(c * len(ranks(rl)) for c, rl in n["counts"]) == n["count"], "node count != its per-rank counts"
    for c, rl in n["counts"]:
        for r in ranks(rl):
            events[r, n["thread"]] = events.get((r, n["thread"]), 0) + c
            calls[fnames[n["fn"]]] = calls.get(fnames[n["fn"]], 0) + c
for e in g["edges"]:
    t = g["nodes"][e["from"]]["thread"]
    assert g["nodes"][e["to"]]["thread"] == t, "an edge across threads"
    assert sum(c * len(ranks(rl)) for c, rl in e["counts"]) == e["count"], "edge count != its per-rank counts"
    for c, rl in e["counts"]:
        for r in ranks(rl): trans[r, t] = trans.get((r, t), 0) + c
for i in g["initial"]:
    for r in ranks(i["ranks"]): first[r, i["thread"]] = first.get((r, i["thread"]), 0) + 1
for (r, t), n in events.items():  # a thread's events = its edge weights + 1
    assert r in present and first.get((r, t)) == 1 and trans.get((r, t), 0) + 1 == n, \
        f"rank {r} thread {t}: {trans.get((r, t), 0)} transitions + 1 != {n} events"
assert sum(events.values()) == g["events"], "node counts do not sum to the graph's events"
with open(sys.argv[2], "w") as f:
    for name in sorted(calls): print(name, calls[name], file=f)
print(len(g["nodes"]), len(g["edges"]), g["events"])
EOF
  read -r nodes edges events <"$work/py$np"
  tf_check_counts "$work/efg$np.counts" "np=$np: the merged graph's"

  # 2. exact reconstruction from the JSON read back, every rank, merged and per-rank graphs
  tf_must "$work/check$np" "np=$np: tracefold efg --replay-check failed" "$cli" efg --replay-check "$trace"

  # 3. the same through files: regenerated text = unroll's text
  tf_must "$work/unroll$np" "np=$np: tracefold unroll failed" "$cli" unroll --no-time "$trace"
  tf_must "$work/regen$np" "np=$np: tracefold efg --regenerate failed" "$cli" efg --regenerate "$work/efg$np.json"
  cmp -s "$work/unroll$np.out" "$work/regen$np.out" || {
    diff "$work/unroll$np.out" "$work/regen$np.out" | head -20 >&2
    fail "np=$np: the events regenerated from the merged graph differ from tracefold unroll --no-time"
  }
  last=$((np - 1))
  tf_must "$work/one$np" "np=$np: tracefold efg --rank $last failed" "$cli" efg --no-resolve --rank "$last" "$trace" \
    -o "$work/rank$np.json"
  tf_must "$work/unroll1$np" "np=$np: tracefold unroll --rank failed" "$cli" unroll --no-time --rank "$last" "$trace"
  tf_must "$work/regen1$np" "np=$np: tracefold efg --regenerate --rank failed" "$cli" efg --regenerate --rank "$last" \
    "$work/rank$np.json"
  cmp -s "$work/unroll1$np.out" "$work/regen1$np.out" ||
    fail "np=$np: the events regenerated from rank $last's graph differ from tracefold unroll --no-time --rank $last"

  # 4. Graphviz: the DOT form through dot -Tsvg, and the library's renderer
  tf_must "$work/dot$np" "np=$np: tracefold efg --format dot failed" "$cli" efg --format dot "$trace" -o "$work/g$np.dot"
  tf_must "$work/svg$np" "np=$np: dot -Tsvg failed on the graph" dot -Tsvg "$work/g$np.dot" -o "$work/g$np.svg"
  [ -s "$work/g$np.svg" ] || fail "np=$np: dot wrote an empty SVG"
  svgnodes=$(grep -c 'class="node"' "$work/g$np.svg" || true)
  [ "$svgnodes" -eq "$nodes" ] || fail "np=$np: the SVG holds $svgnodes nodes, the graph $nodes"
  tf_must "$work/lsvg$np" "np=$np: tracefold efg -o FILE.svg failed" "$cli" efg "$trace" -o "$work/l$np.svg"
  svgnodes=$(grep -c 'class="node"' "$work/l$np.svg" || true)
  [ "$svgnodes" -eq "$nodes" ] || fail "np=$np: tracefold efg -o FILE.svg holds $svgnodes nodes, the graph $nodes"

  # 5. times on the transitions
  tf_must "$work/time$np" "np=$np: tracefold efg --time failed" "$cli" efg --no-resolve --time "$trace" -o "$work/t$np.json"
  python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
if g["timing"] == "path":  # every occurrence of a node is timed on the edge it came by, or as a first call
    n = [n.get("time_first", {}).get("compute", {}).get("n", 0) for n in g["nodes"]]
    for e in g["edges"]:
        n[e["to"]] += e["time"]["compute"]["n"]
    for i, x in enumerate(g["nodes"]):
        c = x["count"]
        assert n[i] == c, f"node {i}: {n[i]} timed occurrences on its edges, {c} occurrences"
' "$work/t$np.json" 2>"$work/tpy$np" || { cat "$work/tpy$np" >&2; fail "np=$np: efg --time: bad times"; }

  json_bytes=$(wc -c <"$work/efg$np.json")
  summary+=("np=$np: $events events, $nodes nodes, $edges edges, $json_bytes B JSON")
done
say "ok: $name: $(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g'); node counts = the workload's counts," \
  "edge weights + 1 = events of every thread of every rank, every rank regenerated exactly from the merged and per-rank graphs (= unroll)," \
  "DOT renders with all nodes"
