/* stencil2d — 2D 5-point Jacobi relaxation with halo exchange (the pattern of
 * structured-grid codes such as NPB MG smoothers or heat-equation miniapps).
 *
 * Communication: the P ranks form a dims[0] x dims[1] grid (MPI_Dims_create,
 * rank = px * dims[1] + py). Neighbours are computed by hand; the grid is not
 * periodic, so edge ranks use MPI_PROC_NULL. Each step posts 4 MPI_Irecv and
 * 4 MPI_Isend (halo rows and packed halo columns, always all four, PROC_NULL
 * included) and one MPI_Waitall(8, ..., MPI_STATUSES_IGNORE). Every 5th step
 * the squared residual is summed with MPI_Allreduce; one last MPI_Allreduce
 * sums the field for the checksum.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Dims_create 1,
 *   MPI_Irecv 4I, MPI_Isend 4I, MPI_Waitall I, MPI_Allreduce I/5 + 1,
 *   MPI_Finalize 1.
 * Options: -s N local block is N x N (default 32), -i I steps (default 20).
 *
 * Built with -DWL_GRID_BY_HAND (wl_stencil2d_nodims), the grid is the same
 * but computed without MPI_Dims_create (so MPI_Dims_create 0 above): a
 * trace with no recorded topology, for the detection of its 2-D rank space
 * by `tracefold extrapolate` (doc/EXTRAPOLATE.md).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

enum { TAG_SOUTH, TAG_NORTH, TAG_EAST, TAG_WEST }; /* direction of travel */

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 32, &args, &rank, &nprocs);
  const int n = args.size;
  const size_t ld = (size_t)n + 2; /* row length including ghosts */

  int dims[2] = {0, 0};
#ifdef WL_GRID_BY_HAND
  dims[1] = 1; /* MPI_Dims_create's 2-D answer: the most balanced d0 >= d1 */
  for (int d = 1; d * d <= nprocs; d++)
    if (nprocs % d == 0) dims[1] = d;
  dims[0] = nprocs / dims[1];
#else
  WL(MPI_Dims_create, nprocs, 2, dims);
#endif
  const int px = rank / dims[1], py = rank % dims[1];
  const int north = px > 0 ? rank - dims[1] : MPI_PROC_NULL;
  const int south = px < dims[0] - 1 ? rank + dims[1] : MPI_PROC_NULL;
  const int west = py > 0 ? rank - 1 : MPI_PROC_NULL;
  const int east = py < dims[1] - 1 ? rank + 1 : MPI_PROC_NULL;
  if (rank == 0) printf("stencil2d: grid %dx%d, block %dx%d, %d steps\n", dims[0], dims[1], n, n, args.iters);

  double *u = calloc(ld * ld, sizeof *u);
  double *unew = calloc(ld * ld, sizeof *unew);
  double *col = malloc(4 * (size_t)n * sizeof *col); /* send W, send E, recv W, recv E */
  if (!u || !unew || !col) {
    fprintf(stderr, "stencil2d: out of memory\n");
    return 1;
  }
  double *send_w = col, *send_e = col + n, *recv_w = col + 2 * n, *recv_e = col + 3 * n;

  /* Fixed boundary: the global north wall is hot (1.0), all others are 0.
   * Both arrays carry it, since they are swapped every step. */
  if (north == MPI_PROC_NULL)
    for (int j = 1; j <= n; j++) u[j] = unew[j] = 1.0;

  for (int step = 0; step < args.iters; step++) {
    MPI_Request req[8];
    for (int i = 1; i <= n; i++) {
      send_w[i - 1] = u[i * ld + 1];
      send_e[i - 1] = u[i * ld + n];
    }
    WL(MPI_Irecv, &u[0 * ld + 1], n, MPI_DOUBLE, north, TAG_SOUTH, MPI_COMM_WORLD, &req[0]);
    WL(MPI_Irecv, &u[(n + 1) * ld + 1], n, MPI_DOUBLE, south, TAG_NORTH, MPI_COMM_WORLD, &req[1]);
    WL(MPI_Irecv, recv_w, n, MPI_DOUBLE, west, TAG_EAST, MPI_COMM_WORLD, &req[2]);
    WL(MPI_Irecv, recv_e, n, MPI_DOUBLE, east, TAG_WEST, MPI_COMM_WORLD, &req[3]);
    WL(MPI_Isend, &u[n * ld + 1], n, MPI_DOUBLE, south, TAG_SOUTH, MPI_COMM_WORLD, &req[4]);
    WL(MPI_Isend, &u[1 * ld + 1], n, MPI_DOUBLE, north, TAG_NORTH, MPI_COMM_WORLD, &req[5]);
    WL(MPI_Isend, send_e, n, MPI_DOUBLE, east, TAG_EAST, MPI_COMM_WORLD, &req[6]);
    WL(MPI_Isend, send_w, n, MPI_DOUBLE, west, TAG_WEST, MPI_COMM_WORLD, &req[7]);
    WL(MPI_Waitall, 8, req, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= n; i++) {
      if (west != MPI_PROC_NULL) u[i * ld + 0] = recv_w[i - 1];
      if (east != MPI_PROC_NULL) u[i * ld + n + 1] = recv_e[i - 1];
    }

    double res = 0.0;
    for (size_t i = 1; i <= (size_t)n; i++)
      for (size_t j = 1; j <= (size_t)n; j++) {
        double v = 0.25 * (u[(i - 1) * ld + j] + u[(i + 1) * ld + j] + u[i * ld + j - 1] + u[i * ld + j + 1]);
        double d = v - u[i * ld + j];
        res += d * d;
        unew[i * ld + j] = v;
      }
    double *t = u;
    u = unew;
    unew = t;

    if ((step + 1) % 5 == 0) {
      double gres;
      WL(MPI_Allreduce, &res, &gres, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) printf("step %d residual %.10e\n", step + 1, gres);
    }
  }

  double sum = 0.0, gsum;
  for (size_t i = 1; i <= (size_t)n; i++)
    for (size_t j = 1; j <= (size_t)n; j++) sum += u[i * ld + j];
  WL(MPI_Allreduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", gsum);
    fflush(stdout);
  }
  free(u);
  free(unew);
  free(col);
  return wl_finalize(&args, rank);
}
