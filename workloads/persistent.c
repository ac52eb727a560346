/* persistent — halo exchange with persistent requests (the pattern of codes
 * that set up their communication once and replay it every timestep, e.g.
 * many CFD and climate codes).
 *
 * Communication: ranks form a periodic ring; each owns an N x N slab of a 2D
 * Jacobi problem (rows periodic across ranks, fixed walls left and right).
 * Once: MPI_Recv_init from left and right neighbours into the ghost rows and
 * MPI_Send_init of the first/last interior rows (at P = 1 both neighbours are
 * the rank itself; tags tell the directions apart). Each iteration:
 * MPI_Startall on the 4 requests, MPI_Waitall(4, ..., MPI_STATUSES_IGNORE),
 * local update (copied back so the buffers bound to the requests stay put).
 * At the end: MPI_Request_free on each request and MPI_Allreduce of the sum.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Recv_init 2,
 *   MPI_Send_init 2, MPI_Startall I, MPI_Waitall I, MPI_Request_free 4,
 *   MPI_Allreduce 1, MPI_Finalize 1.
 * Options: -s N slab is N x N (default 32), -i I iterations (default 20).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

enum { TAG_TO_RIGHT = 0, TAG_TO_LEFT = 1 };

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 32, &args, &rank, &nprocs);
  const int n = args.size;
  const size_t ld = (size_t)n + 2;
  const int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
  if (rank == 0) printf("persistent: %d ranks, slab %dx%d, %d iterations\n", nprocs, n, n, args.iters);

  double *u = calloc(ld * ld, sizeof *u);
  double *unew = calloc(ld * ld, sizeof *unew);
  if (!u || !unew) {
    fprintf(stderr, "persistent: out of memory\n");
    return 1;
  }
  /* left wall 1.0, right wall 0.0; a rank-dependent bump in the interior */
  for (size_t i = 0; i < ld; i++) u[i * ld + 0] = 1.0;
  for (size_t j = 1; j <= (size_t)n; j++) u[((size_t)n / 2) * ld + j] = (double)(rank % 3);

  MPI_Request req[4];
  WL(MPI_Recv_init, &u[0 * ld + 1], n, MPI_DOUBLE, left, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[0]);
  WL(MPI_Recv_init, &u[((size_t)n + 1) * ld + 1], n, MPI_DOUBLE, right, TAG_TO_LEFT, MPI_COMM_WORLD, &req[1]);
  WL(MPI_Send_init, &u[(size_t)n * ld + 1], n, MPI_DOUBLE, right, TAG_TO_RIGHT, MPI_COMM_WORLD, &req[2]);
  WL(MPI_Send_init, &u[1 * ld + 1], n, MPI_DOUBLE, left, TAG_TO_LEFT, MPI_COMM_WORLD, &req[3]);

  for (int it = 0; it < args.iters; it++) {
    WL(MPI_Startall, 4, req);
    WL(MPI_Waitall, 4, req, MPI_STATUSES_IGNORE);
    for (size_t i = 1; i <= (size_t)n; i++)
      for (size_t j = 1; j <= (size_t)n; j++)
        unew[i * ld + j] = 0.25 * (u[(i - 1) * ld + j] + u[(i + 1) * ld + j] + u[i * ld + j - 1] + u[i * ld + j + 1]);
    for (size_t i = 1; i <= (size_t)n; i++)
      for (size_t j = 1; j <= (size_t)n; j++) u[i * ld + j] = unew[i * ld + j];
  }
  for (int k = 0; k < 4; k++) WL(MPI_Request_free, &req[k]);

  double sum = 0.0, gsum;
  for (size_t i = 1; i <= (size_t)n; i++)
    for (size_t j = 1; j <= (size_t)n; j++) sum += u[i * ld + j] * (double)j;
  WL(MPI_Allreduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", gsum);
    fflush(stdout);
  }
  free(u);
  free(unew);
  return wl_finalize(&args, rank);
}
