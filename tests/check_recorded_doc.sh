#!/usr/bin/env bash
# check_recorded_doc.sh — doc/RECORDED.md lists exactly the functions of mpi.table.
#
# Usage: check_recorded_doc.sh MPI_TABLE RECORDED_MD
#
# The table's functions are its lines "MPI_Name(...)". The functions the
# document claims as recorded are the `MPI_...` names in backticks in the
# first cell of the table rows of its section "## Recorded functions" (up to
# the next "## " heading). Fails (exit 1) if a table function is missing from
# those lists, if the lists name a function that is not in the table, or if a
# function is listed twice. Exit 2 on a usage error or an unreadable input.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 MPI_TABLE RECORDED_MD" >&2
  exit 2
fi
table=$1
doc=$2
for f in "$table" "$doc"; do
  if [ ! -r "$f" ]; then
    echo "check_recorded_doc: cannot read $f" >&2
    exit 2
  fi
done

table_names=$(sed -n 's/^[[:space:]]*\(MPI_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$table" | LC_ALL=C sort)
if [ -z "$table_names" ]; then
  echo "check_recorded_doc: no MPI_ functions found in $table" >&2
  exit 2
fi

doc_all=$(awk '
  /^## / { insec = ($0 ~ /^## Recorded functions[[:space:]]*$/); next }
  insec && /^[[:space:]]*\|/ { n = split($0, cell, "|"); if (n >= 2) print cell[2] }
' "$doc" | grep -o '`MPI_[A-Za-z0-9_]*`' | tr -d '`' | LC_ALL=C sort)

fail=0
if [ -z "$doc_all" ]; then
  echo "check_recorded_doc: $doc: no function lists found under \"## Recorded functions\"" >&2
  fail=1
fi

doc_names=$(printf '%s\n' "$doc_all" | LC_ALL=C sort -u | sed '/^$/d')
dups=$(printf '%s\n' "$doc_all" | LC_ALL=C uniq -d | sed '/^$/d')
missing=$(LC_ALL=C comm -23 <(printf '%s\n' "$table_names") <(printf '%s\n' "$doc_names"))
extra=$(LC_ALL=C comm -13 <(printf '%s\n' "$table_names") <(printf '%s\n' "$doc_names"))

if [ -n "$missing" ]; then
  echo "check_recorded_doc: in $table but not documented as recorded in $doc:"
  printf '  %s\n' $missing
  fail=1
fi
if [ -n "$extra" ]; then
  echo "check_recorded_doc: documented as recorded in $doc but not in $table:"
  printf '  %s\n' $extra
  fail=1
fi
if [ -n "$dups" ]; then
  echo "check_recorded_doc: listed more than once in $doc:"
  printf '  %s\n' $dups
  fail=1
fi
if [ "$fail" -ne 0 ]; then
  exit 1
fi

echo "check_recorded_doc: $(printf '%s\n' "$table_names" | wc -l | tr -d ' ') functions documented"
exit 0
