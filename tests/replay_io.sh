#!/usr/bin/env bash
# replay_io.sh — the replay's MPI-IO modes on the mpiio workload's trace
# (doc/REPLAY.md, "MPI-IO"); replay.sh checks the default mode's fixed point.
#   0. each MPI_File_open records the same file id on every rank;
#   1. default: the scratch directory is made under $TMPDIR and removed at
#      the end; nothing is written in the working directory;
#   2. --io-dir DIR (new): the replay's own trace is the original (the
#      recorded plain file names are opened as they are, inside DIR), and DIR
#      is removed at the end; --io-dir DIR (existing) is left in place;
#   3. --io skip: exit 0, the calls per function are the workload's own, no
#      file or directory is made anywhere (not in $TMPDIR, not in the working
#      directory), and the replay takes about the recorded I/O time;
#   4. a recorded name with a directory (absolute, made by the workload's
#      MPIIO_DIR, then removed): the replay succeeds, the name flattened
#      into the scratch directory ('/' -> '_'), nothing made outside it;
#   5. `tracefold replay` passes --io-dir and --io on, and refuses a bad
#      --io; tracefold-replay refuses an --io-dir that is a file.
#
# usage: replay_io.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD
#                     --replay TRACEFOLD_REPLAY -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli replay --:prog" "$@"
tf_prefix+=": $name np$np"
tf_workdir replay_io

mkdir "$work/run" "$work/tmp"
cd "$work/run"
tf_record "$work/orig" "$work/orig" -- "${prog[@]}" -i 2 -c "$work/counts"
[ -z "$(ls -A "$work/run")" ] || fail "the workload left files behind: $(ls -A "$work/run")"

# replay OUT LOG [OPTIONS...]: tracefold-replay of the original trace, run in
# $work/run with TMPDIR=$work/tmp (traced into OUT unless OUT is "-")
replay() {
  local out=$1 log=$2
  shift 2
  local dir=$out
  [ "$out" != - ] || dir=""
  tf_traced_cmd "$np" "$dir" TMPDIR="$work/tmp" -- "$replay" --compute none "$@" "$work/orig/trace.tf"
  if [ -z "$dir" ]; then # untraced: no recorder preloaded
    # shellcheck disable=SC2206 # $mpirun is a command line
    tf_cmd=($mpirun -np "$np" env TMPDIR="$work/tmp" "$replay" --compute none "$@" "$work/orig/trace.tf")
  fi
  "${tf_cmd[@]}" >"$log" 2>"$log.err" || { cat "$log" "$log.err" >&2; fail "tracefold-replay $* failed"; }
}
empty() { [ -z "$(ls -A "$1")" ] || fail "$2: $(ls -A "$1")"; }
events() { "$cli" unroll --no-time "$1" | sed -E 's/ cs=[0-9a-f]+//'; }
opens=$(events "$work/orig/trace.tf" | grep -c ' MPI_File_open ')

# ---- 0. file ids: the k-th MPI_File_open of every rank gets the same id (the
# workload opens two files on MPI_COMM_WORLD, then one per rank on MPI_COMM_SELF)
events "$work/orig/trace.tf" | awk '$4 == "MPI_File_open" { k[$1]++; for (i = 5; i <= NF; i++) if ($i ~ /^fh=/) print k[$1], $i }' |
  sort -u >"$work/fh.ids"
[ "$(wc -l <"$work/fh.ids")" = 3 ] || fail "file ids differ between ranks (or not 3 opens): $(tr '\n' ' ' <"$work/fh.ids")"
[ "$(awk '{ print $2 }' "$work/fh.ids" | sort -u | wc -l)" = 3 ] || fail "two opens got the same file id: $(cat "$work/fh.ids")"
say "0. file ids: each open's id is the same on every rank, the three opens' ids differ"

# ---- 1. default: a scratch directory under $TMPDIR, removed at the end
replay - "$work/default.log"
empty "$work/tmp" "the default scratch directory was left in \$TMPDIR"
empty "$work/run" "the replay wrote in its working directory"
say "1. default: the scratch directory under \$TMPDIR is removed, nothing in the working directory"

# ---- 2. --io-dir: a new directory, removed; the fixed point holds; an existing one stays
replay "$work/gen1" "$work/iodir.log" --io-dir "$work/scratch"
[ ! -e "$work/scratch" ] || fail "--io-dir $work/scratch (made by the replay) was not removed"
empty "$work/run" "the replay wrote in its working directory"
diff <(events "$work/orig/trace.tf") <(events "$work/gen1/trace.tf") >"$work/gen1.diff" ||
  { head -20 "$work/gen1.diff" >&2; fail "the replay's trace (--io-dir) differs from the original"; }
mkdir "$work/kept"
replay - "$work/kept.log" --io-dir "$work/kept"
[ -d "$work/kept" ] || fail "--io-dir $work/kept (existing) was removed"
empty "$work/kept" "the workload deletes its files, yet --io-dir holds"
empty "$work/tmp" "--io-dir made something in \$TMPDIR"
say "2. --io-dir: the replay's trace = the original ($opens MPI_File_open events), a new directory removed, an existing one kept"

