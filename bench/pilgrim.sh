#!/usr/bin/env bash
# pilgrim.sh — trace bytes of tracefold against Pilgrim (github pmodels/pilgrim),
# built from source here, on the same workloads side by side; records the
# figures in bench/RESULTS.md. Builds Pilgrim, not tracefold.
#
# usage: bench/pilgrim.sh BUILD_DIR
#   BUILD_DIR  a configured and built tree (needs src/recorder/libtracefold.so,
#              src/cli/tracefold, workloads/wl_<name>), built with MPICH
# environment (optional):
#   PILGRIM_SRC  Pilgrim's source: a directory (a git work tree or a plain
#              copy) or a git directory (bare mirror); without it the script
#              runs `git clone https://github.com/pmodels/pilgrim` and stops,
#              saying so, if that fails
#   MPIRUN     launcher                                   [mpirun.mpich]
#   MPICC      compiler Pilgrim is built with             [mpicc.mpich]
#   NPS        rank counts                                ["4 16 64"]
#   WORKLOADS  which workloads     [every C workload of workloads/ that runs
#              to completion: all of workloads/*.c but wl_common and
#              abort_midway, those built in BUILD_DIR]
#   TIMEOUT    hard limit per run, seconds                [300]
#   WL_OPTS    options per workload, "name=opts;..."      ["collectives=-s 1024"]
#   WL_MAXNP   most ranks per workload, "name=P ..."      ["nbconform=16 collectives=16":
#              their rooted collectives run once per root, so a 64-rank run
#              oversubscribed on 2 cores takes over 5 minutes]
#   RESULTS    the file to update                         [bench/RESULTS.md]
#   SOURCE     what tracefold was built from, for the record [as ranks.sh]
#
# Needs, for Pilgrim's build: autoreconf (autoconf, automake), libtoolize
# (libtool) and autoconf-archive (its configure uses AX_CHECK_COMPILE_FLAG);
# on Debian: apt-get install autoconf automake libtool autoconf-archive.
# Pilgrim is built as its README says (./autogen.sh, ./configure, make) with
# CC=$MPICC and default options (no pointers, no thread ids, timing mode
# chosen at run time), in a temporary directory removed at the end.
#
# Every workload runs with its default iterations and problem size at each
# rank count of NPS (oversubscribed: 64 ranks on a 2-core machine), three
# times: under Pilgrim (LD_PRELOAD=libpilgrim.so, its default timing mode,
# AGGREGATED: per call signature one mean duration and interval, no per-call
# times — the smallest trace it writes; its output is the directory
# pilgrim-logs/ in the working directory: pilgrim.mt, funcs.dat and
# grammars.dat, all counted), under tracefold with its default timing (path:
# histograms per preceding call, per rank group) and under tracefold with
# TRACEFOLD_TIMING=none; of tracefold, the bytes of trace.tf. A run that
# fails (exit status, timeout, no output) is listed with its error.
#
# RESULTS.md is shared: this script replaces only its section ("## Trace
# bytes against Pilgrim") and keeps everything else (bench/results_section.py).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: bench/pilgrim.sh BUILD_DIR}
build=$(cd "$build" && pwd)
MPIRUN=${MPIRUN:-mpirun.mpich}
MPICC=${MPICC:-mpicc.mpich}
NPS=${NPS:-4 16 64}
TIMEOUT=${TIMEOUT:-300}
WL_OPTS=${WL_OPTS-collectives=-s 1024}
WL_MAXNP=${WL_MAXNP-nbconform=16 collectives=16}
RESULTS=${RESULTS:-$here/RESULTS.md}
PILGRIM_URL=https://github.com/pmodels/pilgrim
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
# a stray TRACEFOLD_* or PILGRIM_* setting in the caller's environment would alter the runs
unset LD_PRELOAD TRACEFOLD_MODE TRACEFOLD_OUTPUT TRACEFOLD_MEMORY TRACEFOLD_TIMING TRACEFOLD_BINS \
  PILGRIM_TIMING_MODE PILGRIM_TRACING_MODE PILGRIM_DEBUG

