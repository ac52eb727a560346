/* stencil3d — 3D 7-point Jacobi with face halo exchange on a Cartesian
 * communicator (the pattern of 3D structured-grid codes: NPB MG/SP/BT-style
 * solvers, miniGhost, HPCG's halo).
 *
 * Communication: MPI_Dims_create(P, 3) and MPI_Cart_create (dims 0 and 1 not
 * periodic, dim 2 periodic, no reorder), MPI_Comm_rank and MPI_Cart_coords
 * on the new communicator, MPI_Cart_shift for each of the 3 dimensions. Each
 * step posts 6 MPI_Irecv and 6 MPI_Isend of packed faces (MPI_PROC_NULL
 * neighbours at the non-periodic edges are posted too; at P = 1 the periodic
 * neighbour is the rank itself) and completes them with one MPI_Waitall with a
 * statuses array, whose receive statuses are checked. One MPI_Allreduce at the
 * end; then MPI_Cart_sub keeps the x-y plane, an MPI_Allreduce on it counts its
 * ranks (checked: dims[0] x dims[1]), and both communicators are freed.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 2, MPI_Comm_size 1, MPI_Dims_create 1,
 *   MPI_Cart_create 1, MPI_Cart_coords 1, MPI_Cart_shift 3, MPI_Irecv 6I,
 *   MPI_Isend 6I, MPI_Waitall I, MPI_Allreduce 2, MPI_Cart_sub 1,
 *   MPI_Comm_free 2, MPI_Finalize 1.
 * Options: -s N local block is N^3 (default 12), -i I steps (default 20).
 *
 * Built with -DWL_GRID_BY_HAND (wl_stencil3d_nodims), the grid is the same
 * (MPI_Dims_create's answer, computed by hand) but no MPI_Dims_create or
 * Cartesian communicator is made: the neighbours are computed from the
 * row-major coordinates, the exchanges run on MPI_COMM_WORLD, and the x-y
 * plane is an MPI_Comm_split by z. Its trace then has only the peers to tell
 * a 3-D grid by (tracefold extrapolate's topology detection).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef WL_GRID_BY_HAND
enum { grid_by_hand = 1 };
#else
enum { grid_by_hand = 0 };
#endif

static size_t at(int n, int i, int j, int k) {
  size_t ld = (size_t)n + 2;
  return ((size_t)i * ld + (size_t)j) * ld + (size_t)k;
}

/* Copy the face at index `layer` of dimension `dim` into buf (to_buf != 0)
 * or from buf into the array. */
static void face_copy(double *u, int n, int dim, int layer, double *buf, int to_buf) {
  size_t m = 0;
  for (int a = 1; a <= n; a++)
    for (int b = 1; b <= n; b++) {
      int c[3];
      c[dim] = layer;
      c[(dim + 1) % 3] = a;
      c[(dim + 2) % 3] = b;
      size_t p = at(n, c[0], c[1], c[2]);
      if (to_buf)
        buf[m++] = u[p];
      else
        u[p] = buf[m++];
    }
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 12, &args, &rank, &nprocs);
  const int n = args.size;
  const size_t face = (size_t)n * (size_t)n;
  const size_t total = ((size_t)n + 2) * ((size_t)n + 2) * ((size_t)n + 2);

  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 1}, coords[3];
  MPI_Comm cart;
  int lo[3], hi[3];
#ifdef WL_GRID_BY_HAND
  /* MPI_Dims_create's 3-D answer: each prime factor, largest first, onto the
   * smallest dimension; then non-increasing */
  int left = nprocs;
  dims[0] = dims[1] = dims[2] = 1;
  int f[32], nf = 0;
  for (int q = 2; q * q <= left; q++)
    while (left % q == 0) f[nf++] = q, left /= q;
  if (left > 1) f[nf++] = left;
  for (int i = nf - 1; i >= 0; i--) {
    int s = 0;
    for (int j = 1; j < 3; j++)
      if (dims[j] < dims[s]) s = j;
    dims[s] *= f[i];
  }
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (dims[j] > dims[i]) {
        int t = dims[i];
        dims[i] = dims[j];
        dims[j] = t;
      }
  (void)periods;
  cart = MPI_COMM_WORLD;
  const int stride[3] = {dims[1] * dims[2], dims[2], 1};
  for (int d = 0; d < 3; d++) coords[d] = rank / stride[d] % dims[d];
  for (int d = 0; d < 2; d++) {
    lo[d] = coords[d] > 0 ? rank - stride[d] : MPI_PROC_NULL;
    hi[d] = coords[d] < dims[d] - 1 ? rank + stride[d] : MPI_PROC_NULL;
  }
  lo[2] = rank - coords[2] + (coords[2] + dims[2] - 1) % dims[2]; /* periodic */
  hi[2] = rank - coords[2] + (coords[2] + 1) % dims[2];
