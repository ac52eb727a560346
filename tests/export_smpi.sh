#!/usr/bin/env bash
# export_smpi.sh — `tracefold export smpi`: every bundled workload is traced
# at 4 ranks and exported as SimGrid time-independent action files.
# For each workload the export either succeeds or refuses:
#   success: 1. the actions per kind over all rank files (send, isend, recv,
#               irecv, sendRecv, every collective, init, finalize) equal the
#               trace's own calls per function (`tracefold summary`), less
#               the calls whose peers are MPI_PROC_NULL (counted in
#               `tracefold unroll`: those write no action, and a Sendrecv
#               with one MPI_PROC_NULL peer becomes a send or a recv);
#            2. `smpirun -replay OUTDIR/index.txt` on a 4-host cluster
#               exits 0 and prints a simulated time;
#   refusal: exit status 1, the message "TRACE: rank R event N: MPI_X ...
#            has no action in SimGrid's time-independent format", and no
#            OUTDIR (nor a half-written one beside it).
# Which workloads must export and which must be refused (and for which
# function) is fixed below; stencil2d, the benchmark, must export.
# Then: the compute conversion on `timed` (known compute: the simulated time
# follows --compute and --ref-speed), and the verb's argument errors.
#
# usage: export_smpi.sh --mpirun "CMD ARGS" --lib LIBTRACEFOLD --cli TRACEFOLD --smpirun SMPIRUN
#                       --wldir BUILD/workloads -- WORKLOAD_NAME...
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun lib cli smpirun wldir --:workloads" "$@"
np=4

# what each workload must give (others: either, checked the same way)
declare -A must=(
  [stencil2d]=export [stencil3d]=export [ring]=export [wavefront]=export [butterfly]=export
  [alltoallv]=export [timed]=export [fstencil]=export
  [alltoall]="MPI_Alltoall on a communicator made by MPI_Comm_split"
  [masterworker]=MPI_Probe [branchy]=MPI_Iprobe [nbcoll]=MPI_Iallreduce [persistent]=MPI_Recv_init
  [threads]="on thread" [mtstress]="on thread" [mpiio]=MPI_File_open
)

tf_workdir export

# a 4-host cluster at 1 Gflop/s (the reference speed of the export)
cat >"$work/platform.xml" <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="node-" suffix="" radical="0-3" speed="1Gf" bw="10Gbps" lat="1us"
           bb_bw="40Gbps" bb_lat="1us"/>
</platform>
EOF
printf 'node-%d\n' 0 1 2 3 >"$work/hosts"

# replay OUTDIR LOG: smpirun -replay, exit 0 and a simulated time; prints the time
replay() {
  (cd "$work" && timeout 60 "$smpirun" -np $np -platform "$work/platform.xml" -hostfile "$work/hosts" \
    -replay "$1/index.txt" >"$2" 2>&1) || { tail -20 "$2" >&2; fail "smpirun -replay $1 failed"; }
  local t
  t=$(grep -o 'Simulation time [0-9.e+-]*' "$2" | tail -1 | awk '{print $3}')
  [ -n "$t" ] || { tail -20 "$2" >&2; fail "smpirun -replay $1 printed no simulated time"; }
  echo "$t"
}

