# bench_common.sh — shell functions shared by the benchmark scripts that run
# the workloads (sizes.sh, ranks.sh). Sourced, not run: the sourcing script
# first sets prog (its name, e.g. sizes.sh), and has globals status (its exit
# status), failed (the directory of kept traces, empty until one is kept) and
# start (when it started, date +%s).
#
#   die MESSAGE...                   print "prog: MESSAGE" and exit 1
#   need_commands                    die unless zstd, $MPIRUN, timeout are here
#   copy_binaries BUILD BIN ITEM...  copy what a run needs from the build tree
#   private_binaries BUILD           the recorder, the CLI and $WORKLOADS into $tmp/bin
#                                    BUILD into the directory BIN
#   source_of BUILD                  print what BUILD was built from
#   keep_failed SRC NAME             keep a trace whose round trip failed
#   round_trip_failed DIR NAME WHAT  the same, and say so
#   finish MESSAGE                   the last word: exit with status
#   mpi_of_build BUILD               set mpicc and mpirun from BUILD's CMakeCache.txt
#   bench_start BUILD TAG            need_commands, then start, status=0, a scratch
#                                    directory tmp (tf-TAG.*, removed at exit) and
#                                    private_binaries BUILD
#                                    (MPICC, MPIRUN override them)
# shellcheck shell=bash disable=SC2034,SC2154 # globals shared with the sourcing script

die() { echo "$prog: $*" >&2; exit 1; }

mpi_of_build() {
  local cache=$1/CMakeCache.txt
  mpicc=${MPICC:-$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$cache")}
  mpirun=${MPIRUN:-$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$cache")}
  [ -n "$mpirun" ] || mpirun=mpirun
  [[ $mpirun != *openmpi* && $(readlink -f "$mpirun") != *orterun* ]] || mpirun="$mpirun --allow-run-as-root --oversubscribe"
}

need_commands() {
  command -v zstd >/dev/null || die "zstd not found (scripts/setup.sh installs it; or apt-get install zstd)"
  command -v "$MPIRUN" >/dev/null || die "launcher $MPIRUN not found"
  command -v timeout >/dev/null || die "timeout (coreutils) not found"
}

# copy_binaries BUILD BIN ITEM... — an ITEM with a "/" is a file relative to
# BUILD (src/cli/tracefold), one without is a workload name (ring: the
# executable BUILD/workloads/wl_ring); each is copied into BIN under its own
# file name, after checking it is there (die otherwise).
copy_binaries() {
  local build=$1 bin=$2 f
  shift 2
  for f in "$@"; do
    if [[ $f == */* ]]; then
      [[ -f $build/$f ]] || die "missing $build/$f (build the project first)"
    else
      f=workloads/wl_$f
      [[ -x $build/$f ]] || die "missing $build/$f (build the project first)"
    fi
    cp "$build/$f" "$bin/"
  done
}

# private_binaries BUILD — the recorder, the CLI and $WORKLOADS copied into
# $tmp/bin (a rebuild of BUILD while a long benchmark runs must not mix two
# versions into one table); sets bin, lib, cli and SOURCE (unless set:
# source_of BUILD).
private_binaries() {
  bin=$tmp/bin
  mkdir -p "$bin"
  # shellcheck disable=SC2086 # $WORKLOADS is a list of words
  copy_binaries "$1" "$bin" src/recorder/libtracefold.so src/cli/tracefold $WORKLOADS
  SOURCE=${SOURCE:-$(source_of "$1")}
  lib=$bin/libtracefold.so
  cli=$bin/tracefold
}

# source_of BUILD — the git commit (short) of BUILD's source tree (from its
# CMakeCache.txt), with " + uncommitted changes in src/ or include/" if those
# differ from it; "unknown" if there is no such tree or it is not in git.
source_of() {
  local src commit
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
  if [[ -n $src ]] && commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null); then
    [[ -z $(git -C "$src" status --porcelain -- src include 2>/dev/null) ]] ||
      commit="$commit + uncommitted changes in src/ or include/"
    echo "$commit"
  else
    echo unknown
  fi
}

# keep_failed SRC NAME — a round trip failed: set status=1 and copy SRC (a
# trace directory or file) to $failed/NAME, making the directory $failed
# (tf-<prog>-failed.XXXXXX in TMPDIR) at the first call.
keep_failed() {
  status=1
  [[ -n $failed ]] || failed=$(mktemp -d "${TMPDIR:-/tmp}/tf-${prog%.sh}-failed.XXXXXX")
  cp -r "$1" "$failed/$2"
}

# round_trip_failed DIR NAME WHAT — the run WHAT (e.g. "wl_ring -i 10")
# wrote a trace directory DIR whose flat files and merged trace.tf differ:
# keep_failed DIR NAME, and say so with the commands that show the difference.
round_trip_failed() {
  keep_failed "$1" "$2"
  echo "$prog: ROUND TRIP FAILED: $3: tracefold dump --no-time $failed/$2 differs from" \
    "tracefold unroll --no-time $failed/$2/trace.tf" >&2
}

# finish MESSAGE — print MESSAGE if status is not 0, then how long the script
# took, and exit with status.
finish() {
  if ((status != 0)); then
    echo "$prog: $1" >&2
  fi
  echo "$prog: done in $(($(date +%s) - start)) s" >&2
  exit "$status"
}

bench_start() {
  need_commands
  start=$(date +%s)
  status=0
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-$2.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  private_binaries "$1"
}
