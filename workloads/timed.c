/* timed — known compute times, for testing what traces keep of time.
 *
 * Compute is a busy wait on the wall clock, so its length does not depend
 * on the machine (a rank that loses its core overshoots a little).
 *
 * -m phases (default):
 *   phase 1, imbalance: I steps of { compute C us (rank 3: C + 2C us);
 *            MPI_Allreduce } — every rank but 3 waits about 2C in the
 *            Allreduce, so rank 3 is the one to name;
 *   phase 2, slow first iteration: one MPI_Bcast, then I steps of
 *            { compute C us (the first step: 10C us); MPI_Barrier } — the
 *            Barrier's compute delta after the Bcast is 10x the one after
 *            a Barrier.
 *   Counts oracle (same on every rank): MPI_Init 1, MPI_Comm_rank 1,
 *   MPI_Comm_size 1, MPI_Allreduce I, MPI_Bcast 1, MPI_Barrier I,
 *   MPI_Finalize 1.
 * -m ranks: every rank its own known compute (issue 17's example): I steps
 *   of { compute C us on even ranks, 6C us on odd ranks; MPI_Allreduce }.
 *   With -s 500 -i 100 at 2 ranks: rank 0 computes 0.5 ms and rank 1 3 ms
 *   before each of 100 Allreduces, so rank 0's compute is 0.05 s and rank
 *   1's 0.3 s. Counts oracle: MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1,
 *   MPI_Allreduce I, MPI_Finalize 1.
 * -m stencil: boundary and interior ranks of a 2-D grid (MPI_Dims_create)
 *   compute differently: I steps of { compute C us on a rank of the grid's
 *   boundary, 3C us on an interior rank; post MPI_Irecv from and MPI_Isend
 *   to each of the 4 neighbours (MPI_PROC_NULL beyond the boundary), tag =
 *   the direction; MPI_Waitall of the 8 }, then one MPI_Allreduce. At 9
 *   ranks (3x3) rank 4 is interior; at 4 ranks (2x2) every rank is on the
 *   boundary. Counts oracle: MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1,
 *   MPI_Dims_create 1, MPI_Irecv 4I, MPI_Isend 4I, MPI_Waitall I,
 *   MPI_Allreduce 1, MPI_Finalize 1.
 * Options: -i I steps (per phase; default 20), -s C compute in us (default
 * 500), -m phases|ranks|stencil.
 */
#define _POSIX_C_SOURCE 200809L
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static double phases(int rank, const wl_args *args, double *sum) {
  const double c = args->size;
  double work = 0.0;
  for (int step = 0; step < args->iters; step++) { /* phase 1: rank 3 computes 2C longer */
    work += compute(rank == 3 ? 3 * c : c);
    double one = 1.0, all = 0.0;
    WL(MPI_Allreduce, &one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *sum += all;
  }
  int token = rank == 0 ? args->iters : 0;
  WL(MPI_Bcast, &token, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int step = 0; step < token; step++) { /* phase 2: the first step is 10x slower */
    work += compute(step == 0 ? 10 * c : c);
    WL(MPI_Barrier, MPI_COMM_WORLD);
  }
  return work;
}

static double ranks(int rank, const wl_args *args, double *sum) {
  const double c = args->size;
  double work = 0.0;
  for (int step = 0; step < args->iters; step++) {
    work += compute(rank % 2 ? 6 * c : c);
    double one = 1.0, all = 0.0;
    WL(MPI_Allreduce, &one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *sum += all;
  }
  return work;
}

static double stencil(int rank, int nprocs, const wl_args *args, double *sum) {
  const double c = args->size;
  int dims[2] = {0, 0};
  WL(MPI_Dims_create, nprocs, 2, dims);
  int row = rank / dims[1], col = rank % dims[1];
  int interior = row > 0 && row < dims[0] - 1 && col > 0 && col < dims[1] - 1;
  int nb[4] = {row > 0 ? rank - dims[1] : MPI_PROC_NULL, row < dims[0] - 1 ? rank + dims[1] : MPI_PROC_NULL,
               col > 0 ? rank - 1 : MPI_PROC_NULL, col < dims[1] - 1 ? rank + 1 : MPI_PROC_NULL};
  double out[4], in[4];
  double work = 0.0;
  for (int step = 0; step < args->iters; step++) {
    work += compute(interior ? 3 * c : c);
    MPI_Request req[8];
    for (int d = 0; d < 4; d++) /* from neighbour d, who sent in the opposite direction (d ^ 1) */
      WL(MPI_Irecv, &in[d], 1, MPI_DOUBLE, nb[d], d ^ 1, MPI_COMM_WORLD, &req[d]);
    for (int d = 0; d < 4; d++) {
      out[d] = rank + step;
      WL(MPI_Isend, &out[d], 1, MPI_DOUBLE, nb[d], d, MPI_COMM_WORLD, &req[4 + d]);
    }
    WL(MPI_Waitall, 8, req, MPI_STATUSES_IGNORE);
  }
  double one = 1.0, all = 0.0;
  WL(MPI_Allreduce, &one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *sum += all * args->iters;
  return work;
}

int main(int argc, char **argv) {
  /* -m MODE is ours: taken out before the common options are parsed */
  const char *mode = "phases";
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "-m") == 0) {
      mode = argv[i + 1];
      memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof *argv); /* argv[argc] (NULL) too */
      argc -= 2;
      break;
    }
  if (strcmp(mode, "phases") != 0 && strcmp(mode, "ranks") != 0 && strcmp(mode, "stencil") != 0) {
    fprintf(stderr, "timed: -m takes phases, ranks or stencil, not \"%s\"\n", mode);
    return 2;
  }
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 500, &args, &rank, &nprocs);
  if (rank == 0)
    printf("timed: %d ranks, %s, %d steps, compute %d us\n", nprocs, mode, args.iters, args.size);

  double work, sum = 0.0;
  if (strcmp(mode, "ranks") == 0) work = ranks(rank, &args, &sum);
  else if (strcmp(mode, "stencil") == 0) work = stencil(rank, nprocs, &args, &sum);
  else work = phases(rank, &args, &sum);
  volatile double sink = work; /* keeps the busy waits */
  (void)sink;
  if (rank == 0) {
    printf("checksum: %.1f\n", sum); /* iters * nprocs */
    fflush(stdout);
  }
  return wl_finalize(&args, rank);
}
