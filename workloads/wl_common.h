/* wl_common.h — shared helpers for the bundled MPI workloads.
 *
 * Every workload is its own oracle: each MPI call goes through WL(), which
 * counts it by function name before calling it. At the end each rank writes
 * its counts to "<prefix>.<rank>" (one "MPI_Name count" line per function,
 * sorted by name) when run with -c PREFIX. Tests compare those files with
 * the counts in the tracer's reference trace.
 *
 * Command line common to all workloads:
 *   -i ITERS   iterations (timesteps)      -s SIZE   problem size
 *   -c PREFIX  write per-rank call counts to PREFIX.<rank>
 *   -x         leave out the MPI functions SimGrid's SMPI does not implement
 *              ({nosim} in gen/mpi.table), for workloads that call some:
 *              the rest of them can then be simulated
 * Rank 0 prints deterministic lines only (no timings), the last being
 * "checksum: <value>", so that output with and without the tracer is
 * byte-identical.
 */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#include <mpi.h>

/* Count one call of MPI function `fn`, then make it. Thread-safe. */
#define WL(fn, ...) (wl_count_inc(#fn), fn(__VA_ARGS__))

typedef struct wl_args {
  int iters;
  int size;
  const char *counts_prefix; /* NULL: do not write counts */
  int smpi_subset;           /* -x: no calls SimGrid's SMPI lacks */
} wl_args;

/* The common start of a workload: MPI_Init, MPI_Comm_rank and MPI_Comm_size
 * of MPI_COMM_WORLD (each counted), then wl_parse_args. */
void wl_start(int *argc, char ***argv, int default_iters, int default_size, wl_args *args, int *rank, int *nprocs);
/* The same with MPI_Init_thread requesting MPI_THREAD_MULTIPLE: if the
 * library provides less, rank 0 says so (naming the workload) and
 * MPI_Abort ends the job. */
void wl_start_multiple(const char *name, int *argc, char ***argv, int default_iters, int default_size, wl_args *args,
                       int *rank, int *nprocs);

/* Parse -i/-s/-c/-x; unknown options print usage and exit(2). */
void wl_parse_args(int argc, char **argv, int default_iters, int default_size, wl_args *out);

/* Increment the call counter of function `name` (a string literal). */
void wl_count_inc(const char *name);

/* Count MPI_Finalize, write the counts file for `rank` (if -c was given), then call MPI_Finalize. */
int wl_finalize(const wl_args *args, int rank);

#endif