# expected KIND COUNT lines of a trace: its calls per function, less the MPI_PROC_NULL peers
expected() {
  local trace=$1
  "$cli" unroll --no-time "$trace" | awk '
    { fn = $4; d = s = "" }
    / dest=PROC_NULL( |$)/ { d = 1 }
    / source=PROC_NULL( |$)/ { s = 1 }
    fn ~ /^MPI_(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend)$/ && d { nul[fn]++ }
    fn ~ /^MPI_(Recv|Irecv)$/ && s { nul[fn]++ }
    fn ~ /^MPI_Sendrecv(_replace)?$/ { if (d && s) none[fn]++; else if (d) half[fn " recv"]++; else if (s) half[fn " send"]++ }
    END {
      for (f in nul) print "null", f, nul[f]
      for (f in none) print "null", f, none[f]
      for (h in half) print "half", h, half[h]
    }' >"$work/nulls"
  "$cli" summary "$trace" | awk -v nulls="$work/nulls" '
    BEGIN { while ((getline l < nulls) > 0) { split(l, a, " "); if (a[1] == "null") nul[a[2]] = a[3]; else half[a[2] " " a[3]] = a[4] } }
    $1 ~ /^MPI_/ {
      f = $1; n = $2 - nul[f]
      if (f ~ /^MPI_(Send|Bsend|Ssend|Rsend)$/) k["send"] += n
      else if (f ~ /^MPI_(Isend|Ibsend|Issend|Irsend)$/) k["isend"] += n
      else if (f == "MPI_Recv") k["recv"] += n
      else if (f == "MPI_Irecv") k["irecv"] += n
      else if (f ~ /^MPI_Sendrecv(_replace)?$/) {
        # one MPI_PROC_NULL peer: the other half alone
        k["sendRecv"] += n - half[f " send"] - half[f " recv"]; k["send"] += half[f " send"]; k["recv"] += half[f " recv"]
      }
      else if (f ~ /^MPI_Init(_thread)?$/) k["init"] += n
      else if (f ~ /^MPI_Reduce_scatter(_block)?$/) k["reducescatter"] += n
      else if (f ~ /^MPI_(Finalize|Barrier|Bcast|Reduce|Allreduce|Scan|Exscan|Alltoall|Alltoallv|Gather|Gatherv|Allgather|Allgatherv|Scatter|Scatterv)$/) {
        name = tolower(substr(f, 5)); k[name] += n
      }
    }
    END { for (x in k) if (k[x] > 0) print x, k[x] }' | sort
}

# actual KIND COUNT lines: the actions of all rank files (completions and compute aside)
actual() {
  cat "$1"/rank-*.txt | awk '$2 !~ /^(compute|wait|waitall|test)$/ { k[$2]++ } END { for (x in k) print x, k[x] }' | sort
}

exported=0
refused=0
for wl in "${workloads[@]}"; do
  prog="$wldir/wl_$wl"
  [ -x "$prog" ] || fail "no workload program $prog"
  trace="$work/$wl.trace"
  out="$work/$wl.ti"
  tf_traced $np "$trace" -- "$prog" -i 10 >"$work/$wl.run" 2>&1 ||
    { tail "$work/$wl.run" >&2; fail "$wl: the traced run failed"; }
  rc=0
  "$cli" export smpi "$trace" "$out" >"$work/$wl.export" 2>&1 || rc=$?
  want=${must[$wl]:-}
  if [ $rc -eq 0 ]; then
    [ -z "$want" ] || [ "$want" = export ] || fail "$wl: exported, but it must be refused ($want): $(cat "$work/$wl.export")"
    [ "$(wc -l <"$out/index.txt")" -eq $np ] || fail "$wl: index.txt does not list $np files"
    for r in $(seq 0 $((np - 1))); do
      [ "$(sed -n "$((r + 1))p" "$out/index.txt")" = "$out/rank-$r.txt" ] || fail "$wl: index.txt line $((r + 1)) is not $out/rank-$r.txt"
      awk -v r=$r '$1 != r { exit 1 }' "$out/rank-$r.txt" || fail "$wl: rank-$r.txt has a line of another rank"
    done
    expected "$trace" >"$work/$wl.want"
    actual "$out" >"$work/$wl.got"
    diff "$work/$wl.want" "$work/$wl.got" >"$work/$wl.diff" ||
      { cat "$work/$wl.diff" >&2; fail "$wl: actions per kind (>) differ from the trace's calls (<)"; }
    t=$(replay "$out" "$work/$wl.replay")
    say "$wl: exported, $(awk '{ s += $2 } END { print s }' "$work/$wl.got") actions = the trace's calls" \
        "($(tr '\n' ' ' <"$work/$wl.got" | sed 's/ $//')); smpirun -replay: simulated time $t s"
    exported=$((exported + 1))
  else
    msg=$(cat "$work/$wl.export")
    [ $rc -eq 1 ] || fail "$wl: export failed with status $rc (expected 0, or 1 when refused): $msg"
    [ "$want" != export ] || fail "$wl: must export, but: $msg"
    echo "$msg" | grep -Eq "^tracefold export smpi: $trace: rank [0-9]+ event [0-9]+: MPI_[A-Za-z_]+ .*has no action in SimGrid's time-independent format" ||
      fail "$wl: refused without the expected message: $msg"
    [ -z "$want" ] || echo "$msg" | grep -qF "$want" || fail "$wl: refused, but not for $want: $msg"
    [ ! -e "$out" ] || fail "$wl: refused, but $out exists"
    ! compgen -G "$out.tmp-*" >/dev/null || fail "$wl: refused, but a half-written $out.tmp-* remains"
    say "$wl: refused: ${msg#*"$trace": }"
    refused=$((refused + 1))
  fi
