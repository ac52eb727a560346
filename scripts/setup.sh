#!/usr/bin/env bash
# setup.sh — install what tracefold needs on Debian 12 (as root) and build it.
#
#   scripts/setup.sh [mpich|openmpi|asan]...   (default: mpich)
#
# Builds into build/ (MPICH, the default MPI), build-openmpi/ (Open MPI) and
# build-asan/ (MPICH, AddressSanitizer + UndefinedBehaviorSanitizer). Both
# MPIs coexist: their compilers and launchers are named explicitly
# (mpicc.mpich / mpirun.mpich, mpicc.openmpi / mpirun.openmpi), so Debian's
# mpicc/mpirun alternatives do not matter.
set -euo pipefail
cd "$(dirname "$0")/.."

# zstd: bench/sizes.sh compares trace sizes with zstd -19; libzstd-dev: the core compresses merged traces;
# clang and libclang-rt-14-dev (libFuzzer's runtime, which clang does not pull in): scripts/fuzz.sh
# libpapi-dev: TRACEFOLD_VOLUME counts instructions retired with PAPI (optional: CPU time without it)
# libsimgrid-dev: smpicc/smpirun for the simulated replay (tracefold-sim, `tracefold simulate`)
# libopen-trace-format2-dev: `tracefold export otf2` (OTF2 3.0); otf2-tools: otf2-print, which its test reads the archives with
# chromium: the test of `tracefold report` renders each report in headless Chromium
# pkg-config, groff-base (man -l): the install test (tests/install.sh)
# graphviz: `tracefold efg -o FILE.svg` renders event flow graphs with dot; the efg.* tests render every workload's
# linux-perf: bench/profile.sh (where the recorder's ns per call go)
# valgrind: bench/callgrind.sh (the recorder's instructions per call)
# autoconf, automake, libtool, autoconf-archive: bench/pilgrim.sh builds Pilgrim from source
packages=(build-essential cmake libclang-14-dev gfortran python3 mpich libmpich-dev openmpi-bin libopenmpi-dev binutils zstd libzstd-dev
          clang libclang-rt-14-dev libpapi-dev libsimgrid-dev libopen-trace-format2-dev otf2-tools chromium pkg-config
          groff-base man-db graphviz linux-perf valgrind autoconf automake libtool autoconf-archive)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

configure() { # dir, extra cmake args...
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log" >&2; exit 1; }
  cmake --build "$dir" -j"$(nproc)" >"$dir/build.log" 2>&1 ||
    { grep -E -B2 -A4 "error|Error" "$dir/build.log" >&2; exit 1; }
}
mpich=(-DMPI_C_COMPILER=mpicc.mpich -DMPI_Fortran_COMPILER=mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.mpich)
openmpi=(-DMPI_C_COMPILER=mpicc.openmpi -DMPI_Fortran_COMPILER=mpif90.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi)

[ $# -gt 0 ] || set -- mpich
for what in "$@"; do
  case "$what" in
    mpich) configure build "${mpich[@]}" ;;
    openmpi) configure build-openmpi "${openmpi[@]}" -DTF_TEST_NP="1;2;4" ;;
    asan) configure build-asan "${mpich[@]}" -DTF_SANITIZE=ON ;;
    *) echo "setup.sh: unknown build '$what' (mpich, openmpi, asan)" >&2; exit 2 ;;
  esac
  echo "setup: built $what"
done
