#!/usr/bin/env bash
# test.sh — set up, then run the whole test suite through ctest:
#   build/         MPICH: unit tests, every workload at 1 to 16 ranks (a few to 9; 64 where it proves the merged size or wildcards at scale) (and each timing mode at 4 on a few),
#                  replayed at 1, 4, 9 ranks and simulated in SimGrid at 1, 4, 9 ranks (the collective-heavy ones at 1, 4)
#   build-openmpi/ Open MPI: every workload (C and Fortran) at 1, 2, 4 ranks, replayed and simulated
#                  (not the unit tests: they use no MPI, so build/ and build-asan/ already ran them)
#   build-asan/    unit tests under AddressSanitizer + UBSan
#   build-fuzz/    the trace readers under libFuzzer for 60 s, seeded with traces of build/ (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh mpich openmpi asan
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
status=0
echo "== ctest in build"
(cd build && ctest --output-on-failure -j2) || status=1
echo "== ctest -LE unit in build-openmpi"
(cd build-openmpi && ctest --output-on-failure -j2 -LE unit) || status=1
echo "== ctest -L unit in build-asan"
(cd build-asan && ctest --output-on-failure -L unit -j2) || status=1
echo "== fuzzing the trace readers for 60 s"
scripts/fuzz.sh 60 || status=1
exit $status
