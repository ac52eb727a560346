#!/usr/bin/env bash
# check_exports.sh — libtracefold.so exports the MPI entry points it
# intercepts and the public API, nothing else (test unit.exports).
#
#   scripts/check_exports.sh NM LIBTRACEFOLD_SO TRACEFOLD_H FORTRAN(ON|OFF)
#
# Every dynamic symbol the library defines must be an MPI entry point (C
# MPI_X / PMPI_X, Fortran mpi_x_ / mpi_x / mpi_x__ / MPI_X / mpi_x_f08_ /
# mpi_x_f08ts_ /
# pmpi_x...), a function declared TF_API in include/tracefold.h, or a CST
# marker declared in include/tracefold_cst.h beside it (tf_cst_*); any other
# is named and fails the test. The entry points the wrappers must export
# (MPI_Init, MPI_Send, MPI_Finalize; with Fortran entry points also
# mpi_init_, mpi_send_, MPI_SEND, mpi_init_f08_, mpi_wait_f08_ and
# mpi_send_f08_ or, with MPICH, mpi_send_f08ts_) are checked to be there.
set -euo pipefail
nm=$1 lib=$2 header=$3 fortran=${4:-OFF}

syms=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u)
[ -n "$syms" ] || { echo "check_exports: $nm -D found no symbols in $lib" >&2; exit 1; }
api=$(grep -E '^TF_API ' "$header" | grep -oE '\btf_[A-Za-z0-9_]+ *\(' | tr -d ' (' | sort -u)
[ -n "$api" ] || { echo "check_exports: no TF_API declarations in $header" >&2; exit 1; }
cst_header=$(dirname "$header")/tracefold_cst.h
markers=$(grep -oE '^void tf_cst_[a-z_]+\(' "$cst_header" | sed 's/^void //; s/($//' | sort -u)
[ -n "$markers" ] || { echo "check_exports: no tf_cst_ markers declared in $cst_header" >&2; exit 1; }
api=$(printf '%s\n%s\n' "$api" "$markers" | sort -u)

bad=0
while read -r s; do
  if [[ $s =~ ^P?MPI_[A-Za-z0-9_]+$ || $s =~ ^p?mpi_[a-z0-9_]+$ ]]; then continue; fi
  if grep -qx -- "$s" <<<"$api"; then continue; fi
  echo "check_exports: $lib exports $s, which is neither an MPI entry point nor TF_API in $(basename "$header")" >&2
  bad=1
done <<<"$syms"

need=(MPI_Init MPI_Send MPI_Finalize $markers)
# mpi_f08: mpi_send_f08_ (Open MPI), mpi_send_f08ts_ (MPICH: a routine with a choice buffer)
[ "$fortran" = ON ] && need+=(mpi_init_ mpi_send_ MPI_SEND mpi_init_f08_ mpi_wait_f08_ "mpi_send_f08_|mpi_send_f08ts_")
for s in "${need[@]}"; do
  if ! grep -qxE -- "$s" <<<"$syms"; then
    echo "check_exports: $lib does not export the MPI entry point $s" >&2
    bad=1
  fi
done

n_mpi=$(grep -cE '^(P?MPI_|p?mpi_)' <<<"$syms" || true)
n_api=$(grep -cvE '^(P?MPI_|p?mpi_)' <<<"$syms" || true)
echo "check_exports: $(wc -l <<<"$syms") symbols: $n_mpi MPI entry points, $n_api others:" $(grep -vE '^(P?MPI_|p?mpi_)' <<<"$syms")
exit $bad