prog=pilgrim.sh
status=0
failed=
# shellcheck source=SCRIPTDIR/bench_common.sh
. "$here/bench_common.sh"
command -v "$MPIRUN" >/dev/null || die "launcher $MPIRUN not found"
command -v "$MPICC" >/dev/null || die "compiler $MPICC not found (MPICC=...)"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
for c in autoreconf libtoolize make; do
  command -v $c >/dev/null || die "$c not found: Pilgrim builds with autotools (apt-get install autoconf automake libtool autoconf-archive)"
done
[[ -f $(aclocal --print-ac-dir)/ax_check_compile_flag.m4 ]] ||
  die "autoconf-archive not found (Pilgrim's configure.ac uses AX_CHECK_COMPILE_FLAG): apt-get install autoconf-archive"

if [[ -z ${WORKLOADS:-} ]]; then
  WORKLOADS=
  for f in "$here"/../workloads/*.c; do
    w=$(basename "$f" .c)
    [[ $w == wl_common || $w == abort_midway ]] && continue
    [[ -x $build/workloads/wl_$w ]] && WORKLOADS+="$w "
  done
fi
[[ -n $WORKLOADS ]] || die "no workload built in $build/workloads"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-pilgrim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

# --- Pilgrim's source and build ---------------------------------------------
psrc=$tmp/pilgrim
if [[ -n ${PILGRIM_SRC:-} ]]; then
  if git --git-dir="$PILGRIM_SRC" rev-parse --verify -q HEAD >/dev/null 2>&1 && [[ ! -d $PILGRIM_SRC/.git ]] &&
    [[ $(git --git-dir="$PILGRIM_SRC" rev-parse --is-bare-repository 2>/dev/null) == true || -f $PILGRIM_SRC/HEAD ]]; then
    mkdir -p "$psrc"
    git --git-dir="$PILGRIM_SRC" archive HEAD | tar -x -C "$psrc"
    pcommit=$(git --git-dir="$PILGRIM_SRC" rev-parse HEAD)
  elif [[ -d $PILGRIM_SRC ]]; then
    cp -r "$PILGRIM_SRC" "$psrc"
    rm -rf "$psrc/.git"
    if pcommit=$(git -C "$PILGRIM_SRC" rev-parse HEAD 2>/dev/null); then
      [[ -z $(git -C "$PILGRIM_SRC" status --porcelain 2>/dev/null) ]] || pcommit="$pcommit + local changes"
    else
      pcommit="unknown (PILGRIM_SRC=$PILGRIM_SRC is not a git tree)"
    fi
  else
    die "PILGRIM_SRC=$PILGRIM_SRC is neither a directory nor a git directory"
  fi
  porigin="PILGRIM_SRC"
else
  echo "$prog: PILGRIM_SRC not set: cloning $PILGRIM_URL" >&2
  git clone -q "$PILGRIM_URL" "$psrc" 2>"$tmp/clone.err" ||
    die "no Pilgrim source: PILGRIM_SRC is not set and git clone $PILGRIM_URL failed ($(tail -n 1 "$tmp/clone.err")); set PILGRIM_SRC to a copy of it (a directory or a git directory)"
  pcommit=$(git -C "$psrc" rev-parse HEAD)
  rm -rf "$psrc/.git"
  porigin="git clone $PILGRIM_URL"
fi
echo "$prog: building Pilgrim $pcommit with CC=$MPICC" >&2
(cd "$psrc" && ./autogen.sh && CC=$MPICC ./configure && make) >"$tmp/pilgrim-build.log" 2>&1 ||
  { tail -n 20 "$tmp/pilgrim-build.log" >&2; die "Pilgrim's build failed (autogen.sh, configure, make)"; }
plib=$psrc/.libs/libpilgrim.so
[[ -f $plib ]] || die "Pilgrim's build made no .libs/libpilgrim.so"

# --- tracefold's binaries ---------------------------------------------------
private_binaries "$build"
# both tracers must sit on the workloads' MPI library
mpilib() { ldd "$1" | awk '/libmpi/ { print $3; exit }'; }
wl1=$(set -- $WORKLOADS; echo "$1")
[[ $(mpilib "$plib") == $(mpilib "$bin/wl_$wl1") ]] ||
  die "Pilgrim links $(mpilib "$plib"), the workloads $(mpilib "$bin/wl_$wl1"): build both with one MPI (MPICC=...)"

log=$tmp/log
: >"$log"
echo unknown >"$tmp/mpi"

# an error message out of a run's stderr: Pilgrim's assertion if any, else the last line
errline() {
  local e
  e=$(grep -m1 -E 'Assertion|Segmentation|signal|rror' "$1" || tail -n 1 "$1" || true)
  e=${e//|/\\|}
  e=$(printf '%s' "$e" | tr -s ' \t' ' ' | sed -E 's/^[^ :]*wl_[a-z0-9]+: //' | cut -c1-160)
  echo "${e:-no message}"
}

# run_tracer workload P tracer -> appends "ok workload P tracer bytes" or "fail workload P tracer message"
run_tracer() {
  local w=$1 np=$2 how=$3 d=$tmp/run rc=0 bytes
  rm -rf "$d" && mkdir -p "$d"
  local env=()
  case $how in
    pilgrim) env=(LD_PRELOAD="$plib") ;;
    path) env=(LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$d/tf") ;;
    none) env=(LD_PRELOAD="$lib" TRACEFOLD_OUTPUT="$d/tf" TRACEFOLD_TIMING=none) ;;
  esac
  local opts
  opts=$(tr ';' '\n' <<<"$WL_OPTS" | sed -n "s/^ *$w=//p" | head -1)
  # shellcheck disable=SC2086 # $opts is a list of words
  (cd "$d" && timeout "$TIMEOUT" "$MPIRUN" -n "$np" env "${env[@]}" "$bin/wl_$w" $opts >"$tmp/out" 2>"$tmp/err") || rc=$?
  if ((rc == 124)); then
    echo "fail $w $np $how did not finish within TIMEOUT=$TIMEOUT s" >>"$log"
    return
  fi
  if [[ $how == pilgrim ]]; then
    if ((rc != 0)) || [[ ! -f $d/pilgrim-logs/grammars.dat ]]; then
      echo "fail $w $np $how exit status $rc: $(errline "$tmp/err")" >>"$log"
      return
    fi
    bytes=$(find "$d/pilgrim-logs" -type f -exec cat {} + | wc -c)
  else
    if ((rc != 0)) || [[ ! -f $d/tf/trace.tf ]]; then
      echo "fail $w $np $how exit status $rc, no trace.tf: $(errline "$tmp/err")" >>"$log"
      status=1
      return
    fi
    bytes=$(stat -c %s "$d/tf/trace.tf")
    if [[ $how == path ]]; then
      "$cli" stats "$d/tf/trace.tf" >"$tmp/stats" 2>/dev/null || true
      sed -n 's/^MPI: *//p' "$tmp/stats" | head -1 | tr -s ' \t' ' ' >"$tmp/mpi"
      grep -q '^times: *path' "$tmp/stats" || { echo "fail $w $np $how not path timing" >>"$log"; status=1; return; }
    fi
  fi
  echo "ok $w $np $how $bytes" >>"$log"
}

