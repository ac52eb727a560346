/* nbcoll — non-blocking collectives overlapped with computation (the pattern
 * of solvers that hide global reductions behind local work, e.g. pipelined
 * Krylov methods, and of codes that prefetch broadcast data).
 *
 * Communication, per iteration i: MPI_Iallreduce of an N-double vector and
 * MPI_Ibcast of an N-double vector from root i % P are started; a fixed
 * amount of local work is done in chunks while they progress; then one
 * MPI_Waitall completes both. The call sequence is the same in every run
 * (no polling whose count would depend on timing), as in a regular solver.
 * The results (not the timing) feed the checksum, which rank 0 accumulates
 * from globally reduced/broadcast data.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Iallreduce I,
 *   MPI_Ibcast I, MPI_Waitall I, MPI_Finalize 1.
 * Options: -s N vector length (default 256), -i I iterations (default 20).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

#define CHUNKS 8

/* One chunk of deterministic local work on w[lo, hi). */
static void work_chunk(double *w, int lo, int hi, int it) {
  for (int k = lo; k < hi; k++)
    for (int rep = 0; rep < 16; rep++) w[k] = 0.5 * w[k] + 0.25 * (double)((k + it + rep) % 9);
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 256, &args, &rank, &nprocs);
  const int n = args.size;
  if (rank == 0) printf("nbcoll: %d ranks, %d doubles, %d iterations\n", nprocs, n, args.iters);

  double *v = malloc(4 * (size_t)n * sizeof *v);
  if (!v) {
    fprintf(stderr, "nbcoll: out of memory\n");
    return 1;
  }
  double *red = v + n, *bc = v + 2 * n, *w = v + 3 * n;
  for (int k = 0; k < n; k++) w[k] = (double)(k % 5);

  double sum_red = 0.0, sum_bc = 0.0;
  for (int it = 0; it < args.iters; it++) {
    const int root = it % nprocs;
    for (int k = 0; k < n; k++) v[k] = (double)((rank * 3 + k + it) % 7) + w[k] * 0.01;
    if (rank == root)
      for (int k = 0; k < n; k++) bc[k] = (double)((root + 2 * k + it) % 11);

    MPI_Request reqs[2];
    WL(MPI_Iallreduce, v, red, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    WL(MPI_Ibcast, bc, n, MPI_DOUBLE, root, MPI_COMM_WORLD, &reqs[1]);
    for (int c = 0; c < CHUNKS; c++) work_chunk(w, c * n / CHUNKS, (c + 1) * n / CHUNKS, it);
    WL(MPI_Waitall, 2, reqs, MPI_STATUSES_IGNORE);

    for (int k = 0; k < n; k++) {
      sum_red += red[k] * (double)((k % 3) + 1);
      sum_bc += bc[k];
    }
  }

  if (rank == 0) {
    printf("reduced sum %.12e\n", sum_red);
    printf("broadcast sum %.12e\n", sum_bc);
    printf("checksum: %.12e\n", sum_red + sum_bc);
    fflush(stdout);
  }
  free(v);
  return wl_finalize(&args, rank);
}
