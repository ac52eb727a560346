/* mprobe — matched probes without threads: around a ring, each step every
 * rank receives its left neighbour's message through MPI_Mprobe and
 * MPI_Mrecv (even steps) or MPI_Improbe polls, MPI_Imrecv and MPI_Wait (odd
 * steps), having sent its own to the right with MPI_Isend (completed by
 * MPI_Wait); the polls pause 20 us between tries, so that an
 * oversubscribed sender gets to run. For the genapp and replay
 * matched-probe tests (tests/CMakeLists.txt); not in TF_WORKLOADS
 * (mtstress, the other workload with matched probes, is threaded).
 *
 * Counts oracle (same on every rank, I = iterations, Q = the rank's failed
 * MPI_Improbe polls, which depend on timing):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Isend I,
 *   MPI_Mprobe ceil(I/2), MPI_Mrecv ceil(I/2), MPI_Improbe floor(I/2) + Q,
 *   MPI_Imrecv floor(I/2), MPI_Wait I + floor(I/2), MPI_Allreduce 1,
 *   MPI_Finalize 1.
 * Options: -s N doubles per message (default 64), -i I steps (default 20).
 */
#define _POSIX_C_SOURCE 200809L
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 64, &args, &rank, &nprocs);
  const int n = args.size;
  const int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
  if (rank == 0) printf("mprobe: %d ranks, %d doubles, %d steps\n", nprocs, n, args.iters);
  double *sbuf = malloc(2 * (size_t)n * sizeof *sbuf);
  if (!sbuf) {
    fprintf(stderr, "mprobe: out of memory\n");
    return 1;
  }
  double *rbuf = sbuf + n, sum = 0.0;
  for (int k = 0; k < n; k++) sbuf[k] = (double)(rank * n + k);

  for (int step = 0; step < args.iters; step++) {
    MPI_Request sreq, rreq;
    MPI_Message msg;
    MPI_Status st;
    WL(MPI_Isend, sbuf, n, MPI_DOUBLE, right, step, MPI_COMM_WORLD, &sreq);
    if (step % 2 == 0) {
      WL(MPI_Mprobe, left, step, MPI_COMM_WORLD, &msg, &st);
      WL(MPI_Mrecv, rbuf, n, MPI_DOUBLE, &msg, &st);
    } else {
      int found = 0;
      while (!found) { /* pausing 20 us between polls, so that an oversubscribed sender runs */
        WL(MPI_Improbe, left, step, MPI_COMM_WORLD, &found, &msg, &st);
        if (!found) nanosleep(&(struct timespec){0, 20000}, NULL);
      }
      WL(MPI_Imrecv, rbuf, n, MPI_DOUBLE, &msg, &rreq);
      WL(MPI_Wait, &rreq, &st);
    }
    if (st.MPI_SOURCE != left || st.MPI_TAG != step) {
      fprintf(stderr, "mprobe: rank %d: unexpected status\n", rank);
      WL(MPI_Abort, MPI_COMM_WORLD, 1);
    }
    WL(MPI_Wait, &sreq, MPI_STATUS_IGNORE);
    for (int k = 0; k < n; k++) sum += rbuf[k], sbuf[k] = 0.5 * (sbuf[k] + rbuf[k]);
  }
  double total = 0.0;
  WL(MPI_Allreduce, &sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", total);
    fflush(stdout);
  }
  free(sbuf);
  return wl_finalize(&args, rank);
}
