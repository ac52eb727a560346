"""cg_recorder_check.py — test of bench/cg_recorder.py (the recorder's own
instructions in a callgrind profile) on a small profile written by hand,
whose answer is summed here line by line: compressed and plain names, a
call into libc and libzstd (counted), into libmpi (left out), libc's qsort
calling a recorder comparator (counted once), the program and a thread's
entry calling the recorder (not callbacks), costs of other objects (left
out), a cost line with no event (0).

    python3 tests/cg_recorder_check.py BENCH_DIR
"""
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from cg_recorder import recorder_instructions  # noqa: E402

PROFILE = """# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir
summary: 999999

ob=(1) /tmp/prog
fl=(1) prog.c
fn=(1) main
10 5000
cob=(2) /build/libtracefold.so
cfn=(2) MPI_Send
calls=3 0
11 90000

ob=(2)
fl=(2) wrappers.c
fn=(2)
20 300
+1 40
cob=(3) /usr/lib/libmpich.so.12
cfn=(3) PMPI_Send
calls=3 0
21 80000
cob=(4) /usr/lib/libc.so.6
cfn=(4) memcpy
calls=3 0
22 600
cfn=(5) sort_sites
calls=1 0
23 2500
cob=(5) /usr/lib/libzstd.so.1
cfn=(6) ZSTD_compress
calls=1 0
24 7000
*
fn=(5)
30 100
cob=(4)
cfn=(7) qsort
calls=1 0
31 2400
fn=(8) by_site
40 900
fn=(9) recorder_thread
50 30

ob=(4)
fl=(3) libc.c
fn=(4)
60 600
fn=(7)
70 1500
cob=(2)
cfn=(8)
calls=45 0
71 900
fn=(10) start_thread
80 10
cob=(2)
cfn=(9)
calls=1 0
81 30

ob=(3)
fn=(3)
90 79000
cob=(2)
cfn=(11) tf_keyval_delete
calls=1 0
91 20
ob=(2)
fn=(11)
100 20
"""

# recorder self: MPI_Send 300 + 40 + 0 (the "*" line), sort_sites 100, by_site 900, recorder_thread 30,
# tf_keyval_delete 20; its calls outside MPI: memcpy 600, ZSTD_compress 7000, qsort 2400 (sort_sites'
# call of libtracefold's own sort_sites, 2500, is self already); back from qsort into by_site: 900
EXPECTED = (300 + 40 + 100 + 900 + 30 + 20) + (600 + 7000 + 2400) - 900

with tempfile.NamedTemporaryFile("w", suffix=".cg", delete=False) as f:
    f.write(PROFILE)
try:
    got = recorder_instructions(f.name)
finally:
    os.unlink(f.name)
if got != EXPECTED:
    sys.exit(f"cg_recorder_check: recorder_instructions gave {got}, expected {EXPECTED}")
print(f"cg_recorder_check: {got} instructions, as expected")
