/* ring — a token vector passed around a periodic ring (the pattern of ring
 * pipelines and systolic algorithms, e.g. ring-based matrix multiply or
 * particle codes that rotate data through all ranks).
 *
 * Communication: each step every rank does one MPI_Sendrecv, sending its
 * vector to rank+1 and receiving from rank-1 (mod P; at P = 1 the rank sends
 * to itself); the receive status source is checked. Every 10th step all ranks
 * meet in MPI_Barrier. One MPI_Reduce to rank 0 at the end gives the checksum.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Sendrecv I,
 *   MPI_Barrier I/10, MPI_Reduce 1, MPI_Finalize 1.
 * Options: -s N doubles per message (default 64), -i I steps (default 20).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 64, &args, &rank, &nprocs);
  const int n = args.size;
  const int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
  if (rank == 0) printf("ring: %d ranks, %d doubles, %d steps\n", nprocs, n, args.iters);

  double *sbuf = malloc(2 * (size_t)n * sizeof *sbuf);
  if (!sbuf) {
    fprintf(stderr, "ring: out of memory\n");
    return 1;
  }
  double *rbuf = sbuf + n;
  for (int k = 0; k < n; k++) sbuf[k] = (double)(rank * n + k);

  for (int step = 0; step < args.iters; step++) {
    MPI_Status st;
    WL(MPI_Sendrecv, sbuf, n, MPI_DOUBLE, right, step, rbuf, n, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &st);
    if (st.MPI_SOURCE != left || st.MPI_TAG != step) {
      fprintf(stderr, "ring: rank %d: unexpected status\n", rank);
      WL(MPI_Abort, MPI_COMM_WORLD, 1);
    }
    /* mix the received vector with a little local work */
    for (int k = 0; k < n; k++) sbuf[k] = 0.5 * rbuf[k] + 0.25 * rbuf[(k + 1) % n] + (double)(rank + step) / 64.0;
    if ((step + 1) % 10 == 0) WL(MPI_Barrier, MPI_COMM_WORLD);
  }

  double sum = 0.0, gsum = 0.0;
  for (int k = 0; k < n; k++) sum += sbuf[k] * (double)(k + 1);
  WL(MPI_Reduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", gsum);
    fflush(stdout);
  }
  free(sbuf);
  return wl_finalize(&args, rank);
}
