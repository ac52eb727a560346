#!/usr/bin/env bash
# cst.sh — the static analyser and tracefold-cc (doc/CST.md) on the bundled
# C workloads (workloads/NAME.c with wl_common.c).
#
#   --part structure: for every workload `tracefold cst` succeeds and
#     1. every WL(MPI_X, ...) call of the source (the workloads' own
#        counting macro, found by grep) is an mpi node MPI_X at its line;
#     2. every mpi node names a function written on its line, every loop
#        node's line has for/while/do at its column (the file's text is the oracle);
#   and the trees of ring, efgbranch (branches in loops, an else-if chain) and
#   cstbranch (the CYPRESS slides' nested loop with
#   a data-dependent branch) equal the hand-written ones in tests/golden/cst/.
#   --part cc: every workload built by tracefold-cc and by COMPILER alone
#     (same flags) prints the same output and records the same reference
#     trace (TRACEFOLD_MODE=flat at 2 ranks, `tracefold dump --no-time`, call
#     sites resolved to function and file:line by `tracefold stats`); and the
#     (a workload whose calls vary between two plain runs: each call at an
#     mpi node of the CST (or a call node: tail calls); one that fails in this MPI even
#     without the recorder: skipped, said) and the
#     marker counts of cstbranch -i 4 (one rank) are those of its loops:
#     enter 5, iter 14, exit 5, branch 10 (arms taken), end 10 (branch ends).
#   --part guided: CST-guided folding (doc/CST.md) of every workload built by
#     tracefold-cc is lossless at 1 rank (tests/run_workload.sh's checks).
#   --part nesting: the same at 4 ranks with a checkpoint every 10 ms, and the
#     loops of the trace (tracefold show --sites) are the source's, as
#     tests/cst_nesting.py defines it (each trace loop is the source loop or
#     branch arm its CST id names, around calls that are in it in the
#     source); the check rejects cstbranch folded dynamically
#     (TRACEFOLD_CST_GUIDE=0), which rotates its loops, and cstbranch's
#     guided trace with its two arms' ids swapped.
#   --part merge: the merge aligns ranks by the loops' CST ids (doc/MERGING.md):
#     cstbranch at 4 ranks, whose partner ranks take the other arm of its
#     branch in every iteration of its inner loop, recorded guided with
#     per-rank files kept (MERGE_FAULT, preloaded, fails the merge at
#     MPI_Finalize); the same files merged by CST ids (`tracefold merge`)
#     and by event keys only (`--by-keys`) both unroll to the reference
#     trace (TRACEFOLD_MODE=both) of every rank; the CST merge names the
#     source loops (cst#ID in `show`; `show --cst` names the loops and the
#     branch's two arms by their CST lines), which the key merge does not, and has
#     no more loop nodes and no more bytes than the key merge; both merge
#     times are said.
#   --part forms: tests/cst_program.c (function pointers, recursion, switch
#     with fall-through, loop bodies that are not blocks, a loop in a macro):
#     its tree equals the hand-checked one, the call through a pointer to
#     strlen is noted unresolved, the tracefold-cc build gives the same
#     output and reference trace and the markers counted by hand (enter 6
#     iter 12 exit 6 branch 11 end 8 at -i 3: a fall-through reports two
#     arms and one end, an arm left by return no end); `tracefold cst -p` of a
#     compile_commands.json gives the same CST as the files (absolute paths); a malformed CST
#     file, a source that does not parse and an unknown option are refused
#     (exit 1 naming the problem, exit 2); a Fortran source is compiled as
#     it is, with a note that it is not analysed; tests/cst_fallthrough.c
#     (switch labels and an if arm taken without a call, a call after each)
#     guided at 1 rank: lossless, and every call in its source loop and arm
#     (cst_nesting.py), not in an arm that made no call; 150 randomly mutated CST files are
#     shown or refused, none crashes the reader.
#
# usage: cst.sh --part structure|cc|forms|guided|nesting|merge --mpirun "CMD" --lib LIBTRACEFOLD --cli TRACEFOLD
#               --cc TRACEFOLD_CC --compiler MPICC --src WORKLOADS_DIR --golden DIR [--checker CHECK_TIMING]
#               [--fault MERGE_FAULT_SO]
#               -- NAME...
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
checker="" fault=""
tf_options "part mpirun lib cli cc compiler src golden checker fault --:names" "$@"
tf_workdir cst
tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$src"
mpi_flags=$($compiler --showme:compile 2>/dev/null || $compiler -show 2>/dev/null | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')

structure() {
  local wl=$1 cst=$work/$1.cst
  # shellcheck disable=SC2086 # the MPI include flags
  "$cli" cst -o "$cst" $mpi_flags "$wl.c" wl_common.c 2>"$work/$wl.notes" ||
    { cat "$work/$wl.notes" >&2; bad "$wl: tracefold cst failed"; return; }
  # 1. WL(MPI_X at line L  <=>  "mpi ID MPI_X $wl.c:L:"
  # (not in a macro's definition: its lines end with a backslash)
  awk '!/\\$/ { while (match($0, /WL\(MPI_[A-Za-z_]+/)) { print substr($0, RSTART + 3, RLENGTH - 3), NR; $0 = substr($0, RSTART + RLENGTH) } }' \
    "$wl.c" | sort -u >"$work/$wl.wl"
  awk -v f="$wl.c" '$1 == "mpi" { split($4, p, ":"); if (p[1] == f) print $3, p[2] }' "$cst" | sort -u >"$work/$wl.mpi"
  comm -23 "$work/$wl.wl" "$work/$wl.mpi" >"$work/$wl.missing"
  [ ! -s "$work/$wl.missing" ] || { cat "$work/$wl.missing" >&2; bad "$wl: WL() calls missing from the CST (above)"; }
  # 2. the text at each node's place (or a macro's use there: an upper-case NAME( on the line)
  while read -r kind name file line col; do
      text=$(sed -n "${line}p" "$file")
      if [[ $text =~ [^A-Za-z_]*[A-Z][A-Z0-9_]*\( && ! $text =~ WL\( ]]; then
        continue
      elif [ "$kind" = mpi ]; then
        [[ $text == *"$name"* ]] || bad "$wl: $file:$line has no $name: $text"
      else
        [[ ${text:col-1} == "$name"* ]] || bad "$wl: $file:$line:$col is not a $name loop: $text"
      fi
  done < <(awk '$1 == "mpi" || $1 == "loop" { split($4, p, ":"); print $1, $3, p[1], p[2], p[3] }' "$cst")
}

# the calls of a reference trace, call sites as function file:line (without
# DWARF discriminators: the basic blocks of a line, numbered by the compiler)
resolved_dump() {
  local trace=$1
  (cd "$(dirname "$trace")" && "$cli" stats "$(basename "$trace")") |
    awk '/^call site/ { on = 1; next } on && NF >= 4 { w = $4; for (i = 5; i <= NF && $i !~ /^\(discriminator/; i++) w = w "_" $i; print $1, w }' \
      >"$trace.sites"
  "$cli" dump --no-time "$trace" | awk 'NR == FNR { w[$1] = $2; next }
    { for (i = 1; i <= NF; i++) if ($i ~ /^cs=/) { s = substr($i, 4); $i = "cs=" ((s in w) ? w[s] : "UNRESOLVED:" s) } print }' \
    "$trace.sites" -
}

run_traced() { # BUILD-DIR BUILD RUN-NAME: BUILD's traced run as RUN-NAME, its resolved dump in RUN-NAME.dump
  local d=$1 b=$2 r=$3
  (cd "$d" && tf_traced 2 "$r.trace" TRACEFOLD_MODE=flat -- "./$b" -i 3 >"$r.out" 2>"$r.err") || return 1
  resolved_dump "$d/$r.trace" >"$d/$r.dump"
}

# a resolved dump's calls per rank and thread, in order, without the rank-wide sequence number
# and without the thread's number (threads are numbered in the order of their first MPI call,
# which the scheduler decides): one line per thread, RANK CALL|CALL|..., sorted
per_thread() {
  awk '{ t = $1 " " $2; $1 = $2 = $3 = ""; calls[t] = calls[t] "|" $0 }
    END { for (t in calls) { split(t, r, " "); print r[1], calls[t] } }' "$1" | sort
}

# the distinct file:line of a resolved dump's calls; of a CST's mpi and call nodes (a
# call's return address is the caller's when the callee ends in a tail call of MPI)
sites_of() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^cs=/) { n = split($i, p, "_at_"); print p[n] } }' "$1" | sort -u; }
cst_sites() { awk '$1 == "mpi" || $1 == "call" { sub(/:[0-9]+$/, "", $4); print $4 }' "$1" | sort -u; }

build_flags() { # NAME [SOURCE...]: the flags of both builds in $flags (default sources NAME.c wl_common.c)
  local wl=$1
  shift
  local sources=("$@")
  [ $# -gt 0 ] || sources=("$wl.c" wl_common.c)
  flags=(-O2 -g "${sources[@]}" -lm -lpthread)
}

build_cst() { # NAME [SOURCE...]: $work/NAME/cst built by tracefold-cc, its CST in $work/NAME/prog.cst
  local wl=$1 d=$work/$1
  mkdir -p "$d"
  build_flags "$@"
  tf_must "$d/cst.build" "$wl: the tracefold-cc build failed" env TRACEFOLD_CC_CST="$d/prog.cst" "$cc" "$compiler" "${flags[@]}" -o "$d/cst"
}

cc() { # NAME [SOURCE...]: default NAME.c wl_common.c
  local wl=$1 d=$work/$1
  build_cst "$@"
  tf_must "$d/plain.build" "$wl: the plain build failed" "$compiler" "${flags[@]}" -o "$d/plain"
  if ! run_traced "$d" plain plain; then
    # shellcheck disable=SC2086 # $mpirun is a command line
    if ! (cd "$d" && $mpirun -np 2 ./plain -i 3 >/dev/null 2>&1); then
      say "$wl: SKIPPED: its plain build fails in this MPI even without the recorder"
      return
    fi
    cat "$d/plain.err" >&2
    bad "$wl: the plain build's traced run failed"
    return
  fi
  run_traced "$d" cst cst || { cat "$d/cst.err" >&2; bad "$wl: the tracefold-cc build's traced run failed"; return; }
  diff "$d/plain.out" "$d/cst.out" >&2 || bad "$wl: output differs with tracefold-cc"
  grep -q UNRESOLVED "$d/plain.dump" && bad "$wl: call sites left unresolved"
  if diff "$d/plain.dump" "$d/cst.dump" >"$d/dump.diff"; then
    say "$wl: same output and reference trace ($(wc -l <"$d/cst.dump") calls)"
    return
  fi
  # threads: each thread's calls in order, whichever way the scheduler interleaved (and so
  # numbered) them (a dump line is RANK THREAD SEQ FUNCTION ...; SEQ counts the rank's calls of all threads)
  if diff <(per_thread "$d/plain.dump") <(per_thread "$d/cst.dump") >/dev/null; then
    say "$wl: same output and reference trace per thread ($(wc -l <"$d/cst.dump") calls, threads interleaved or numbered differently)"
    return
  fi
  # a workload whose calls differ from run to run (threads racing, polling): every call
  # of the tracefold-cc build is at the file:line of an mpi (or call) node of the CST
  run_traced "$d" plain plain2 || { bad "$wl: the plain build's second traced run failed"; return; }
  if ! diff -q "$d/plain.dump" "$d/plain2.dump" >/dev/null &&
    comm -23 <(sites_of "$d/cst.dump") <(cst_sites "$d/prog.cst") >"$d/stray" && [ ! -s "$d/stray" ]; then
    say "$wl: same output; its calls vary from run to run (two plain runs differ): each call at a call site of the CST"
  else
    head -20 "$d/dump.diff" >&2
    [ ! -s "$d/stray" ] || { echo "calls at no call site of the CST:" && cat "$d/stray"; } >&2
    bad "$wl: the reference trace differs with tracefold-cc"
  fi
}

# CST-guided folding is lossless for the tracefold-cc build at NP ranks: run_workload.sh (output,
# the workload's own call counts, unroll = reference event for event, time summaries exact)
guided_run() { # NAME NP [run_workload.sh option...]
  local wl=$1 np=$2
  shift 2
  "$tests_dir/run_workload.sh" --mpirun "$mpirun" --np "$np" --lib "$lib" --cli "$cli" ${checker:+--checker "$checker"} \
    "$@" -- "$work/$wl/cst" -i 4 >"$work/$wl.np$np" 2>&1 ||
    { cat "$work/$wl.np$np" >&2; bad "$wl: guided folding at $np ranks (above)"; return 1; }
}

guided() {
  build_cst "$1"
  guided_run "$1" 1 && say "$1: guided folding lossless at 1 rank"
}

# "SIGNATURE FILE:LINE" of each call site of TRACE-DIR's trace.tf (tracefold stats), in TRACE-DIR/sites
site_lines() {
  "$cli" stats "$1/trace.tf" |
    awk '/^call site/ { on = 1; next } on { for (i = 4; i < NF; i++) if ($i == "at") { n = split($(i + 1), p, "/"); print $1, p[n]; break } }' \
      >"$1/sites"
}

# the loop nesting of a trace of 4 ranks (tracefold show --sites of each) against the CST
# (tests/cst_nesting.py says what "matches" means): 0 when it matches, the problems in OUT
nesting_of() { # NAME TRACE-DIR OUT
  local wl=$1 trace=$2 out=$3 r
  site_lines "$trace"
  for r in 0 1 2 3; do
    "$cli" show --rank $r --no-time --sites "$trace/trace.tf" >"$trace/$r.show" || bad "$wl: tracefold show --sites failed"
  done
  python3 "$tests_dir/cst_nesting.py" "$src" "$work/$wl/prog.cst" "$trace/sites" "$trace"/?.show >"$out"
}

# at 4 ranks, with a checkpoint every 10 ms (open loops in a snapshot, which must change nothing):
# lossless, and the trace's loops are the source's
nesting() {
  local wl=$1
  build_cst "$wl"
  rm -rf "$work/$wl/trace"
  guided_run "$wl" 4 --env TRACEFOLD_CHECKPOINT=10ms --keep "$work/$wl/trace" || return 0
  if nesting_of "$wl" "$work/$wl/trace" "$work/$wl.nest"; then
    say "$wl: lossless at 4 ranks, the loops are the source's ($(grep -c 'loop x' "$work/$wl/trace/0.show") loop nodes on rank 0)"
  else
    cat "$work/$wl.nest" >&2
    bad "$wl: the guided trace's loops do not match the CST (above)"
  fi
}

# cstbranch's per-rank files (4 ranks, guided) merged by CST ids and by event keys: both
# lossless for every rank, the CST merge no larger, in loops and bytes
merge_by_cst() {
  local d=$work/cstbranch how t0 ms
  build_cst cstbranch
  local recorder=$lib
  lib="$fault:$recorder" # the merge at MPI_Finalize fails: every rank keeps its rank-R.tfc
  tf_must "$d/run" "cstbranch: the traced run failed" tf_traced 4 "$d/ranks" TRACEFOLD_MODE=both -- "$d/cst" -i 12
  lib=$recorder
  for r in 0 1 2 3; do [ -f "$d/ranks/rank-$r.tfc" ] || fail "cstbranch: rank $r kept no rank-$r.tfc"; done
  "$cli" dump --no-time "$d/ranks" >"$d/reference" || fail "tracefold dump of the reference failed"
  for how in cst keys; do
    t0=$(date +%s%N)
    tf_must "$d/merge.$how" "cstbranch: tracefold merge ($how) failed" \
      "$cli" merge $([ $how = cst ] || echo --by-keys) "$d/ranks" -o "$d/$how.tf"
    ms=$((($(date +%s%N) - t0) / 1000000))
    "$cli" unroll --no-time "$d/$how.tf" >"$d/$how.unrolled" || bad "cstbranch: tracefold unroll ($how) failed"
    cmp -s "$d/reference" "$d/$how.unrolled" ||
      { diff "$d/reference" "$d/$how.unrolled" | head -20 >&2; bad "cstbranch: merged by $how, unroll differs from the reference"; }
    "$cli" show --no-time "$d/$how.tf" >"$d/$how.show" || bad "cstbranch: tracefold show ($how) failed"
    loops[$how]=$(grep -c 'loop x' "$d/$how.show")
    bytes[$how]=$(wc -c <"$d/$how.tf")
    say "cstbranch np=4 merged by $how: lossless, ${loops[$how]} loop nodes, ${bytes[$how]} bytes, merge $ms ms (tracefold merge, wall)"
  done
  grep -q 'loop x.* cst#[0-9]' "$d/cst.show" || bad "cstbranch: the CST merge shows no loop's CST id"
  grep -q 'cst#' "$d/keys.show" && bad "cstbranch: the key merge kept CST ids"
  # show --cst names the source loops and the arms (the CST file's own lines)
  "$cli" show --no-time --cst "$d/prog.cst" "$d/cst.tf" >"$d/named.show" || bad "cstbranch: tracefold show --cst failed"
  local line
  line=$(awk '$1 == "branch" && $3 == "if" && $4 ~ /^cstbranch.c:/ { split($4, p, ":"); print p[2] }' "$d/prog.cst")
  for want in "for cstbranch.c:35" "arm 0 of if cstbranch.c:$line" "arm 1 of if cstbranch.c:$line"; do
    grep -qE "cst#[0-9]+ $want( |$)" "$d/named.show" || bad "cstbranch: show --cst names no node \"$want\""
  done
  printf 'tracefold-cst 1\nloop 0 for x.c:1:1\n' >"$d/bad.cst"
  local rc=0
  "$cli" show --cst "$d/bad.cst" "$d/cst.tf" >/dev/null 2>"$d/bad.err" || rc=$?
  [ "$rc" -eq 1 ] && grep -q "^tracefold show: .*bad.cst" "$d/bad.err" ||
    bad "show --cst of a malformed CST file: exit $rc, not 1 with a line 'tracefold show: ...bad.cst...'"
  [ "${loops[cst]}" -le "${loops[keys]}" ] || bad "cstbranch: more loop nodes merged by CST ids than by keys"
  [ "${bytes[cst]}" -le "${bytes[keys]}" ] || bad "cstbranch: more bytes merged by CST ids than by keys"
}

# PROGRAM's marker counts at -i 4 (-i 3 for cst_program), one process: "enter E iter I exit X branch B"
count_markers() {
  local prog=$1 want=$2 iters=4
  [[ $prog != */cst_program/* ]] || iters=3
  tf_must "$work/count" "$prog: the marker count run failed" \
    tf_traced 1 "" TRACEFOLD_MODE=flat TRACEFOLD_OUTPUT="$work/count.trace" TRACEFOLD_CST_REPORT=1 -- "$prog" -i $iters
  rm -rf "$work/count.trace"
  grep -q "$want\$" "$work/count.err" || { cat "$work/count.err" >&2; bad "$prog: marker counts are not $want"; }
}

# tests/cst_program.c: its tree, the unresolved call noted, the same output and trace
# with tracefold-cc, its markers; a compilation database; errors
forms() {
  local t=$tests_dir/cst_program.c
  cp "$t" "$work/cst_program.c"
  # shellcheck disable=SC2086
  (cd "$work" && "$cli" cst --show -o reread.cst $mpi_flags cst_program.c >forms.show 2>forms.notes) ||
    bad "cst_program: tracefold cst failed"
  diff -u "$golden/cst_program.show" "$work/forms.show" >&2 || bad "cst_program: the CST differs from $golden/cst_program.show"
  grep -q "cst_program.c:46: call through length: unresolved" "$work/forms.notes" ||
    { cat "$work/forms.notes" >&2; bad "cst_program: the call through a pointer to strlen not noted as unresolved"; }
  cd "$work"
  cc cst_program cst_program.c
  cd "$src"
  count_markers "$work/cst_program/cst" "enter 6 iter 12 exit 6 branch 11 end 8"
  # arms taken without a call (tests/cst_fallthrough.c): the calls after the branch stay
  # outside them, the calls inside an arm are in its node (cst_nesting.py), lossless
  local fd=$work/fallthrough
  mkdir -p "$fd"
  cp "$tests_dir/cst_fallthrough.c" "$fd/"
  tf_must "$fd/build" "cst_fallthrough: the tracefold-cc build failed" \
    env TRACEFOLD_CC_CST="$fd/prog.cst" "$cc" "$compiler" -O2 -g "$fd/cst_fallthrough.c" -o "$fd/prog"
  tf_must "$fd/run" "cst_fallthrough: the traced run failed" tf_traced 1 "$fd/trace" TRACEFOLD_MODE=both -- "$fd/prog"
  site_lines "$fd/trace"
  "$cli" show --rank 0 --no-time --sites "$fd/trace/trace.tf" >"$fd/0.show" || bad "cst_fallthrough: tracefold show failed"
  sed 's|[^ ]*/cst_fallthrough.c|cst_fallthrough.c|' "$fd/prog.cst" >"$fd/rel.cst"
  python3 "$tests_dir/cst_nesting.py" "$fd" "$fd/rel.cst" "$fd/trace/sites" "$fd/0.show" >"$fd/nest" ||
    { cat "$fd/nest" "$fd/0.show" >&2; bad "cst_fallthrough: a call is outside its source loop and arm (above)"; }
  [ "$(grep -c ' cst#' "$fd/0.show")" -ge 3 ] || bad "cst_fallthrough: no loop and arm nodes in the guided trace"
  "$cli" dump --no-time "$fd/trace" >"$fd/reference" && "$cli" unroll --no-time "$fd/trace/trace.tf" >"$fd/unrolled" &&
    cmp -s "$fd/reference" "$fd/unrolled" || bad "cst_fallthrough: unroll differs from the reference trace"
  # -p DIR: the same CST as the files with the same flags
  local args
  args=$(for a in $mpi_flags; do printf '"%s", ' "$a"; done)
  printf '[{"directory": "%s", "file": "ring.c", "arguments": ["cc", %s"-c", "ring.c", "-o", "ring.o"]},\n' "$src" "$args" >"$work/compile_commands.json"
  printf ' {"directory": "%s", "file": "wl_common.c", "arguments": ["cc", %s"-c", "wl_common.c"]}]\n' "$src" "$args" >>"$work/compile_commands.json"
  "$cli" cst -p "$work" >"$work/db.full" || bad "tracefold cst -p failed"
  sed "s| $src/| |" "$work/db.full" >"$work/db.cst" # the database's files are absolute
  # shellcheck disable=SC2086
  "$cli" cst $mpi_flags ring.c wl_common.c >"$work/files.cst" || bad "tracefold cst ring.c wl_common.c failed"
  diff -u "$work/files.cst" "$work/db.cst" >&2 || bad "the CST from compile_commands.json differs from the one from the files"
  # errors: a clear message and exit 1; a wrong command line: exit 2
  local rc body want
  while IFS='|' read -r body want; do
    # shellcheck disable=SC2059 # the case's \n escapes are the file's lines
    printf "$body" >"$work/bad.cst"
    rc=0
    "$cli" cst --show "$work/bad.cst" 2>"$work/bad.err" || rc=$?
    { [ "$rc" -eq 1 ] && grep -q "bad.cst:$want" "$work/bad.err"; } ||
      { cat "$work/bad.err" >&2; bad "a malformed CST file ($body): exit $rc, not 1 with \"bad.cst:$want\""; }
  done <<'CASES'
tracefold-cst 1\nfunc 0 main a.c:1:1\n    loop 1 for a.c:2:3\n|3: indented more than one level
tracefold-cst 2\n|1: not a CST file
tracefold-cst 1\nfunc 0 main a.c:1:1\n  lop 1 for a.c:2:3\n|3: unknown node kind
tracefold-cst 1\nfunc 0 main a.c:1:1\n  loop 2 for a.c:2:3\n|3: node ids must count
tracefold-cst 1\nfunc 0 main a.c:1:1\n  loop 1 for a.c:x:3\n|3: malformed location
tracefold-cst 1\nloop 0 for a.c:2:3\n|2: a func is a top-level line
tracefold-cst 1\n  loop 0 for a.c:2:3\n|2: indented more than one level
tracefold-cst 1\nfunc 0 main a.c:1:1 extra\n|2: expected KIND ID NAME
|1: empty file
CASES
  # 150 CST files with random bytes changed, cut or repeated: shown or refused, never a crash
  python3 - "$cli" "$work/reread.cst" "$work" <<'PY' >&2 || bad "a mutated CST file crashed tracefold cst --show (above)"
import random, subprocess, sys
cli, good, work = sys.argv[1:4]
data = open(good, "rb").read()
rng = random.Random(22)
crashed = 0
for k in range(150):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(b))
        op = rng.randrange(3)
        if op == 0:
            b[i] = rng.choice(b" :\n-0123456789abcfl\xff")
        elif op == 1:
            del b[i:i + rng.randint(1, 40)]
        else:
            b[i:i] = b[i:i + rng.randint(1, 60)]
    path = f"{work}/mutated.cst"
    open(path, "wb").write(b)
    rc = subprocess.run([cli, "cst", "--show", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if rc not in (0, 1):
        crashed += 1
        open(f"{work}/crash{k}.cst", "wb").write(b)
        print(f"mutation {k}: exit {rc}")
sys.exit(1 if crashed else 0)
PY
  printf 'int main(void) { for (;;) { return 0 } }\n' >"$work/broken.c"
  rc=0
  "$cli" cst "$work/broken.c" >/dev/null 2>"$work/broken.err" || rc=$?
  { [ "$rc" -eq 1 ] && grep -q "broken.c:1:.*error" "$work/broken.err"; } ||
    { cat "$work/broken.err" >&2; bad "a source that does not parse: exit $rc, not 1 with the parse error"; }
  rc=0
  "$cli" cst --frobnicate ring.c >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || bad "an unknown option: exit $rc, not 2"
  # a Fortran source: compiled as it is, with a note (where the compiler driver has Fortran)
  printf 'program p\n  print *, 1\nend program p\n' >"$work/f.f90"
  if "$compiler" -c "$work/f.f90" -o "$work/plain_f.o" 2>/dev/null; then
    "$cc" "$compiler" -c "$work/f.f90" -o "$work/f.o" 2>"$work/f.err" || bad "tracefold-cc of a Fortran source failed"
    grep -q "f.f90: a Fortran source: not analysed" "$work/f.err" || { cat "$work/f.err" >&2; bad "tracefold-cc said nothing of the Fortran source"; }
    [ -s "$work/f.o" ] || bad "tracefold-cc did not compile the Fortran source"
  else
    say "$compiler does not compile Fortran here: the Fortran note is not checked"
  fi
}

case $part in
  structure)
    for wl in "${names[@]}"; do structure "$wl"; done
    for wl in ring cstbranch efgbranch; do
      # shellcheck disable=SC2086
      "$cli" cst --show $mpi_flags "$wl.c" wl_common.c >"$work/$wl.show" 2>/dev/null || bad "$wl: tracefold cst --show failed"
      diff -u "$golden/$wl.show" "$work/$wl.show" >&2 || bad "$wl: the CST differs from $golden/$wl.show"
    done
    # the written file reads back to the same tree
    "$cli" cst --show "$work/cstbranch.cst" >"$work/reread.show" || bad "tracefold cst --show FILE.cst failed"
    diff -u "$work/cstbranch.show" "$work/reread.show" >&2 || bad "the CST file reads back differently"
    ;;
  cc)
    for wl in "${names[@]}"; do cc "$wl"; done
    [ -x "$work/cstbranch/cst" ] || { say "ok"; exit 0; }
    count_markers "$work/cstbranch/cst" "enter 5 iter 14 exit 5 branch 10 end 10"
    ;;
  forms)
    forms
    ;;
  merge)
    [ -n "$fault" ] || fail "--part merge needs --fault MERGE_FAULT_SO"
    declare -A loops bytes
    merge_by_cst
    ;;
  guided)
    for wl in "${names[@]}"; do guided "$wl"; done
    ;;
  nesting)
    for wl in "${names[@]}"; do nesting "$wl"; done
    # the check can fail: dynamic folding of the same program rotates cstbranch's loops
    if [ -x "$work/cstbranch/cst" ]; then
      tf_must "$work/dynamic" "cstbranch: the dynamic run failed" \
        tf_traced 4 "$work/dynamic.trace" TRACEFOLD_CST_GUIDE=0 -- "$work/cstbranch/cst" -i 4
      nesting_of cstbranch "$work/dynamic.trace" "$work/dynamic.nest" &&
        bad "cstbranch: the dynamic folder's trace passes the nesting check (it rotates loops: doc/CST.md)"
      say "cstbranch folded dynamically: rejected as expected ($(wc -l <"$work/dynamic.nest") problems shown)"
      # and a trace whose arm nodes name the other arm of the branch (ids swapped in show)
      t=$work/cstbranch/trace
      a0=$(awk '$1 == "arm" && $3 == 0 && $4 ~ /^cstbranch.c:/ { print $2 }' "$work/cstbranch/prog.cst")
      a1=$(awk '$1 == "arm" && $3 == 1 && $4 ~ /^cstbranch.c:/ { print $2 }' "$work/cstbranch/prog.cst")
      [ -n "$a0" ] && [ -n "$a1" ] && grep -q "cst#$a0\b" "$t/0.show" ||
        bad "cstbranch: rank 0's guided trace shows no node of the branch's arm 0 (cst#$a0)"
      sed "s/cst#$a0\b/cst#A/; s/cst#$a1\b/cst#$a0/; s/cst#A/cst#$a1/" "$t/0.show" >"$t/swapped.show"
      python3 "$tests_dir/cst_nesting.py" "$src" "$work/cstbranch/prog.cst" "$t/sites" "$t/swapped.show" \
        >"$work/swapped.nest" && bad "cstbranch: arm nodes naming the other arm pass the nesting check"
      say "cstbranch with its arms swapped: rejected as expected ($(wc -l <"$work/swapped.nest") problems shown)"
    fi
    ;;
  *) fail "--part structure, cc, forms, guided, nesting or merge" ;;
esac
[ "$tf_nbad" -eq 0 ] || fail "$tf_nbad check(s) failed"
say "ok"
