/* branchy — rank- and iteration-dependent control flow (the pattern of
 * codes whose communication differs by rank and phase: rotating roots,
 * periodic diagnostics, occasional rank-0 coordination, sub-group
 * synchronisation). It exercises trace compression on irregular call sequences.
 *
 * Communication:
 *   setup: MPI_Comm_split(world, rank % 2) gives a parity communicator; only
 *          the odd ranks MPI_Comm_dup it (collective over the odd ranks only).
 *   per iteration i:
 *     - MPI_Bcast of N doubles from root i % P (on every rank);
 *     - even i: MPI_Reduce of a local sum to rank 0;
 *     - i % 3 == 0 and P > 1: rank 0 and partner 1 + (i/3) % (P-1) ping-pong
 *       (rank 0: MPI_Send then MPI_Recv; partner: MPI_Recv then MPI_Send);
 *     - rank 0 only: MPI_Comm_size and MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG);
 *     - i % 4 == 0, odd ranks only: MPI_Barrier on their dup'd communicator
 *       (every member of that communicator joins, so it is consistent).
 *   end: MPI_Allreduce of the accumulated sums; odd ranks free the dup'd
 *        communicator, everybody frees the parity communicator.
 *
 * Counts oracle (I = iterations; E = ceil(I/2) even iterations, T = ceil(I/3)
 * iterations with i % 3 == 0, Q = ceil(I/4) with i % 4 == 0):
 *   all: MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1 (+I on rank 0),
 *        MPI_Comm_split 1, MPI_Bcast I, MPI_Reduce E, MPI_Allreduce 1,
 *        MPI_Comm_free 1 (+1 on odd ranks), MPI_Finalize 1;
 *   rank 0 (P > 1): MPI_Send T, MPI_Recv T, MPI_Iprobe I;
 *   rank r > 0: MPI_Recv and MPI_Send once per i % 3 == 0 iteration whose
 *        partner is r;
 *   odd ranks: MPI_Comm_dup 1, MPI_Barrier Q.
 * Options: -s N doubles per broadcast (default 64), -i I (default 20).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 64, &args, &rank, &nprocs);
  const int n = args.size;
  const int odd = rank % 2;
  if (rank == 0) printf("branchy: %d ranks, %d doubles, %d iterations\n", nprocs, n, args.iters);

  MPI_Comm parity, odd_dup = MPI_COMM_NULL;
  WL(MPI_Comm_split, MPI_COMM_WORLD, odd, rank, &parity);
  if (odd) WL(MPI_Comm_dup, parity, &odd_dup);

  double *buf = malloc(2 * (size_t)n * sizeof *buf);
  if (!buf) {
    fprintf(stderr, "branchy: out of memory\n");
    return 1;
  }
  double *pong = buf + n;
  double acc = 0.0, reduced = 0.0, pingpong = 0.0;

  for (int i = 0; i < args.iters; i++) {
    const int root = i % nprocs;
    if (rank == root)
      for (int k = 0; k < n; k++) buf[k] = (double)((i * 17 + k * 5 + root) % 23) / 23.0;
    WL(MPI_Bcast, buf, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    double local = 0.0;
    for (int k = 0; k < n; k++) local += buf[k] * (double)(rank + 1);
    acc += local;

    if (i % 2 == 0) {
      double r = 0.0;
      WL(MPI_Reduce, &local, &r, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) reduced += r;
    }

    if (i % 3 == 0 && nprocs > 1) {
      const int partner = 1 + (i / 3) % (nprocs - 1);
      if (rank == 0) {
        WL(MPI_Send, buf, n, MPI_DOUBLE, partner, 100 + i, MPI_COMM_WORLD);
        WL(MPI_Recv, pong, n, MPI_DOUBLE, partner, 200 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; k++) pingpong += pong[k];
      } else if (rank == partner) {
        WL(MPI_Recv, pong, n, MPI_DOUBLE, 0, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; k++) pong[k] = 2.0 * pong[k] + (double)rank;
        WL(MPI_Send, pong, n, MPI_DOUBLE, 0, 200 + i, MPI_COMM_WORLD);
      }
    }

    if (rank == 0) {
      int size_again, flag;
      WL(MPI_Comm_size, MPI_COMM_WORLD, &size_again);
      WL(MPI_Iprobe, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      (void)flag; /* whether a message is pending is timing dependent: ignored */
      if (size_again != nprocs) {
        fprintf(stderr, "branchy: MPI_Comm_size changed\n");
        WL(MPI_Abort, MPI_COMM_WORLD, 1);
      }
    }

    if (odd && i % 4 == 0) WL(MPI_Barrier, odd_dup);
  }

  double in[2] = {acc, rank == 0 ? reduced + pingpong : 0.0}, out[2];
  WL(MPI_Allreduce, in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("broadcast sum %.12e\n", out[0]);
    printf("checksum: %.12e\n", out[0] + out[1]);
    fflush(stdout);
  }
  if (odd) WL(MPI_Comm_free, &odd_dup);
  WL(MPI_Comm_free, &parity);
  free(buf);
  return wl_finalize(&args, rank);
}
