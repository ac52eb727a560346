#!/usr/bin/env bash
# install.sh — `cmake --install` into a scratch prefix, then tracefold used
# from there only:
#   1. the layout: bin/tracefold, bin/tracefold-replay (and bin/tracefold-sim
#      when SimGrid was found), lib/libtracefold.so, include/tracefold.h and
#      tracefold_predefined.h, share/man/man1/tracefold.1, lib/pkgconfig/tracefold.pc;
#   2. a 2-rank ring recorded with the installed libtracefold.so, read by
#      the installed tracefold (stats, summary, report);
#   3. `tracefold replay` runs the installed tracefold-replay (beside the
#      installed tracefold: TRACEFOLD_MPIRUN=echo shows the command line),
#      and the replay itself succeeds; `tracefold simulate` names the
#      installed tracefold-sim the same way;
#   4. a tiny C program compiled with `pkg-config --cflags --libs tracefold`
#      against the installed header opens the trace and prints its ranks;
#   5. `man -l` renders the installed man page with no warning (groff -ww);
#      it has an entry for every verb `tracefold help` lists, and names
#      every option each verb's --help names.
#
# usage: install.sh --build BUILD_DIR --mpirun "CMD ARGS" --wldir BUILD/workloads [--cc CC]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cc=cc
tf_options "build mpirun wldir cc" "$@"
tf_workdir install
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "cmake --install failed"; }
for f in bin/tracefold bin/tracefold-replay include/tracefold.h include/tracefold_predefined.h \
         share/man/man1/tracefold.1; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
libdir=$(dirname "$(find "$prefix" -name libtracefold.so | head -1)")
[ -n "$libdir" ] && [ -f "$libdir/pkgconfig/tracefold.pc" ] || fail "no libtracefold.so with pkgconfig/tracefold.pc beside it"
sim=""
[ ! -e "$build/src/replay/tracefold-sim" ] || { sim=1; [ -x "$prefix/bin/tracefold-sim" ] || fail "tracefold-sim built but not installed"; }
say "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"

# 2. record with the installed library, read with the installed tracefold
tf=$prefix/bin/tracefold
lib=$libdir/libtracefold.so
tf_traced 2 "$work/ring" -- "$wldir/wl_ring" -i 4 >"$work/ring.run" 2>&1 || { tail "$work/ring.run" >&2; fail "the traced run with the installed library failed"; }
[ -f "$work/ring/trace.tf" ] || fail "the installed library wrote no trace.tf"
"$tf" stats "$work/ring" >"$work/stats" || fail "installed tracefold stats failed"
"$tf" summary "$work/ring" | grep -q "^trace: 2 of 2 ranks" || fail "installed tracefold summary does not see 2 ranks"
"$tf" report -o "$work/ring.html" "$work/ring" >/dev/null || fail "installed tracefold report failed"
say "a 2-rank ring recorded with $lib and read by $tf (stats, summary, report)"

# 3. the engines beside the installed tracefold
TRACEFOLD_MPIRUN=echo "$tf" replay "$work/ring" >"$work/replay.cmd" || fail "tracefold replay (echo) failed"
grep -q -- "-np 2 $prefix/bin/tracefold-replay $work/ring" "$work/replay.cmd" ||
  fail "the installed tracefold replay does not run the installed engine: $(cat "$work/replay.cmd")"
# shellcheck disable=SC2086 # $mpirun is a command line
TRACEFOLD_MPIRUN="$mpirun" "$tf" replay "$work/ring" >"$work/replay.out" 2>&1 ||
  { tail "$work/replay.out" >&2; fail "tracefold replay with the installed engine failed"; }
