#!/usr/bin/env bash
# callgrind_rank0.sh — run by the MPI launcher in place of the program: rank
# 0 (PMI_RANK under MPICH's hydra, OMPI_COMM_WORLD_RANK under Open MPI) runs
# under valgrind's callgrind, every other rank as it is, so a many-rank job
# costs one slowed-down rank.
#
# usage: mpirun -np N bench/callgrind_rank0.sh PROFILE PROGRAM [ARG...]
#   PROFILE: callgrind's output file of rank 0 (with the parts of
#   CALLGRIND_ARGS' --dump-before/--dump-after: PROFILE.1, PROFILE.2, ...)
# environment: CALLGRIND_ARGS (more callgrind options, split on blanks)
set -euo pipefail
profile=${1:?usage: callgrind_rank0.sh PROFILE PROGRAM [ARG...]}
shift
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}
[[ -n $rank ]] || { echo "callgrind_rank0.sh: neither PMI_RANK nor OMPI_COMM_WORLD_RANK is set (not run by mpirun?)" >&2; exit 2; }
[[ $rank == 0 ]] || exec "$@"
# shellcheck disable=SC2086 # CALLGRIND_ARGS is a list of options
exec valgrind -q --tool=callgrind --callgrind-out-file="$profile" ${CALLGRIND_ARGS:-} "$@"
