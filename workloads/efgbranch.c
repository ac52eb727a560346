/* efgbranch — branches inside loops whose outcome varies by iteration, by
 * rank and by data: the cases the event flow graph paper
 * (../shared/papers/mpi-event-flow-graphs.txt, Fig. 1-4) shows a plain
 * event flow graph cannot reconstruct, for the exact-reconstruction tests of
 * `tracefold efg` (doc/EFG.md).
 *
 * Communication (I = iterations, P = ranks, partner = rank ^ 1, or
 * MPI_PROC_NULL for the last rank when P is odd):
 *   1. Fig. 2, a branch by iteration: for i < I: MPI_Barrier; i < I/2 ?
 *      MPI_Bcast (root i % P) : MPI_Gather (root i % P); MPI_Reduce to 0.
 *   2. Fig. 1, a branch by rank: for i < I: even ranks MPI_Send to the
 *      partner, odd ranks MPI_Recv from it; MPI_Allreduce.
 *   3. Fig. 4, blocks of ten: for b < 4, k < 10: MPI_Barrier, then in even
 *      blocks even ranks MPI_Recv and odd ranks MPI_Send, in odd blocks the
 *      other way round (with the partner).
 *   4. Fig. 3, a branch by data: for i < I: an MPI_Allreduce of a
 *      pseudo-random value (the same sum on every rank); if the sum is
 *      divisible by 3, MPI_Sendrecv with the partner, else if it is even,
 *      MPI_Bcast from rank 0, else MPI_Barrier.
 *   end: MPI_Reduce of a checksum to rank 0.
 * Counts oracle: counted by the program itself (WL, wl_common.h): phase 4
 * depends on the data, so every rank counts what it called.
 * Options: -s N doubles per message (default 16), -i I (default 10).
 */
#include "wl_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t lcg(uint64_t x) { return x * 6364136223846793005ull + 1442695040888963407ull; }

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 10, 16, &args, &rank, &nprocs);
  const int n = args.size, I = args.iters;
  int partner = rank ^ 1;
  if (partner >= nprocs) partner = MPI_PROC_NULL;
  if (rank == 0) printf("efgbranch: %d ranks, %d doubles, %d iterations\n", nprocs, n, I);

  double *buf = malloc((size_t)n * (size_t)(nprocs + 2) * sizeof *buf);
  if (!buf) {
    fprintf(stderr, "efgbranch: out of memory\n");
    return 1;
  }
  double *gath = buf + n;
  double acc = 0.0;
  for (int k = 0; k < n; k++) buf[k] = (double)(rank + k) / 8.0;

  /* 1. Fig. 2: the branch taken changes half-way */
  for (int i = 0; i < I; i++) {
    WL(MPI_Barrier, MPI_COMM_WORLD);
    if (i < I / 2)
      WL(MPI_Bcast, buf, n, MPI_DOUBLE, i % nprocs, MPI_COMM_WORLD);
    else
      WL(MPI_Gather, buf, n, MPI_DOUBLE, gath, n, MPI_DOUBLE, i % nprocs, MPI_COMM_WORLD);
    double local = buf[i % n], sum = 0.0;
    WL(MPI_Reduce, &local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    acc += sum;
  }

  /* 2. Fig. 1: even ranks send, odd ranks receive */
  for (int i = 0; i < I; i++) {
    if (rank % 2 == 0)
      WL(MPI_Send, buf, n, MPI_DOUBLE, partner, 10 + i, MPI_COMM_WORLD);
    else
      WL(MPI_Recv, buf, n, MPI_DOUBLE, partner, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double x = buf[0], y = 0.0;
    WL(MPI_Allreduce, &x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    acc += y;
  }

  /* 3. Fig. 4: receive ten times, send ten times, ... */
  for (int b = 0; b < 4; b++)
    for (int k = 0; k < 10; k++) {
      WL(MPI_Barrier, MPI_COMM_WORLD);
      if ((b % 2 == 0) == (rank % 2 == 0))
        WL(MPI_Recv, buf, n, MPI_DOUBLE, partner, 100 + b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        WL(MPI_Send, buf, n, MPI_DOUBLE, partner, 100 + b, MPI_COMM_WORLD);
    }

  /* 4. Fig. 3: the branch follows the data */
  uint64_t state = 12345;
  for (int i = 0; i < I; i++) {
    state = lcg(state + (uint64_t)rank);
    int mine = (int)(state >> 59), sum = 0; /* 0..31 */
    WL(MPI_Allreduce, &mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum % 3 == 0)
      WL(MPI_Sendrecv, buf, n, MPI_DOUBLE, partner, 200 + i, gath, n, MPI_DOUBLE, partner, 200 + i, MPI_COMM_WORLD,
         MPI_STATUS_IGNORE);
    else if (sum % 2 == 0)
      WL(MPI_Bcast, buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
      WL(MPI_Barrier, MPI_COMM_WORLD);
    acc += (double)sum;
  }

  double total = 0.0;
  WL(MPI_Reduce, &acc, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", total);
    fflush(stdout);
  }
  free(buf);
  return wl_finalize(&args, rank);
}
