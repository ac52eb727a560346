/* alltoallv — IS-like bucket sort (the pattern of NPB IS and of sample-sort
 * style redistributions: data-dependent message sizes).
 *
 * Communication, per iteration: each rank generates N pseudo-random keys
 * (deterministic LCG seeded by rank and iteration; each key is the average of
 * four draws, so the buckets are unevenly filled), buckets them by key range
 * (key goes to rank key*P/MAXKEY), exchanges the bucket sizes with
 * MPI_Alltoall, then the keys with MPI_Alltoallv, sorts what it received and
 * verifies it (all keys in its range) with one MPI_Allreduce of
 * {keys received, errors, position-weighted key sum}.
 *
 * Counts oracle (same on every rank, I = iterations):
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Alltoall I,
 *   MPI_Alltoallv I, MPI_Allreduce I, MPI_Finalize 1.
 * Options: -s N keys per rank (default 1024), -i I iterations (default 10).
 * The default iteration count is below 20 to keep a 16-rank run oversubscribed
 * on 2 cores under ~3 s with MPICH (each collective costs tens of ms there).
 */
#include "wl_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXKEY (1 << 16)

static uint64_t lcg_state;

static int next_draw(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((lcg_state >> 33) % MAXKEY);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 10, 1024, &args, &rank, &nprocs);
  const int nkeys = args.size;
  if (rank == 0) printf("alltoallv: %d ranks, %d keys per rank, %d iterations\n", nprocs, nkeys, args.iters);

  int *keys = malloc((size_t)nkeys * sizeof *keys);
  int *sendbuf = malloc((size_t)nkeys * sizeof *sendbuf);
  int *recvbuf = malloc((size_t)nkeys * (size_t)nprocs * sizeof *recvbuf); /* worst case */
  int *cnt = malloc(6 * (size_t)nprocs * sizeof *cnt);
  if (!keys || !sendbuf || !recvbuf || !cnt) {
    fprintf(stderr, "alltoallv: out of memory\n");
    return 1;
  }
  int *scount = cnt, *sdispl = cnt + nprocs, *rcount = cnt + 2 * nprocs, *rdispl = cnt + 3 * nprocs;
  int *fill = cnt + 4 * nprocs;

  long long checksum = 0;
  int failed = 0;
  for (int it = 0; it < args.iters; it++) {
    lcg_state = (uint64_t)(rank + 1) * 1000003ULL + (uint64_t)it * 7919ULL;
    for (int p = 0; p < nprocs; p++) scount[p] = 0;
    for (int k = 0; k < nkeys; k++) {
      keys[k] = (next_draw() + next_draw() + next_draw() + next_draw()) / 4;
      scount[(long long)keys[k] * nprocs / MAXKEY]++;
    }
    sdispl[0] = 0;
    for (int p = 1; p < nprocs; p++) sdispl[p] = sdispl[p - 1] + scount[p - 1];
    for (int p = 0; p < nprocs; p++) fill[p] = sdispl[p];
    for (int k = 0; k < nkeys; k++) sendbuf[fill[(long long)keys[k] * nprocs / MAXKEY]++] = keys[k];

    WL(MPI_Alltoall, scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    rdispl[0] = 0;
    for (int p = 1; p < nprocs; p++) rdispl[p] = rdispl[p - 1] + rcount[p - 1];
    const int nrecv = rdispl[nprocs - 1] + rcount[nprocs - 1];
    WL(MPI_Alltoallv, sendbuf, scount, sdispl, MPI_INT, recvbuf, rcount, rdispl, MPI_INT, MPI_COMM_WORLD);

    qsort(recvbuf, (size_t)nrecv, sizeof *recvbuf, cmp_int);
    long long local[3] = {nrecv, 0, 0}, global[3];
    for (int k = 0; k < nrecv; k++) {
      if ((long long)recvbuf[k] * nprocs / MAXKEY != rank) local[1]++; /* not in my bucket */
      local[2] += (long long)recvbuf[k] * ((k % 7) + 1);
    }
    WL(MPI_Allreduce, local, global, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (global[0] != (long long)nkeys * nprocs || global[1] != 0) failed = 1;
    checksum += global[2];
    if (rank == 0 && (it + 1) % 5 == 0) printf("iter %d: my bucket %d keys, key sum %lld\n", it + 1, nrecv, global[2]);
  }

  if (rank == 0) {
    printf("verification: %s\n", failed ? "FAILED" : "passed");
    printf("checksum: %lld\n", checksum);
    fflush(stdout);
  }
  free(keys);
  free(sendbuf);
  free(recvbuf);
  free(cnt);
  return wl_finalize(&args, rank);
}
