/* cstbranch — the CYPRESS slides' example of a data-dependent branch inside
 * a nested loop (../shared/papers/cypress-static-dynamic-compression-slides.txt,
 * "Limitations of Bottom-Up Compression"), for the CST tests (doc/CST.md):
 *
 *   for i < I { for j <= i { if (j + rank) even: MPI_Isend to partner, else MPI_Irecv from it }
 *               MPI_Waitall; MPI_Reduce }
 *
 * partner = rank ^ 1 (MPI_PROC_NULL for the last rank when P is odd): the
 * two partners' parities differ, so one sends when the other receives. The
 * trace is irregular (the inner loop grows), the structure is three nested
 * nodes. Counts oracle: the program's own (WL, wl_common.h).
 * Options: -i I (default 10), -s N doubles a message (default 4).
 * Not in TF_C_WORKLOADS (its own tests: tests/cst.sh).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 10, 4, &args, &rank, &nprocs);
  const int n = args.size, iters = args.iters;
  int partner = rank ^ 1;
  if (partner >= nprocs) partner = MPI_PROC_NULL;
  if (rank == 0) printf("cstbranch: %d ranks, %d iterations\n", nprocs, iters);
  double *buf = calloc((size_t)(iters + 1) * (size_t)n + 1, sizeof *buf);
  MPI_Request *reqs = malloc((size_t)(iters + 1) * sizeof *reqs);
  if (!buf || !reqs) {
    fprintf(stderr, "cstbranch: out of memory\n");
    return 1;
  }
  double local = rank, total = 0.0, check = 0.0;
  for (int i = 0; i < iters; i++) {
    for (int j = 0; j <= i; j++) {
      double *b = buf + (size_t)j * (size_t)n;
      if ((j + rank) % 2 == 0) {
        b[0] = local + j;
        WL(MPI_Isend, b, n, MPI_DOUBLE, partner, j, MPI_COMM_WORLD, &reqs[j]);
      } else
        WL(MPI_Irecv, b, n, MPI_DOUBLE, partner, j, MPI_COMM_WORLD, &reqs[j]);
    }
    WL(MPI_Waitall, i + 1, reqs, MPI_STATUSES_IGNORE);
    for (int j = 0; j <= i; j++) local += buf[(size_t)j * (size_t)n] / (double)(iters * iters);
    WL(MPI_Reduce, &local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    check += total;
  }
  if (rank == 0) {
    printf("checksum: %.12e\n", check);
    fflush(stdout);
  }
  free(buf);
  free(reqs);
  return wl_finalize(&args, rank);
}
