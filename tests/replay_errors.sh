#!/usr/bin/env bash
# replay_errors.sh — tracefold-replay refuses what it cannot replay with a
# clear message and a non-zero exit, never a crash or a hang:
#   a P-rank trace launched with Q != P ranks; a function the engine does
#   not know (a trace whose function table names one, checksum intact), or
#   one it calls that is recorded with other fields (while such a function
#   the trace never calls is no obstacle);
#   corrupted, truncated and missing files; bad options; --compute mean on a
#   trace recorded without times; a partial trace (MPI_Abort); a lossy trace
#   (rank 0's recorder stopped recording: its calls are lost).
# And `tracefold replay` launches it with the trace's rank count.
#
# usage: replay_errors.sh "MPIRUN ARGS" LIBTRACEFOLD TRACEFOLD TRACEFOLD_REPLAY WL_RING WL_ABORT_MIDWAY FORGE_TRACE
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mpirun=$1 lib=$2 cli=$3 replay=$4 ring=$5 abort_wl=$6 forge=$7
tf_workdir replay-err

tf_traced 4 "$work/ring" -- "$ring" -i 20 >/dev/null 2>&1 || bad "traced ring failed"
tf_traced 2 "$work/notime" TRACEFOLD_TIMING=none -- "$ring" -i 5 >/dev/null 2>&1 || bad "traced ring (no times) failed"

# expect NAME NP PATTERN ARGS...: the replay exits non-zero, its stderr matches PATTERN
expect() {
  local name=$1 np=$2 pattern=$3
  shift 3
  # shellcheck disable=SC2086
  timeout 120 $mpirun -np "$np" "$replay" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  if [ $rc -eq 0 ]; then
    bad "$name: exit 0"
  elif [ $rc -eq 124 ]; then
    bad "$name: hung"
  elif grep -qiE 'segmentation|core dumped|signal [0-9]' "$work/$name.err"; then
    bad "$name: crashed: $(head -3 "$work/$name.err")"
  elif ! grep -q -- "$pattern" "$work/$name.err"; then
    bad "$name: no message matching '$pattern': $(head -3 "$work/$name.err")"
  else
    say "$name: exit $rc: $(grep -m1 -- "$pattern" "$work/$name.err")"
  fi
}

expect ranks 2 "recorded with 4 ranks; launched with 2" "$work/ring/trace.tf"

# edit_funcs IN OUT FUNCTION OLD NEW: a copy of trace IN whose function table
# has OLD replaced by NEW in FUNCTION's entry (its name or a field name), the
# FUNCS section (version 6: the whole body) stored raw and the CRCs fixed
edit_funcs() {
  local in=$1
  if [ "$(od -An -tu4 -j8 -N4 "$in" | tr -d ' ')" -ge 6 ]; then # one body (doc/FORMAT.md 3.1): store it raw first
    "$forge" stored "$in" "$work/edit_funcs.stored.tf" || bad "forge_trace stored failed"
    in=$work/edit_funcs.stored.tf
  fi
  python3 - "$in" "${@:2}" <<'EOF'
import subprocess, sys, zlib
data = bytes(open(sys.argv[1], "rb").read())
def uvar(p, buf=data):
    v = s = 0
    while True:
        b = buf[p]; p += 1; v |= (b & 0x7F) << s; s += 7
        if b < 0x80: return v, p
def put_uvar(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80); v >>= 7
    out.append(v)
    return bytes(out)
def edit(body):
    fn, old, new = (a.encode() for a in sys.argv[3:6])
    at = body.find(fn)  # functions are in table order: the first match is the function itself
    i = body.find(old, at)
    assert at >= 0 and i >= 0 and len(old) == len(new)
    return body[:i] + new + body[i + len(old):]
out, p = bytearray(data[:12]), 12  # magic, version (doc/FORMAT.md 3.1)
if int.from_bytes(data[8:12], "little") >= 6:  # codec 0 (stored), lengths, body of sections, CRC
    raw, q = uvar(13)
    stored, q = uvar(q)
    assert data[12] == 0
    body, sections, p = data[q:q + stored], bytearray(), 0
    while p < len(body):
        sid = body[p]
        n, r = uvar(p + 1, body)
        content = body[r:r + n]
        if sid == 2:  # FUNCS
            content = edit(content)
        sections += bytes([sid]) + put_uvar(len(content)) + content
        p = r + n
    out += b"\0" + put_uvar(len(sections)) + put_uvar(len(sections)) + sections
else:  # versions 2 to 5: sections with their CRCs, end record
    while data[p] != 0:
        sid, codec = data[p], data[p + 1]
        raw, q = uvar(p + 2)
        stored, q = uvar(q)
        body = data[q:q + stored]
        if sid == 2:  # FUNCS: edited, stored uncompressed (codec 0) with its CRC
            if codec == 1:
                body = subprocess.run(["zstd", "-d", "-c"], input=body, capture_output=True, check=True).stdout
            body = edit(body)
            out += bytes([sid, 0]) + put_uvar(len(body)) + put_uvar(len(body)) + body
            out += zlib.crc32(body).to_bytes(4, "little")
        else:
            out += data[p:q + stored + 4]
        p = q + stored + 4
    out += b"\0"
out += zlib.crc32(bytes(out)).to_bytes(4, "little")
open(sys.argv[2], "wb").write(bytes(out))
EOF
}
# a function the engine does not know: MPI_Barrier renamed
edit_funcs "$work/ring/trace.tf" "$work/unknown.tf" MPI_Barrier MPI_Barrier MPI_Barrieq
"$cli" stats "$work/unknown.tf" 2>&1 | grep -q "MPI_Barrieq" || bad "the renamed trace does not open with MPI_Barrieq in use (the CRC fix is wrong?)"
expect unknown 4 "MPI_Barrieq, which this replay engine does not know" "$work/unknown.tf"
# a function recorded with other fields (a trace of another version): refused where it is used ...
edit_funcs "$work/ring/trace.tf" "$work/other.tf" MPI_Sendrecv sendtag sendtaq
expect other_fields 4 "MPI_Sendrecv is recorded with other parameters" "$work/other.tf"
# ... and no obstacle where it is not: a function table that lists functions
# the trace never calls is a version-2 or -3 trace's (version 4 keeps only the
# functions called), so a committed version-2 trace of 2 ranks (tests/data/v2,
# the timed workload, which never calls MPI_Cart_sub)
edit_funcs "$(dirname "${BASH_SOURCE[0]}")/data/v2/timed.tf" "$work/unused.tf" MPI_Cart_sub newcomm newcomx
# shellcheck disable=SC2086
if $mpirun -np 2 "$replay" --quiet --compute none "$work/unused.tf" >"$work/unused.out" 2>&1; then
  say "other_fields of an unused function: replays"