done
[ -d "$work/stencil2d.ti" ] || fail "stencil2d (the benchmark) was not exported"

# ---- compute: timed's compute is known (phase 2 alone: 19 x 500 us); the
# simulated time follows --compute and --ref-speed (a 1 Gflop/s host)
if [ -d "$work/timed.ti" ]; then
  tmean=$(replay "$work/timed.ti" "$work/timed.mean.log")
  "$cli" export smpi --compute none "$work/timed.trace" "$work/timed.none" >/dev/null
  tnone=$(replay "$work/timed.none" "$work/timed.none.log")
  "$cli" export smpi --ref-speed 2Gf "$work/timed.trace" "$work/timed.2g" >/dev/null
  t2g=$(replay "$work/timed.2g" "$work/timed.2g.log")
  ! grep -q compute "$work"/timed.none/rank-*.txt || fail "--compute none wrote compute actions"
  awk -v m="$tmean" -v n="$tnone" -v d="$t2g" 'BEGIN {
    if (m < 0.0095 * 0.9) { print "compute mean: simulated " m " s < the 9.5 ms of compute phase 2 alone"; exit 1 }
    if (n > m / 5) { print "compute none: simulated " n " s, not far below mean (" m " s)"; exit 1 }
    if (d / m < 1.6 || d / m > 2.4) { print "ref-speed 2Gf: simulated " d " s, not about twice " m " s"; exit 1 }
  }' >&2 || fail "compute conversion"
  say "timed: simulated $tmean s (compute mean), $tnone s (none), $t2g s (--ref-speed 2Gf on the 1 Gf host)"
fi

# ---- errors: a message naming what is wrong, nothing written; exit 2 for
# the command line, 1 for what is found reading or writing (src/cli/cli.h)
err() { # STATUS WANT_TEXT ARGS...: exit STATUS and WANT_TEXT in the message
  local status=$1 want=$2 rc=0
  shift 2
  "$cli" export "$@" >"$work/err.out" 2>&1 || rc=$?
  [ $rc -eq "$status" ] || fail "tracefold export $*: status $rc, expected $status: $(cat "$work/err.out")"
  grep -qF -- "$want" "$work/err.out" || fail "tracefold export $*: no \"$want\" in: $(cat "$work/err.out")"
}
t="$work/stencil2d.trace"
err 2 "unknown format" vtf "$t" "$work/x"
err 2 "give the trace and the output directory (see tracefold export smpi --help)" smpi "$t"
err 2 "--compute takes none or mean" smpi --compute histogram "$t" "$work/x"
err 2 "--ref-speed takes flop/s" smpi --ref-speed fast "$t" "$work/x"
err 2 'unknown option "--bogus" (see tracefold export smpi --help)' smpi --bogus "$t" "$work/x"
err 1 "$work/missing" smpi "$work/missing" "$work/x"
err 1 "not an empty directory" smpi "$t" "$work/stencil2d.ti"
err 1 "parent directory does not exist" smpi "$t" "$work/no/such/dir"
[ ! -e "$work/x" ] || fail "a failed export left $work/x"
cmp -s <(actual "$work/stencil2d.ti") "$work/stencil2d.got" || fail "a refused overwrite changed $work/stencil2d.ti"
say "errors: exit 2 (command line) or 1 (trace, output directory) with a message; nothing written or overwritten"
say "OK: $exported workloads exported and replayed by smpirun, $refused refused with the expected error"
