#!/usr/bin/env python3
"""check_schema_golden.py — the golden test of the trace schema (ctest
unit.schema_golden).

Renders the schema derived from mpi.table as text (emit_schema.py --text)
and compares it with the committed golden file; on a difference, prints it
and what a schema change implies, and fails.

Usage: check_schema_golden.py mpi.table GOLDEN
"""
import difflib
import sys

import emit_schema
import mpitable

REFRESH = "python3 gen/emit_schema.py --text gen/mpi.table > tests/golden/schema.txt"


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: check_schema_golden.py mpi.table GOLDEN")
    table, golden = sys.argv[1], sys.argv[2]
    now = emit_schema.text(mpitable.parse_table(table)).splitlines(keepends=True)
    with open(golden) as f:
        was = f.readlines()
    if now == was:
        print("schema_golden: the schema of %d functions matches %s" % (len(now) - 2, golden))
        return 0
    sys.stdout.writelines(difflib.unified_diff(was, now, golden, "generated from " + table))
    print("""
schema_golden: the trace schema generated from mpi.table differs from the
golden file (above: - golden, + generated).

The schema (function ids, names and field lists) is a format contract: every
trace carries it (doc/FORMAT.md 1.5), and readers such as tracefold-replay
look functions and fields up by name and expect the same field lists.
Changing it is a format change. If it is intended: bump the format versions
where doc/FORMAT.md section 1.12 requires it (TF_*_VERSION in
include/tracefold.h), update doc/FORMAT.md and doc/RECORDED.md, then refresh
the golden file from the source tree:

    %s
""" % REFRESH)
    return 1


if __name__ == "__main__":
    sys.exit(main())
