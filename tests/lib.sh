# lib.sh — what the test scripts of tests/ share. Sourced, not run, after
# the script's own `set` line (it works with and without `set -e`):
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# On sourcing: tf_name is the script's file name (run_workload.sh),
# tf_prefix the prefix of `say` (the name without .sh), and
# MPIR_CVAR_POLLS_BEFORE_YIELD=1 is exported (MPICH ranks yield the core
# while they poll: the tests run more ranks than there are cores).
#
#   tf_options SPEC "$@"   parse the command line: SPEC lists the options
#                          the script takes, space-separated: NAME is
#                          "--NAME VALUE" into the variable NAME ("-" as
#                          "_": --min-threads into min_threads); NAME:VAR
#                          into VAR; a trailing "+" (env:settings+) makes
#                          the option repeatable, appended to the array
#                          VAR; "--:VAR" in SPEC: "-- PROGRAM [ARGS...]"
#                          ends the options, and what follows is put in
#                          the array VAR (and the program's file name in
#                          name). Anything else: "NAME: unknown option X",
#                          exit 2.
#   tf_workdir WHAT        make the scratch directory work
#                          (tf-WHAT.XXXXXX in TMPDIR), removed on exit
#                          after the commands of the array tf_at_exit
#                          have run (tf_at_exit+=(my_cleanup))
#   fail MESSAGE...        "FAIL: MESSAGE" on stderr, exit 1
#   bad MESSAGE...         "FAIL: MESSAGE" on stderr, counted in tf_nbad,
#                          and the script goes on
#   say MESSAGE...         "$tf_prefix: MESSAGE" on stdout
#   tf_traced_cmd NP DIR [VAR=VALUE...] -- PROGRAM [ARGS...]
#                          into the array tf_cmd, the command line of
#                          PROGRAM at NP ranks under $mpirun with the
#                          recorder $lib preloaded, tracing into DIR (no
#                          TRACEFOLD_OUTPUT if DIR is empty), with the
#                          recorder settings VAR=VALUE
#   tf_traced NP DIR [VAR=VALUE...] -- PROGRAM [ARGS...]
#                          run that command line; its exit status
#   tf_record BASE DIR [VAR=VALUE...] -- PROGRAM [ARGS...]
#                          tf_traced at $np ranks, stdout and stderr as
#                          tf_must BASE; fail if it fails or leaves no
#                          DIR/trace.tf
#   tf_must BASE MESSAGE COMMAND...
#                          run COMMAND, stdout to BASE.out, stderr to
#                          BASE.err; if it fails, print BASE.err and fail
#                          MESSAGE
#   tf_check_counts GOT WHOSE
#                          the calls per function the workload counted in
#                          the traced run (-c "$work/counts": files
#                          counts.R of "MPI_X N" lines), summed over the
#                          ranks into $work/wl.counts, equal the sorted
#                          "MPI_X N" lines of the file GOT; else fail
#                          "WHOSE calls per function differ from the
#                          workload's own counts" (or "the workload wrote
#                          no counts")
#   tf_check_lossless DIR  `tracefold dump --no-time DIR` (the reference
#                          trace, into $work/reference) equals `tracefold
#                          unroll --no-time DIR/trace.tf` (into
#                          $work/unrolled); else the first differences and
#                          fail "the unrolled merged trace differs from the
#                          reference trace"
#
# The scripts keep their own checks and messages; this file has none.
# shellcheck shell=bash disable=SC2034 # globals shared with the sourcing script

tf_name=$(basename "$0")
tf_prefix=${tf_name%.sh}
tf_nbad=0
tf_at_exit=()
export MPIR_CVAR_POLLS_BEFORE_YIELD=1

fail() { echo "FAIL: $*" >&2; exit 1; }
bad() { echo "FAIL: $*" >&2; tf_nbad=$((tf_nbad + 1)); }
say() { echo "$tf_prefix: $*"; }

