/* timed — known compute times, for testing what traces keep of time.
 *
 * Compute is a busy wait on the wall clock, so its length does not depend
 * on the machine (a rank that loses its core overshoots a little).
 *   phase 1, imbalance: I steps of { compute C us (rank 3: C + 2C us);
 *            MPI_Allreduce } — every rank but 3 waits about 2C in the
 *            Allreduce, so rank 3 is the one to name;
 *   phase 2, slow first iteration: one MPI_Bcast, then I steps of
 *            { compute C us (the first step: 10C us); MPI_Barrier } — the
 *            Barrier's compute delta after the Bcast is 10x the one after
 *            a Barrier.
 * Counts oracle (same on every rank): MPI_Init 1, MPI_Comm_rank 1,
 *   MPI_Comm_size 1, MPI_Allreduce I, MPI_Bcast 1, MPI_Barrier I,
 *   MPI_Finalize 1.
 * Options: -i I steps per phase (default 20), -s C compute in us (default 500).
 */
#define _POSIX_C_SOURCE 200809L
#include "wl_common.h"

#include <stdio.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Busy-wait `us` microseconds; returns a value derived from the work so the loop is not optimised out. */
static double compute(double us) {
  double end = now_us() + us, x = 0.0;
  while (now_us() < end) x += 1e-9;
  return x;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 500, &args, &rank, &nprocs);
  const double c = args.size;
  if (rank == 0) printf("timed: %d ranks, %d steps per phase, compute %d us\n", nprocs, args.iters, args.size);

  double work = 0.0, sum = 0.0;
  for (int step = 0; step < args.iters; step++) { /* phase 1: rank 3 computes 2C longer */
    work += compute(rank == 3 ? 3 * c : c);
    double one = 1.0, all = 0.0;
    WL(MPI_Allreduce, &one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += all;
  }
  int token = rank == 0 ? args.iters : 0;
  WL(MPI_Bcast, &token, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int step = 0; step < token; step++) { /* phase 2: the first step is 10x slower */
    work += compute(step == 0 ? 10 * c : c);
    WL(MPI_Barrier, MPI_COMM_WORLD);
  }
  volatile double sink = work; /* keeps the busy waits */
  (void)sink;
  if (rank == 0) {
    printf("checksum: %.1f\n", sum); /* iters * nprocs */
    fflush(stdout);
  }
  return wl_finalize(&args, rank);
}