read -r -a nps <<<"$NPS"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for w in $WORKLOADS; do
  max=$(tr ' ' '\n' <<<"$WL_MAXNP" | sed -n "s/^$w=//p" | head -1)
  for np in "${nps[@]}"; do
    if [[ -n $max ]] && ((np > max)); then
      echo "skip $w $np WL_MAXNP" >>"$log"
      continue
    fi
    for how in pilgrim path none; do
      run_tracer "$w" "$np" "$how"
    done
    echo "  $w at $np ranks: $(grep " $w $np " "$log" | awk '{ printf "%s=%s ", $4, ($1 == "ok" ? $5 : "failed") }')($(($(date +%s) - start)) s so far)" >&2
  done
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
elapsed=$(($(date +%s) - start))
PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 python3 - "$log" "$RESULTS" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
  "$cpu" "$(cat "$tmp/mpi")" "$(uname -r)" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SOURCE" "$elapsed" \
  "$NPS" "$pcommit" "$porigin" "$MPICC" "$TIMEOUT" "$WL_OPTS" "$WL_MAXNP" <<'EOF'
import sys

from results_section import update

(log, results, date, nproc, cpu, mpi, kernel, load0, load, source, elapsed, nps, pcommit, porigin, mpicc,
 timeout, opts, maxnp) = sys.argv[1:]