else
  bad "a trace whose unused MPI_Cart_sub has other fields does not replay: $(head -3 "$work/unused.out")"
fi

size=$(stat -c %s "$work/ring/trace.tf")
cp "$work/ring/trace.tf" "$work/flipped.tf"
printf '\x5a' | dd of="$work/flipped.tf" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect corrupted 4 "flipped.tf" "$work/flipped.tf"
head -c $((size / 2)) "$work/ring/trace.tf" >"$work/truncated.tf"
expect truncated 4 "truncated.tf" "$work/truncated.tf"
expect missing 4 "no-such-trace" "$work/no-such-trace"
expect bad_compute 4 "expected none, mean or histogram" --compute often "$work/ring/trace.tf"
expect bad_scale 4 "expected a number" --scale -1 "$work/ring/trace.tf"
expect no_trace 4 "no trace given"
expect no_times 2 "keeps no times" --compute mean "$work/notime/trace.tf"

# a partial trace: the run called MPI_Abort
tf_traced 4 "$work/partial" -- "$abort_wl" -i 10 -a 5 >/dev/null 2>&1
expect partial 4 "partial trace" "$work/partial"

# a lossy trace: rank 0's recorder stopped recording (forged from the ring's trace), its calls were not recorded
"$forge" lost 0 17 "$work/ring/trace.tf" "$work/lossy.tf" || bad "forge_trace lost failed"
expect lossy 4 "a lossy trace" "$work/lossy.tf"

# what does replay: --compute none on the trace without times, and the CLI verb
# shellcheck disable=SC2086
if $mpirun -np 2 "$replay" --compute none --quiet "$work/notime/trace.tf" >"$work/none.out" 2>&1 &&
  grep -q 'not in the trace (recorded without times)' "$work/none.out"; then
  say "no_times with --compute none: replays ($(grep 'replay wall' "$work/none.out" | sed 's/  */ /g'))"
else
  bad "--compute none on a trace without times: $(cat "$work/none.out")"
fi
TRACEFOLD_MPIRUN="$mpirun" "$cli" replay --quiet --compute mean "$work/ring/trace.tf" >"$work/verb.out" 2>&1 ||
  bad "tracefold replay failed: $(cat "$work/verb.out")"
grep -q 'on 4 ranks' "$work/verb.out" || bad "tracefold replay did not run 4 ranks: $(cat "$work/verb.out")"
say "tracefold replay: $(head -1 "$work/verb.out")"

[ $tf_nbad -eq 0 ] || { echo "FAIL: $tf_nbad check(s) failed" >&2; exit 1; }