# ---- 3. --io skip: no file anywhere, the workload's counts, the recorded time
replay - "$work/skip.log" --io skip
empty "$work/tmp" "--io skip made something in \$TMPDIR"
empty "$work/run" "--io skip wrote in the working directory"
awk '$1 ~ /^MPI_/ && NF == 3 { print $1, $2 }' "$work/skip.log" | sort >"$work/skip.counts"
tf_check_counts "$work/skip.counts" "the --io skip replay's"
# the recorded time of the I/O calls, slowest rank, against the replay's wall time
io_s=$("$cli" unroll "$work/orig/trace.tf" |
  awk '$4 ~ /^MPI_File_/ { for (i = 5; i <= NF; i++) if ($i ~ /^dur=/) { sub(/dur=/, "", $i); t[$1] += $i } }
       END { m = 0; for (r in t) if (t[r] > m) m = t[r]; printf "%.6f\n", m / 1e9 }')
wall=$(awk '/replay wall time/ { print $4 }' "$work/skip.log")
awk -v w="$wall" -v io="$io_s" 'BEGIN { exit !(w >= 0.9 * io) }' ||
  fail "--io skip: replay wall time $wall s, below the recorded I/O time $io_s s"
say "3. --io skip: exit 0, the workload's counts, no file made; wall $wall s >= recorded I/O $io_s s (slowest rank)"

# ---- 4. names with a directory: flattened into the scratch directory
mkdir "$work/abs"
tf_record "$work/absrec" "$work/absorig" MPIIO_DIR="$work/abs" -- "${prog[@]}" -i 1
rmdir "$work/abs" # the replay must not need it, nor make it
tf_traced_cmd "$np" "$work/absgen" TMPDIR="$work/tmp" -- "$replay" --compute none --io-dir "$work/absdir" \
  "$work/absorig/trace.tf"
"${tf_cmd[@]}" >"$work/abs.log" 2>&1 || { cat "$work/abs.log" >&2; fail "the replay of names with a directory failed"; }
[ ! -e "$work/abs" ] || fail "the replay made the recorded directory $work/abs"
[ ! -e "$work/absdir" ] || fail "--io-dir $work/absdir was not removed"
want=$(events "$work/absorig/trace.tf" | awk '/ MPI_File_open / && !n++' | sed -E 's/.*filename="([^"]*)".*/\1/' | tr / _)
got=$(events "$work/absgen/trace.tf" | awk '/ MPI_File_open / && !n++' | sed -E 's/.*filename="([^"]*)".*/\1/')
[ "$want" = "$got" ] || fail "recorded name flattened: expected $want, the replay opened $got"
empty "$work/run" "the replay wrote in its working directory"
say "4. a name with a directory: opened flattened in the scratch directory ($got), nothing made outside it"

# ---- 5. the tracefold command
TMPDIR="$work/tmp" TRACEFOLD_MPIRUN="$mpirun" TRACEFOLD_REPLAY="$replay" "$cli" replay --io skip --compute none --quiet "$work/orig/trace.tf" \
  >"$work/cli.log" 2>&1 || { cat "$work/cli.log" >&2; fail "tracefold replay --io skip failed"; }
TMPDIR="$work/tmp" TRACEFOLD_MPIRUN="$mpirun" TRACEFOLD_REPLAY="$replay" "$cli" replay --io-dir "$work/clidir" --compute none --quiet \
  "$work/orig/trace.tf" >"$work/cli2.log" 2>&1 || { cat "$work/cli2.log" >&2; fail "tracefold replay --io-dir failed"; }
[ ! -e "$work/clidir" ] || fail "tracefold replay --io-dir: the directory was not removed"
set +e
"$cli" replay --io sometimes "$work/orig/trace.tf" >"$work/bad.log" 2>&1
st=$?
set -e
[ "$st" = 2 ] || fail "tracefold replay --io sometimes: exit $st, expected 2: $(cat "$work/bad.log")"
grep -q 'skip or perform' "$work/bad.log" || fail "tracefold replay --io sometimes: $(cat "$work/bad.log")"
empty "$work/tmp" "tracefold replay left something in \$TMPDIR"
touch "$work/afile"
set +e
# shellcheck disable=SC2086 # $mpirun is a command line
$mpirun -np "$np" "$replay" --io-dir "$work/afile" "$work/orig/trace.tf" >"$work/notdir.log" 2>&1
st=$?
set -e
[ "$st" != 0 ] || fail "--io-dir naming a file: exit 0"
grep -q 'not a directory' "$work/notdir.log" || fail "--io-dir naming a file: $(cat "$work/notdir.log")"
say "5. tracefold replay: --io skip and --io-dir passed on, --io sometimes refused (exit 2); --io-dir FILE refused"
