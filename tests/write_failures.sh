#!/usr/bin/env bash
# write_failures.sh — the recorder on a file system that runs out of space
# (a small tmpfs, mounted here: needs root; skipped with a message, exit 77,
# where mounting is not permitted). In every case the traced program runs
# to its end with exit 0 and the stdout it has untraced, tracefold says what
# happened in exactly one line for the whole job (no warning per rank), and
# leaves no 0-byte, .part or .ckpt file behind:
#   a. full from the start (mode compressed): "no trace was written", and
#      the trace directory it created is gone;
#   b. full from the start (mode flat): the same;
#   c. mode both on a tmpfs smaller than the flat files: the merged trace
#      is written first, trace.tf reads, the flat files that did not fit are
#      given up (removed), the line says so; the flat files that are there
#      are complete. (A flat file that fills the file system while the run
#      goes on, at a 1 MiB flush, is given up then, and at MPI_Finalize all
#      of them are if trace.tf still does not fit: recorder.c.)
# In a and b nothing is kept, so the line must not suggest `tracefold merge`.
#
# usage: write_failures.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD -- WL_RING
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli --:prog" "$@"
tf_workdir writefail
fs=$work/fs
mkdir -p "$fs"
unmount() { mountpoint -q "$fs" && umount "$fs"; }
tf_at_exit+=(unmount)

mount_fs() { # SIZE
  unmount
  if ! mount -t tmpfs -o "size=$1" tmpfs "$fs" 2>"$work/mount.err"; then
    echo "SKIP: write_failures.sh: cannot mount a tmpfs ($(cat "$work/mount.err")); this test needs root (CI runs as root)"
    exit 77
  fi
}
fill_fs() { dd if=/dev/zero of="$fs/fill" bs=4k >/dev/null 2>&1 || true; }

# traced NAME MODE ITERS: the ring traced into $fs/NAME; checks exit status and stdout, and one tracefold line
traced() {
  local name=$1 mode=$2 iters=$3
  # shellcheck disable=SC2086
  $mpirun -np "$np" "${prog[@]}" -i "$iters" >"$work/plain.out" 2>&1 || fail "the untraced run failed"
  tf_traced "$np" "$fs/$name" TRACEFOLD_MODE="$mode" -- "${prog[@]}" -i "$iters" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  [ $rc -eq 0 ] || bad "$name: the traced program exited $rc: $(head -3 "$work/$name.err")"
  cmp -s "$work/plain.out" "$work/$name.out" || bad "$name: stdout differs from the untraced run's"
  local n
  n=$(grep -c '^tracefold:' "$work/$name.err")
  [ "$n" -eq 1 ] || bad "$name: $n tracefold lines on stderr (one for the job expected): $(cat "$work/$name.err")"
  line=$(grep '^tracefold:' "$work/$name.err" | head -1)
  junk=$(find "$fs" \( -name '*.part' -o -name '*.ckpt' -o -name '.tracefold-stop-*' -o \( -empty -type f \) \) | tr '\n' ' ')
  [ -z "$junk" ] || bad "$name: left behind: $junk"
}

# ---- a, b. full from the start
for mode in compressed flat; do
  mount_fs 256k
  fill_fs
  traced "full-$mode" "$mode" 20
  grep -q "no trace was written\|could not be written\|cannot create trace directory" <<<"$line" ||
    bad "full-$mode: the line does not say that no trace was written: $line"
  ! grep -q "tracefold merge" <<<"$line" || bad "full-$mode: the line suggests tracefold merge, with nothing to merge: $line"
  [ ! -e "$fs/full-$mode" ] || [ -z "$(ls -A "$fs/full-$mode")" ] || bad "full-$mode: files left: $(ls -A "$fs/full-$mode")"
  [ ! -e "$fs/full-$mode" ] || bad "full-$mode: the empty trace directory is left"
  say "full file system, mode $mode: exit 0, stdout as untraced, one line: $line"
done

# ---- c. mode both, the flat files (about 25 KB a rank) larger than the file system
mount_fs 32k
traced both both 1000
if [ -f "$fs/both/trace.tf" ]; then
  "$cli" stats "$fs/both/trace.tf" >/dev/null 2>"$work/both.stats" || bad "both: trace.tf does not read: $(cat "$work/both.stats")"
else
  bad "both: no trace.tf (the flat files took the room): $(ls "$fs/both")"
fi
for f in "$fs"/both/rank-*.flat; do
  [ -e "$f" ] || continue
  "$cli" dump "$f" >/dev/null 2>&1 || bad "both: $f is there but does not read"
done
grep -q "flat files (rank-R.flat) could not be written on .* ranks .*; the merged trace .*trace.tf is complete" <<<"$line" ||
  bad "both: the line does not say the flat files were given up for the merged trace: $line"
say "mode both on a 32 KiB tmpfs: trace.tf written ($(stat -c %s "$fs/both/trace.tf" 2>/dev/null) bytes), flat files kept: $(find "$fs/both" -name 'rank-*.flat' | wc -l); one line: $line"

[ "$tf_nbad" -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
say "all checks passed"