#else
  WL(MPI_Dims_create, nprocs, 3, dims);
  WL(MPI_Cart_create, MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  int crank;
  WL(MPI_Comm_rank, cart, &crank);
  WL(MPI_Cart_coords, cart, crank, 3, coords);
  for (int d = 0; d < 3; d++) WL(MPI_Cart_shift, cart, d, 1, &lo[d], &hi[d]);
#endif
  if (rank == 0) printf("stencil3d: grid %dx%dx%d, block %d^3, %d steps\n", dims[0], dims[1], dims[2], n, args.iters);

  double *u = calloc(total, sizeof *u);
  double *unew = calloc(total, sizeof *unew);
  double *buf = malloc(12 * face * sizeof *buf); /* 6 send faces, then 6 receive faces */
  if (!u || !unew || !buf) {
    fprintf(stderr, "stencil3d: out of memory\n");
    return 1;
  }
  /* Fixed boundary: the global low-x wall is hot (1.0), every other wall 0. */
  if (lo[0] == MPI_PROC_NULL)
    for (int j = 1; j <= n; j++)
      for (int k = 1; k <= n; k++) u[at(n, 0, j, k)] = unew[at(n, 0, j, k)] = 1.0;

  for (int step = 0; step < args.iters; step++) {
    MPI_Request req[12];
    MPI_Status st[12];
    /* Face f = 2*d + side; side 0 = low, 1 = high. A message sent to the high
     * neighbour carries tag 2*d and lands in the receiver's low ghost layer. */
    for (int d = 0; d < 3; d++) {
      int f = 2 * d;
      WL(MPI_Irecv, buf + (6 + f) * face, (int)face, MPI_DOUBLE, lo[d], 2 * d, cart, &req[f]);
      WL(MPI_Irecv, buf + (7 + f) * face, (int)face, MPI_DOUBLE, hi[d], 2 * d + 1, cart, &req[f + 1]);
    }
    for (int d = 0; d < 3; d++) {
      int f = 2 * d;
      face_copy(u, n, d, n, buf + f * face, 1);
      face_copy(u, n, d, 1, buf + (f + 1) * face, 1);
      WL(MPI_Isend, buf + f * face, (int)face, MPI_DOUBLE, hi[d], 2 * d, cart, &req[6 + f]);
      WL(MPI_Isend, buf + (f + 1) * face, (int)face, MPI_DOUBLE, lo[d], 2 * d + 1, cart, &req[7 + f]);
    }
    WL(MPI_Waitall, 12, req, st);
    for (int d = 0; d < 3; d++) {
      int f = 2 * d;
      if (lo[d] != MPI_PROC_NULL) {
        if (st[f].MPI_SOURCE != lo[d] || st[f].MPI_TAG != 2 * d) {
          fprintf(stderr, "stencil3d: rank %d: unexpected status on face %d\n", rank, f);
          WL(MPI_Abort, MPI_COMM_WORLD, 1);
        }
        face_copy(u, n, d, 0, buf + (6 + f) * face, 0);
      }
      if (hi[d] != MPI_PROC_NULL) {
        if (st[f + 1].MPI_SOURCE != hi[d] || st[f + 1].MPI_TAG != 2 * d + 1) {
          fprintf(stderr, "stencil3d: rank %d: unexpected status on face %d\n", rank, f + 1);
          WL(MPI_Abort, MPI_COMM_WORLD, 1);
        }
        face_copy(u, n, d, n + 1, buf + (7 + f) * face, 0);
      }
    }

    for (int i = 1; i <= n; i++)
      for (int j = 1; j <= n; j++)
        for (int k = 1; k <= n; k++)
          unew[at(n, i, j, k)] = (u[at(n, i - 1, j, k)] + u[at(n, i + 1, j, k)] + u[at(n, i, j - 1, k)] +
                                  u[at(n, i, j + 1, k)] + u[at(n, i, j, k - 1)] + u[at(n, i, j, k + 1)]) /
                                 6.0;
    double *t = u;
    u = unew;
    unew = t;
  }

  /* Weight by global x position so the checksum depends on the layout. */
  double sum = 0.0, gsum;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++)
      for (int k = 1; k <= n; k++) sum += u[at(n, i, j, k)] * (double)(coords[0] * n + i);
  WL(MPI_Allreduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, cart);
  if (rank == 0) {
    printf("checksum: %.12e\n", gsum);
    fflush(stdout);
  }
  /* The x-y plane of this rank (MPI_Cart_sub): it must hold dims[0] x dims[1] ranks. */
  MPI_Comm plane;
  const int keep[3] = {1, 1, 0};
  int one = 1, inplane = 0;
  if (grid_by_hand) /* a branch, not #ifdef: tracefold cst sees both calls (tests/cst.sh) */
    WL(MPI_Comm_split, MPI_COMM_WORLD, coords[2], rank, &plane);
  else
    WL(MPI_Cart_sub, cart, keep, &plane);
  WL(MPI_Allreduce, &one, &inplane, 1, MPI_INT, MPI_SUM, plane);
  if (inplane != dims[0] * dims[1]) {
    fprintf(stderr, "stencil3d: rank %d: %d ranks in its x-y plane, expected %d\n", rank, inplane, dims[0] * dims[1]);
    WL(MPI_Abort, MPI_COMM_WORLD, 1);
  }
  WL(MPI_Comm_free, &plane);
  if (!grid_by_hand) WL(MPI_Comm_free, &cart);
  free(u);
  free(unew);
  free(buf);
  return wl_finalize(&args, rank);
}