say "tracefold replay runs $prefix/bin/tracefold-replay; the replay of the 2-rank trace succeeds"
if [ -n "$sim" ]; then
  printf '#!/bin/sh\necho "$@"\n' >"$work/smpirun-echo" # an smpirun that shows its command line
  chmod +x "$work/smpirun-echo"
  TRACEFOLD_SMPIRUN="$work/smpirun-echo" "$tf" simulate "$work/ring" >"$work/sim.cmd" 2>&1 || true
  grep -q "$prefix/bin/tracefold-sim" "$work/sim.cmd" ||
    fail "the installed tracefold simulate does not run the installed engine: $(head -3 "$work/sim.cmd")"
  say "tracefold simulate runs $prefix/bin/tracefold-sim"
fi

# 4. a program against the installed header, with pkg-config
cat >"$work/tiny.c" <<'C'
#include <stdio.h>
#include <tracefold.h>
int main(int argc, char **argv) {
  tf_trace *t;
  char err[512];
  if (argc != 2 || tf_trace_open(argv[1], 0, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tiny: %s\n", argc == 2 ? err : "usage: tiny TRACE");
    return 1;
  }
  printf("tracefold %u: %d ranks, %llu events\n", tf_version_number(), tf_trace_get_info(t)->nranks,
         (unsigned long long)tf_trace_get_info(t)->nevents);
  tf_trace_close(t);
  return 0;
}
C
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs tracefold) || fail "pkg-config does not find tracefold"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -Wall -Wextra -Werror -o "$work/tiny" "$work/tiny.c" $flags >"$work/cc.log" 2>&1 ||
  { cat "$work/cc.log" >&2; fail "the tiny program does not compile against the installed header: $cc ... $flags"; }
LD_LIBRARY_PATH="$libdir" "$work/tiny" "$work/ring" >"$work/tiny.out" || fail "the tiny program failed"
grep -q ": 2 ranks," "$work/tiny.out" || fail "the tiny program says: $(cat "$work/tiny.out")"
say "pkg-config --cflags --libs tracefold: $flags; a program built with it reads the trace: $(cat "$work/tiny.out")"

# 5. the man page
man_page="$prefix/share/man/man1/tracefold.1"
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$man_page" >"$work/man.txt" 2>"$work/man.err" || fail "man -l $man_page failed"
[ ! -s "$work/man.err" ] || { cat "$work/man.err" >&2; fail "man -l printed warnings"; }
groff -man -Tutf8 -ww -z "$man_page" 2>"$work/groff.err" || fail "groff failed on the man page"
[ ! -s "$work/groff.err" ] || { cat "$work/groff.err" >&2; fail "groff -ww warns about the man page"; }
# every verb `tracefold help` lists (and every export format) has an entry, and every option its --help
# names (in its usage lines and option lines) is in the man page (in its source, \- unescaped: no line breaks or hyphenation in the way)
sed 's/\\-/-/g' "$man_page" >"$work/man.src"
verbs=$("$tf" help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
        grep -vx "export\\|version")
nopts=0
for verb in $verbs "export smpi" "export otf2" "export chrome"; do
  grep -Eq "^ {7}${verb// / +}( |$)" "$work/man.txt" || fail "the man page has no entry for $verb"
  [ "$verb" != help ] || continue
  # shellcheck disable=SC2086 # "export smpi" is two words
  for opt in $("$tf" $verb --help | grep -E '^(usage:| +[-[]| +tracefold )' | grep -Eo '(^|[ [(|])--?[a-z][a-z-]*' | sed -E 's/^[ [(|]//' | sort -u); do
    [ "$opt" != -h ] && [ "$opt" != --help ] || continue
    grep -qF -- "$opt" "$work/man.src" || fail "the man page lacks $verb's option $opt (tracefold $verb --help names it)"
    nopts=$((nopts + 1))
  done
done
grep -q "EXIT STATUS" "$work/man.txt" && grep -q "TRACEFOLD_TIMING" "$work/man.txt" || fail "the man page lacks exit status or environment"
say "man -l renders the man page without warnings ($(wc -l <"$work/man.txt") lines; every verb of tracefold help, $nopts options of their --help, environment, exit status)"
say "OK: installed into $prefix and used from there"