tf_options() {
  local _tf_spec _tf_opt _tf_var _tf_rest=""
  local -A _tf_vars=() _tf_append=()
  for _tf_spec in $1; do
    if [[ $_tf_spec == --:* ]]; then
      _tf_rest=${_tf_spec#--:}
      continue
    fi
    _tf_opt=${_tf_spec%%:*}
    _tf_opt=${_tf_opt%+}
    _tf_var=${_tf_spec#*:}
    _tf_var=${_tf_var%+}
    [[ $_tf_spec == *:* ]] || _tf_var=${_tf_opt//-/_}
    _tf_vars[$_tf_opt]=$_tf_var
    [[ $_tf_spec != *+ ]] || _tf_append[$_tf_opt]=1
  done
  shift
  while [ $# -gt 0 ]; do
    _tf_opt=${1#--}
    if [ "$1" = -- ] && [ -n "$_tf_rest" ]; then
      shift
      break
    elif [[ $1 == --?* ]] && [ -n "${_tf_vars[$_tf_opt]+set}" ]; then
      [ $# -ge 2 ] || { echo "$tf_name: option $1 needs a value" >&2; exit 2; }
      if [ -n "${_tf_append[$_tf_opt]+set}" ]; then
        eval "${_tf_vars[$_tf_opt]}+=(\"\$2\")"
      else
        printf -v "${_tf_vars[$_tf_opt]}" '%s' "$2"
      fi
      shift 2
    else
      echo "$tf_name: unknown option $1" >&2
      exit 2
    fi
  done
  [ -n "$_tf_rest" ] || return 0
  eval "$_tf_rest=(\"\$@\")"
  name=$(basename "${1:-}")
}

tf_cleanup() {
  local _tf_c
  for _tf_c in ${tf_at_exit[@]+"${tf_at_exit[@]}"}; do "$_tf_c"; done
  [ -z "${work:-}" ] || rm -rf "$work"
}

tf_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/tf-$1.XXXXXX") || fail "cannot make a scratch directory in ${TMPDIR:-/tmp}"
  trap tf_cleanup EXIT
}

tf_traced_cmd() {
  local np=$1 dir=$2
  shift 2
  local settings=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    settings+=("$1")
    shift
  done
  [ $# -gt 1 ] || { echo "$tf_name: tf_traced_cmd NP DIR [VAR=VALUE...] -- PROGRAM [ARGS...]" >&2; exit 2; }
  shift
  [ -z "$dir" ] || settings=(TRACEFOLD_OUTPUT="$dir" ${settings[@]+"${settings[@]}"})
  # shellcheck disable=SC2206 # $mpirun is a command line: "mpirun.openmpi --oversubscribe"
  tf_cmd=($mpirun -np "$np" env LD_PRELOAD="$lib" ${settings[@]+"${settings[@]}"} "$@")
}

tf_traced() {
  tf_traced_cmd "$@"
  "${tf_cmd[@]}"
}

tf_record() {
  local base=$1 dir=$2
  shift 2
  tf_must "$base" "the traced run failed" tf_traced "$np" "$dir" "$@"
  [ -f "$dir/trace.tf" ] || fail "no trace.tf from the traced run"
}

tf_must() {
  local base=$1 msg=$2
  shift 2
  "$@" >"$base.out" 2>"$base.err" || { cat "$base.err" >&2; fail "$msg"; }
}

tf_check_counts() {
  { cat "$work"/counts.* 2>/dev/null || true; } | awk '{ n[$1] += $2 } END { for (f in n) print f, n[f] }' |
    sort >"$work/wl.counts"
  [ -s "$work/wl.counts" ] || fail "the workload wrote no counts"
  diff "$work/wl.counts" "$1" >"$work/counts.diff" ||
    { cat "$work/counts.diff" >&2; fail "$2 calls per function differ from the workload's own counts"; }
}

# shellcheck disable=SC2154 # cli: the sourcing script's --cli
tf_check_lossless() {
  "$cli" dump --no-time "$1" >"$work/reference" || fail "tracefold dump failed"
  "$cli" unroll --no-time "$1/trace.tf" >"$work/unrolled" || fail "tracefold unroll failed"
  cmp -s "$work/reference" "$work/unrolled" || {
    diff "$work/reference" "$work/unrolled" | head -20 >&2
    fail "the unrolled merged trace differs from the reference trace"
  }
}

# tf_reported: filter of `tracefold unroll` lines: in MPI_Waitany/Testany/
# Waitsome/Testsome, the requests not reported complete as "*" (the replay
# engine, src/replay/outcome.c, and genapp's programs hide them from the
# call so that it reports exactly the recorded ones)
tf_reported() {
  awk '/ MPI_(Wait|Test)(any|some) / && match($0, /array_of_requests=\[[^]]*\]/) {
         pre = substr($0, 1, RSTART - 1); post = substr($0, RSTART + RLENGTH)
         n = split(substr($0, RSTART + 19, RLENGTH - 20), req, ",")
         delete keep
         if (match($0, / index=[0-9]+/)) keep[substr($0, RSTART + 7, RLENGTH - 7) + 1] = 1
         if (match($0, /array_of_indices=\[[^]]*\]/)) {
           m = split(substr($0, RSTART + 18, RLENGTH - 19), idx, ",")
           for (k = 1; k <= m; k++) keep[idx[k] + 1] = 1
         }
         out = ""
         for (k = 1; k <= n; k++) out = out (k > 1 ? "," : "") (k in keep ? req[k] : "*")
         $0 = pre "array_of_requests=[" out "]" post
       }
       { print }'
}
# tf_matched: filter of `tracefold unroll` lines: wildcard sources as the
# source they matched (the status kept)
tf_matched() {
  awk '{ if (match($0, / source=ANY_SOURCE/) && match($0, / status\.src=-?[0-9]+/)) {
           s = substr($0, RSTART + 12, RLENGTH - 12); sub(/ source=ANY_SOURCE/, " source=" s) } print }'
}
# tf_polled: filter of `tracefold unroll` lines: the outcome of a poll
# (MPI_Iprobe, MPI_Improbe, MPI_Test, MPI_Testany, MPI_Testall,
# MPI_Testsome: flag, index, indices, message, status, statuses, and the
# request or requests, which an earlier success leaves null) as "*": whether a poll
# finds its message or request there depends on when it arrives, which a
# rerun (the generated program, doc/GENAPP.md) cannot undo once it has
tf_polled() {
  awk '/ MPI_(I(m)?probe|Test(any|all|some)?) / {
         for (k = 1; k <= NF; k++)
           if ($k ~ /^(flag|index|outcount|message|status\.[a-z]+|statuses\.[a-z]+|request|array_of_(indices|requests)|array_of_statuses[.a-z]*)=/)
             sub(/=.*/, "=*", $k)
       }
       { print }'
}
# tf_handed_reqs: filter of `tracefold unroll` lines: request ids,
# request arrays and the statuses of arrays as "*". For a workload whose threads make requests and
# complete each other's (mtstress) with polls: a rank numbers its requests
# in creation order across its threads (the ids follow how the scheduler
# interleaved them), requests that share a handle value (complete at once)
# are equivalent, so which id a thread completing another's gets can change
# (src/recorder/object_ids.c), and an entry a poll completed early is null
# in the arrays of the later calls and MPI_Wait's (its status then empty:
# the statuses of MPI_Wait and of arrays as "*" too). Message ids as
# "*" too (numbered across threads as requests are), and an MPI_Mprobe's
# source and status: the replay makes one whose message an earlier poll
# took on MPI_PROC_NULL (doc/REPLAY.md, "Matched-probe polls"). Every other
# parameter stays compared
tf_handed_reqs() {
  awk '{ mprobe = $4 == "MPI_Mprobe"; wait = $4 == "MPI_Wait"
         for (k = 5; k <= NF; k++)
           if ($k ~ /^(request|array_of_requests|statuses\.[a-z]+|message)=/ || (mprobe && $k ~ /^source=/) ||
               ((mprobe || wait) && $k ~ /^status\.[a-z]+=/))
             sub(/=.*/, "=*", $k)
         print }'
}
# tf_thread_sets: filter of `tracefold unroll --rank R` lines: each thread's
# events in order, its number and the event numbers out, the threads as a
# sorted set. How the threads of a rank interleave, and so which one calls
# MPI first and gets the next thread number, is scheduling, not
# communication (a replay or a generated program keeps each thread's calls
# and what orders them, not the scheduler's choices)
tf_thread_sets() {
  # each thread's lines kept apart (no string that grows with the trace: awk's appends are quadratic), the
  # threads ordered by their sequences compared line by line
  awk 'function before(a, b, m) {
         for (m = 1; m <= n[a] && m <= n[b]; m++)
           if (L[a, m] != L[b, m]) return L[a, m] < L[b, m]
         return n[a] < n[b]
       }
       { t = $2; $2 = ""; $3 = ""; if (!(t in n)) order[++k] = t; L[t, ++n[t]] = $0 }
       END {
         for (i = 2; i <= k; i++) {
           x = order[i]
           for (j = i - 1; j >= 1 && before(x, order[j]); j--) order[j + 1] = order[j]
           order[j + 1] = x
         }
         for (i = 1; i <= k; i++)
           for (m = 1; m <= n[order[i]]; m++) print L[order[i], m]
       }'
}
