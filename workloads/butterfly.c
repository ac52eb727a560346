/* butterfly — CG-like iteration (the pattern of NPB CG: a recursive-doubling
 * exchange inside the sparse mat-vec, an exchange with a "transpose" partner,
 * and two dot products per iteration).
 *
 * Communication, per iteration i:
 *   - butterfly: with L = ceil(log2 P), the partner is rank XOR 2^(i mod L);
 *     exchange with MPI_Sendrecv, skipped when the partner is >= P (only
 *     possible for non-power-of-two P) and skipped entirely at P = 1;
 *   - transpose: ranks are laid out row-major on an r x c grid
 *     (MPI_Dims_create); rank (a, b) sends to the rank that holds (b, a) in the
 *     transposed c x r layout, i.e. dest = b*r + a, and receives from the
 *     inverse of that permutation (which differs from dest when r != c), with
 *     MPI_Irecv + MPI_Isend + two MPI_Wait (self-exchange when dest == rank);
 *   - two MPI_Allreduce dot products.
 *
 * Counts oracle (I = iterations, B = number of iterations whose butterfly
 * partner exists for this rank):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Dims_create 1,
 *   MPI_Sendrecv B, MPI_Irecv I, MPI_Isend I, MPI_Wait 2I,
 *   MPI_Allreduce 2I, MPI_Finalize 1.
 * Options: -s N local vector length (default 256), -i I iterations (default 10).
 * The default iteration count is below 20 to keep a 16-rank run oversubscribed
 * on 2 cores under ~3 s with MPICH (each collective costs tens of ms there).
 */
#include "wl_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 10, 256, &args, &rank, &nprocs);
  const int n = args.size;

  int levels = 0; /* ceil(log2(nprocs)) */
  while ((1 << levels) < nprocs) levels++;

  int dims[2] = {0, 0};
  WL(MPI_Dims_create, nprocs, 2, dims);
  const int r = dims[0], c = dims[1];
  const int t_dest = (rank % c) * r + rank / c; /* (a,b) -> b*r + a */
  const int t_src = (rank % r) * c + rank / r;  /* inverse permutation */
  if (rank == 0) printf("butterfly: %d ranks, %d levels, transpose grid %dx%d, n=%d, %d iterations\n", nprocs, levels, r, c, n, args.iters);

  double *x = malloc(3 * (size_t)n * sizeof *x);
  if (!x) {
    fprintf(stderr, "butterfly: out of memory\n");
    return 1;
  }
  double *q = x + n, *tmp = x + 2 * n;
  for (int k = 0; k < n; k++) x[k] = 1.0 + (double)((rank * 7 + k * 13) % 17) / 17.0;

  double rho = 0.0, alpha = 0.0;
  for (int it = 0; it < args.iters; it++) {
    for (int k = 0; k < n; k++) q[k] = x[k] * (1.0 + 0.01 * (double)(k % 5));

    if (levels > 0) {
      int partner = rank ^ (1 << (it % levels));
      if (partner < nprocs) {
        MPI_Status st;
        WL(MPI_Sendrecv, q, n, MPI_DOUBLE, partner, it, tmp, n, MPI_DOUBLE, partner, it, MPI_COMM_WORLD, &st);
        for (int k = 0; k < n; k++) q[k] = 0.5 * (q[k] + tmp[k]);
      }
    }

    MPI_Request rreq, sreq;
    WL(MPI_Irecv, tmp, n, MPI_DOUBLE, t_src, 1000 + it, MPI_COMM_WORLD, &rreq);
    WL(MPI_Isend, q, n, MPI_DOUBLE, t_dest, 1000 + it, MPI_COMM_WORLD, &sreq);
    WL(MPI_Wait, &rreq, MPI_STATUS_IGNORE);
    WL(MPI_Wait, &sreq, MPI_STATUS_IGNORE);
    for (int k = 0; k < n; k++) q[k] = 0.5 * (q[k] + tmp[n - 1 - k]);

    double d[2] = {0.0, 0.0};
    for (int k = 0; k < n; k++) {
      d[0] += q[k] * q[k];
      d[1] += x[k] * q[k];
    }
    WL(MPI_Allreduce, &d[0], &rho, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    WL(MPI_Allreduce, &d[1], &alpha, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    /* normalise so the values stay O(1) */
    double scale = sqrt((double)n * (double)nprocs / rho);
    for (int k = 0; k < n; k++) x[k] = q[k] * scale;
    if (rank == 0 && (it + 1) % 5 == 0) printf("iter %d rho %.10e alpha %.10e\n", it + 1, rho, alpha);
  }

  if (rank == 0) {
    printf("checksum: %.12e\n", rho + alpha);
    fflush(stdout);
  }
  free(x);
  return wl_finalize(&args, rank);
}