nps = [int(x) for x in nps.split()]
ok, fail, skip, order = {}, {}, {}, []
for line in open(log):
    w = line.split()
    if w[1] not in order:
        order.append(w[1])
    key = (w[1], int(w[2]), w[3])
    if w[0] == "ok":
        ok[key] = int(w[4])
    elif w[0] == "skip":
        skip[(w[1], int(w[2]))] = True
    else:
        fail[key] = " ".join(w[4:])

rows, pfails, met, missed = [], {}, 0, []
for wl in order:
    for p in nps:
        if (wl, p) in skip:
            rows.append(f"| {wl} | {p} | not run (WL_MAXNP) | | | | | |")
            continue
        cell = {}
        for how in ("path", "none", "pilgrim"):
            cell[how] = f"{ok[(wl, p, how)]}" if (wl, p, how) in ok else "failed"
        if (wl, p, "pilgrim") in fail:
            pfails.setdefault((wl, fail[(wl, p, "pilgrim")]), []).append(p)
        if (wl, p, "path") in ok and (wl, p, "pilgrim") in ok:
            a, n, g = ok[(wl, p, "path")], ok.get((wl, p, "none")), ok[(wl, p, "pilgrim")]
            r1 = f"{a / g:.2f}"
            r0 = f"{n / g:.2f}" if n else "–"
            if a <= g:
                met += 1
                goal = "yes"
            else:
                missed.append(f"{wl} at {p} ranks (+{a - g} B)")
                goal = f"**no** (+{a - g} B)"
        else:
            r1 = r0 = goal = "–"
        rows.append(f"| {wl} | {p} | {cell['path']} | {cell['none']} | {cell['pilgrim']} | {r1} | {r0} | {goal} |")
tfails = [f"{k[0]} at {k[1]} ranks ({k[2]}): {v}" for k, v in fail.items() if k[2] != "pilgrim"]

out = ["## Trace bytes against Pilgrim", "",
       f"Written by `bench/pilgrim.sh` on {date} (took {elapsed} s).",
       f"Machine: {nproc} cores, {cpu}, Linux {kernel}; load average {load0} at the start, {load} at the end.",
       f"MPI: {mpi}; ranks oversubscribed, `MPIR_CVAR_POLLS_BEFORE_YIELD=1`. tracefold built from: {source}.",
       f"Pilgrim: commit {pcommit} ({porigin}), built by the script with its autotools (`./autogen.sh`, "
       f"`CC={mpicc} ./configure`, `make`), default options.",
       f"Workload options: {opts or 'none'} (defaults otherwise); not run above: {maxnp or 'none'}.", "",
       "How measured: every workload runs with its default iterations and problem size at each rank count, "
       "three times in a row: under Pilgrim (`LD_PRELOAD=libpilgrim.so`, its default timing mode AGGREGATED, "
       "which keeps no per-call times: a mean duration and interval per call signature; bytes = all of its "
       "output, `pilgrim-logs/` = `pilgrim.mt` + `funcs.dat` + `grammars.dat`), under tracefold with its default "
       "timing (`path`: histograms per preceding call and rank group, with the extremes' ranks; bytes = "
       "`trace.tf`) and under tracefold with `TRACEFOLD_TIMING=none` (`trace.tf`). Ratios are tracefold / "
       "Pilgrim; the goal is tracefold *with* path timing ≤ Pilgrim *without* timing.", "",
       "| workload | ranks | trace.tf, path timing B | trace.tf, no timing B | Pilgrim, no timing B | "
       "path / Pilgrim | none / Pilgrim | goal met |",
       "|---|---:|---:|---:|---:|---:|---:|---|"] + rows + [""]
total = met + len(missed)
out.append(f"Goal met on {met} of the {total} runs where Pilgrim ran"
           + (f"; missed on {', '.join(missed)}." if missed else "."))
out.append("")
if pfails:
    out.append("Workloads on which Pilgrim fails (no trace written), with its error:")
    out.append("")
    for (wl, msg), ps in pfails.items():
        out.append(f"- {wl} at {', '.join(map(str, ps))} ranks: {msg}")
    out.append("")
if tfails:
    out.append("tracefold runs that failed:")
    out.append("")
    out += [f"- {t}" for t in tfails]
    out.append("")
update(results, "## Trace bytes against Pilgrim", "\n".join(out) + "\n")
print("\n".join(out))
EOF
finish "some tracefold runs failed (see the table)"
