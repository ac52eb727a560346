/* wavefront — pipelined Gauss-Seidel sweeps on a 2D process grid (the
 * pattern of NPB LU's SSOR sweeps and of discrete-ordinates transport
 * sweeps such as Sweep3D).
 *
 * Communication: the P ranks form a dims[0] x dims[1] grid (MPI_Dims_create,
 * rank = px * dims[1] + py). Each step has a forward sweep — blocking
 * MPI_Recv (with a real status, which is checked) of the boundary row from
 * the north and column from the west neighbour, local update, blocking
 * MPI_Send of the last row south and last column east — followed by the
 * mirror-image reverse sweep (receive from south and east, send north and
 * west). Neighbours that do not exist are skipped (no call), so the counts
 * differ per rank. One MPI_Allreduce at the end.
 *
 * Counts oracle (I = iterations; hasN etc. are 1 when that neighbour exists):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Dims_create 1,
 *   MPI_Recv I*(hasN+hasW+hasS+hasE), MPI_Send I*(hasN+hasW+hasS+hasE),
 *   MPI_Allreduce 1, MPI_Finalize 1.
 * Options: -s N local block is N x N (default 16), -i I steps (default 6).
 * The default step count is low on purpose: a step is 2*(dims0+dims1-2)
 * strictly serialized message hops, and with 16 ranks oversubscribed on a
 * couple of cores each hop costs a scheduler time slice (~20 ms with MPICH).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

enum { TAG_FWD = 1, TAG_REV = 2 };

static void recv_checked(double *buf, int n, int src, int tag, int rank) {
  MPI_Status st;
  WL(MPI_Recv, buf, n, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &st);
  if (st.MPI_SOURCE != src || st.MPI_TAG != tag) {
    fprintf(stderr, "wavefront: rank %d: unexpected status\n", rank);
    WL(MPI_Abort, MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 6, 16, &args, &rank, &nprocs);
  const int n = args.size;
  const size_t ld = (size_t)n + 2;

  int dims[2] = {0, 0};
  WL(MPI_Dims_create, nprocs, 2, dims);
  const int px = rank / dims[1], py = rank % dims[1];
  const int north = px > 0 ? rank - dims[1] : -1;
  const int south = px < dims[0] - 1 ? rank + dims[1] : -1;
  const int west = py > 0 ? rank - 1 : -1;
  const int east = py < dims[1] - 1 ? rank + 1 : -1;
  if (rank == 0) printf("wavefront: grid %dx%d, block %dx%d, %d steps\n", dims[0], dims[1], n, n, args.iters);

  double *u = calloc(ld * ld, sizeof *u);
  double *col = malloc((size_t)n * sizeof *col);
  if (!u || !col) {
    fprintf(stderr, "wavefront: out of memory\n");
    return 1;
  }
  /* Global walls: north and west are 1.0, south and east 0. Interior ghosts
   * are overwritten by the neighbours' data before use. */
  for (size_t k = 1; k <= (size_t)n; k++) {
    if (north < 0) u[0 * ld + k] = 1.0;
    if (west < 0) u[k * ld + 0] = 1.0;
  }

  for (int step = 0; step < args.iters; step++) {
    /* forward sweep: dependencies flow from the north-west corner */
    if (north >= 0) recv_checked(&u[0 * ld + 1], n, north, TAG_FWD, rank);
    if (west >= 0) {
      recv_checked(col, n, west, TAG_FWD, rank);
      for (size_t i = 1; i <= (size_t)n; i++) u[i * ld + 0] = col[i - 1];
    }
    for (size_t i = 1; i <= (size_t)n; i++)
      for (size_t j = 1; j <= (size_t)n; j++)
        u[i * ld + j] = (u[i * ld + j] + u[(i - 1) * ld + j] + u[i * ld + j - 1]) / 3.0 + 0.001;
    if (south >= 0) WL(MPI_Send, &u[(size_t)n * ld + 1], n, MPI_DOUBLE, south, TAG_FWD, MPI_COMM_WORLD);
    if (east >= 0) {
      for (size_t i = 1; i <= (size_t)n; i++) col[i - 1] = u[i * ld + (size_t)n];
      WL(MPI_Send, col, n, MPI_DOUBLE, east, TAG_FWD, MPI_COMM_WORLD);
    }

    /* reverse sweep: dependencies flow from the south-east corner */
    if (south >= 0) recv_checked(&u[((size_t)n + 1) * ld + 1], n, south, TAG_REV, rank);
    if (east >= 0) {
      recv_checked(col, n, east, TAG_REV, rank);
      for (size_t i = 1; i <= (size_t)n; i++) u[i * ld + (size_t)n + 1] = col[i - 1];
    }
    for (size_t i = (size_t)n; i >= 1; i--)
      for (size_t j = (size_t)n; j >= 1; j--)
        u[i * ld + j] = (u[i * ld + j] + u[(i + 1) * ld + j] + u[i * ld + j + 1]) / 3.0;
    if (north >= 0) WL(MPI_Send, &u[1 * ld + 1], n, MPI_DOUBLE, north, TAG_REV, MPI_COMM_WORLD);
    if (west >= 0) {
      for (size_t i = 1; i <= (size_t)n; i++) col[i - 1] = u[i * ld + 1];
      WL(MPI_Send, col, n, MPI_DOUBLE, west, TAG_REV, MPI_COMM_WORLD);
    }
  }

  double sum = 0.0, gsum;
  for (size_t i = 1; i <= (size_t)n; i++)
    for (size_t j = 1; j <= (size_t)n; j++) sum += u[i * ld + j] * (double)(rank + 1);
  WL(MPI_Allreduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", gsum);
    fflush(stdout);
  }
  free(u);
  free(col);
  return wl_finalize(&args, rank);
}
