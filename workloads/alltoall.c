/* alltoall — FT-like transpose (the pattern of NPB FT and of 2D-decomposed
 * ("pencil") 3D FFT codes such as P3DFFT: all-to-all within process rows,
 * then within process columns, plus a per-iteration checksum reduction).
 *
 * Communication: the P ranks form an r x c grid (MPI_Dims_create,
 * rank = row * c + col). MPI_Comm_split gives a row communicator (c ranks)
 * and a column communicator (r ranks); MPI_Comm_rank/MPI_Comm_size are called
 * on both. Each iteration does MPI_Alltoall on the row communicator, a local
 * "butterfly" pass, MPI_Alltoall on the column communicator, and MPI_Reduce
 * of a weighted checksum to world rank 0, which prints it. Both communicators
 * are freed at the end.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 3, MPI_Comm_size 3, MPI_Dims_create 1,
 *   MPI_Comm_split 2, MPI_Alltoall 2I, MPI_Reduce I, MPI_Comm_free 2,
 *   MPI_Finalize 1.
 * Options: -s B elements per (row, column) block (default 8), -i I
 * iterations (default 12). Each rank holds B * r * c doubles.
 * The default iteration count is below 20 to keep a 16-rank run oversubscribed
 * on 2 cores under ~3 s with MPICH (each collective costs tens of ms there).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 12, 8, &args, &rank, &nprocs);

  int dims[2] = {0, 0};
  WL(MPI_Dims_create, nprocs, 2, dims);
  const int r = dims[0], c = dims[1];
  MPI_Comm row_comm, col_comm;
  WL(MPI_Comm_split, MPI_COMM_WORLD, rank / c, rank % c, &row_comm);
  WL(MPI_Comm_split, MPI_COMM_WORLD, rank % c, rank / c, &col_comm);
  int row_rank, row_size, col_rank, col_size;
  WL(MPI_Comm_rank, row_comm, &row_rank);
  WL(MPI_Comm_size, row_comm, &row_size);
  WL(MPI_Comm_rank, col_comm, &col_rank);
  WL(MPI_Comm_size, col_comm, &col_size);
  if (row_size != c || col_size != r || row_rank != rank % c || col_rank != rank / c) {
    fprintf(stderr, "alltoall: rank %d: unexpected sub-communicator layout\n", rank);
    WL(MPI_Abort, MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("alltoall: grid %dx%d, block %d, %d iterations\n", r, c, args.size, args.iters);

  const int blk = args.size;
  const size_t len = (size_t)blk * (size_t)r * (size_t)c;
  double *a = malloc(2 * len * sizeof *a);
  if (!a) {
    fprintf(stderr, "alltoall: out of memory\n");
    return 1;
  }
  double *b = a + len;
  for (size_t k = 0; k < len; k++) a[k] = (double)((rank * 131 + (int)k * 7) % 97) / 97.0;

  double total = 0.0;
  for (int it = 0; it < args.iters; it++) {
    /* row transpose: c chunks of blk*r elements */
    WL(MPI_Alltoall, a, blk * r, MPI_DOUBLE, b, blk * r, MPI_DOUBLE, row_comm);
    for (size_t k = 0; k < len; k++) a[k] = 0.5 * (b[k] + b[(k + 1) % len]) + 0.001 * (double)(k % 11);
    /* column transpose: r chunks of blk*c elements */
    WL(MPI_Alltoall, a, blk * c, MPI_DOUBLE, b, blk * c, MPI_DOUBLE, col_comm);
    for (size_t k = 0; k < len; k++) a[k] = b[k];

    double local = 0.0, global = 0.0;
    for (size_t k = 0; k < len; k++) local += a[k] * (double)((k % 13) + 1) * (double)(rank + 1);
    WL(MPI_Reduce, &local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("iter %d checksum %.12e\n", it + 1, global);
      total += global;
    }
  }

  if (rank == 0) {
    printf("checksum: %.12e\n", total);
    fflush(stdout);
  }
  WL(MPI_Comm_free, &row_comm);
  WL(MPI_Comm_free, &col_comm);
  free(a);
  return wl_finalize(&args, rank);
}
