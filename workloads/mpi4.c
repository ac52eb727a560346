/* mpi4 — the MPI 4.0 functions tracefold records (issue 15, point 5):
 * MPI_Isendrecv(_replace), every persistent collective, partitioned
 * communication and MPI_Comm_idup_with_info. Built only where the MPI
 * library is MPI 4.0 (MPICH 4; not Open MPI 4.1).
 *
 * Once: MPI_Comm_idup_with_info of MPI_COMM_WORLD (MPI_Wait), a periodic
 * 1-D Cartesian communicator for the neighbourhood collectives, and the
 * persistent requests: every persistent collective of MPI 4.0 (22), on
 * MPI_COMM_WORLD (root 0, or the last rank for the rooted ones that are
 * also made in place) or the Cartesian communicator, and a partitioned
 * send to the right neighbour with its receive from the left (PARTS
 * partitions of N doubles; at 1 rank both are the rank itself).
 * Each iteration:
 *   - an MPI_Isendrecv around the ring (right, from left), one the other
 *     way on the duplicated communicator, and an MPI_Isendrecv_replace the
 *     other way, completed by one MPI_Waitall (no MPI_ANY_SOURCE: MPICH
 *     4.0.2 reports source 0 in every MPI_Isendrecv status, so the source
 *     a wildcard matched is not known);
 *   - MPI_Startall of the 22 persistent collectives, MPI_Waitall (the
 *     MPI_Scatter_init is made before and freed after, every iteration:
 *     MPICH 4.0.2 fails a restarted one at 4 ranks, "Invalid communicator"
 *     in its schedule, untraced as traced);
 *   - partitioned: MPI_Startall of the receive and the send; MPI_Parrived
 *     of partition 0 before an MPI_Barrier (so it has not arrived: the
 *     sender marks its partitions after the barrier); MPI_Pready(0),
 *     MPI_Pready_range(1, 2), MPI_Pready_list({3}); MPI_Parrived of
 *     partition 0 once it is there (the wait for it goes through
 *     PMPI_Parrived, unrecorded, so that the recorded outcome is 1 whatever
 *     the timing); MPI_Waitall of both.
 * At the end: MPI_Request_free of every persistent request, MPI_Comm_free
 * of both communicators, MPI_Allreduce of a checksum of what was received.
 *
 * Counts oracle: every call goes through WL(). -i iterations (default 3),
 * -s N doubles per peer and partition (default 256). -x changes nothing:
 * SimGrid's SMPI implements none of these functions.
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

#if MPI_VERSION < 4
#error "mpi4 needs an MPI 4.0 library"
#endif

enum { PARTS = 4, NCOLL = 22, TAG_RING = 7, TAG_DUP = 8, TAG_BACK = 9, TAG_PART = 10 };

static double *alloc_doubles(size_t n, double v) {
  double *p = malloc((n ? n : 1) * sizeof *p);
  if (!p) {
    fprintf(stderr, "mpi4: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++) p[i] = v + (double)i;
  return p;
}

static double sum_of(const double *p, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += p[i];
  return s;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 3, 256, &args, &rank, &nprocs);
  const int n = args.size, P = nprocs;
  const size_t N = (size_t)n, NP = N * (size_t)P;
  const int right = (rank + 1) % P, left = (rank + P - 1) % P, last = P - 1;
  if (rank == 0) printf("mpi4: %d ranks, %d doubles per peer, %d iterations\n", P, n, args.iters);

  /* ---- communicators */
  MPI_Comm dup, ring;
  MPI_Request r;
  WL(MPI_Comm_idup_with_info, MPI_COMM_WORLD, MPI_INFO_NULL, &dup, &r);
  WL(MPI_Wait, &r, MPI_STATUS_IGNORE);
  int dims[1] = {P}, periods[1] = {1};
  WL(MPI_Cart_create, MPI_COMM_WORLD, 1, dims, periods, 0, &ring);

  /* ---- buffers of the persistent collectives (they stay bound to their requests) */
  double *s1 = alloc_doubles(N, rank), *r1 = alloc_doubles(N, 0), *sP = alloc_doubles(NP, rank);
  double *rP = alloc_doubles(NP, 0), *inpl = alloc_doubles(N, rank), *ginpl = alloc_doubles(NP, rank);
  double *bc = alloc_doubles(N, rank), *rs = alloc_doubles(N, 0), *sc = alloc_doubles(N, 0);
  double *sc2 = alloc_doubles(N, 0), *ex = alloc_doubles(N, 0), *scan = alloc_doubles(N, 0);
  double *nbs = alloc_doubles(2 * N, rank), *nbr = alloc_doubles(2 * N, 0), *nbv = alloc_doubles(2 * N, 0);
  double *nba = alloc_doubles(2 * N, 0), *nbw = alloc_doubles(2 * N, 0), *nag = alloc_doubles(2 * N, 0);
  double *rv = alloc_doubles(NP, 0), *av = alloc_doubles(NP, 0), *aw = alloc_doubles(NP, 0);
  double *gv = alloc_doubles(NP, 0), *gP = alloc_doubles(NP, 0), *rsb = alloc_doubles(N, 0);
  int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
  int *bdispls = malloc((size_t)P * sizeof *bdispls);
  MPI_Datatype *types = malloc((size_t)P * sizeof *types);
  if (!counts || !displs || !bdispls || !types) {
    fprintf(stderr, "mpi4: out of memory\n");
    return 1;
  }
  for (int p = 0; p < P; p++) {
    counts[p] = n - (p % 2); /* n and n-1 elements per peer */
    displs[p] = p * n;
    bdispls[p] = p * n * (int)sizeof(double);
    types[p] = MPI_DOUBLE;
  }
  int ncounts[2] = {n, n - 1}, ndispls[2] = {0, n};
  MPI_Aint nbdispls[2] = {0, (MPI_Aint)(n * (int)sizeof(double))};
  MPI_Datatype ntypes[2] = {MPI_DOUBLE, MPI_DOUBLE};

  MPI_Request coll[NCOLL];
  int k = 0;
  WL(MPI_Barrier_init, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Bcast_init, bc, n, MPI_DOUBLE, last, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Gather_init, s1, n, MPI_DOUBLE, gP, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Gatherv_init, s1, counts[rank], MPI_DOUBLE, gv, counts, displs, MPI_DOUBLE, last, MPI_COMM_WORLD, MPI_INFO_NULL,
     &coll[k++]);
  const int scatter = k++; /* made anew every iteration (MPICH 4.0.2 fails it restarted) */
  WL(MPI_Scatterv_init, sP, counts, displs, MPI_DOUBLE, sc2, counts[rank], MPI_DOUBLE, last, MPI_COMM_WORLD,
     MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Allgather_init, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ginpl, n, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL,
     &coll[k++]);
  WL(MPI_Allgatherv_init, s1, counts[rank], MPI_DOUBLE, av, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL,
     &coll[k++]);
  WL(MPI_Alltoall_init, sP, n, MPI_DOUBLE, rP, n, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Alltoallv_init, sP, counts, displs, MPI_DOUBLE, rv, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL,
     &coll[k++]);
  WL(MPI_Alltoallw_init, sP, counts, bdispls, types, aw, counts, bdispls, types, MPI_COMM_WORLD, MPI_INFO_NULL,
     &coll[k++]);
  WL(MPI_Reduce_init, s1, r1, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Allreduce_init, MPI_IN_PLACE, inpl, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Reduce_scatter_init, sP, rs, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Reduce_scatter_block_init, sP, rsb, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Scan_init, s1, scan, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Exscan_init, s1, ex, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Neighbor_allgather_init, s1, n, MPI_DOUBLE, nag, n, MPI_DOUBLE, ring, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Neighbor_allgatherv_init, s1, n - 1, MPI_DOUBLE, nbv, (int[2]){n - 1, n - 1}, ndispls, MPI_DOUBLE, ring,
     MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Neighbor_alltoall_init, nbs, n, MPI_DOUBLE, nba, n, MPI_DOUBLE, ring, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Neighbor_alltoallv_init, nbs, ncounts, ndispls, MPI_DOUBLE, nbr, (int[2]){n - 1, n}, ndispls, MPI_DOUBLE,
     ring, MPI_INFO_NULL, &coll[k++]);
  WL(MPI_Neighbor_alltoallw_init, nbs, ncounts, nbdispls, ntypes, nbw, (int[2]){n - 1, n}, nbdispls, ntypes, ring,
     MPI_INFO_NULL, &coll[k++]);

  /* ---- partitioned communication: PARTS partitions of n doubles, to the right, from the left */
  double *psend = alloc_doubles(PARTS * N, rank), *precv = alloc_doubles(PARTS * N, 0);
  MPI_Request part[2]; /* receive, send */
  WL(MPI_Precv_init, precv, PARTS, (MPI_Count)n, MPI_DOUBLE, left, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL, &part[0]);
  WL(MPI_Psend_init, psend, PARTS, (MPI_Count)n, MPI_DOUBLE, right, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL, &part[1]);

  double *a = alloc_doubles(N, rank), *b = alloc_doubles(N, 0), *c = alloc_doubles(N, 0), *d = alloc_doubles(N, rank);
  double *e = alloc_doubles(N, rank);
  double check = 0.0;
  for (int it = 0; it < args.iters; it++) {
    MPI_Request p2p[3];
    MPI_Status st[3];
    WL(MPI_Isendrecv, a, n, MPI_DOUBLE, right, TAG_RING, b, n, MPI_DOUBLE, left, TAG_RING, MPI_COMM_WORLD, &p2p[0]);
    WL(MPI_Isendrecv, e, n, MPI_DOUBLE, left, TAG_DUP, c, n, MPI_DOUBLE, right, TAG_DUP, dup, &p2p[1]);
    WL(MPI_Isendrecv_replace, d, n, MPI_DOUBLE, left, TAG_BACK, right, TAG_BACK, MPI_COMM_WORLD, &p2p[2]);
    WL(MPI_Waitall, 3, p2p, st);
    check += sum_of(b, N) + sum_of(c, N) + sum_of(d, N);

    WL(MPI_Scatter_init, sP, n, MPI_DOUBLE, sc, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &coll[scatter]);
    WL(MPI_Startall, NCOLL, coll);
    WL(MPI_Waitall, NCOLL, coll, MPI_STATUSES_IGNORE);
    WL(MPI_Request_free, &coll[scatter]);

    int flag = 0;
    WL(MPI_Startall, 2, part);
    WL(MPI_Parrived, part[0], 0, &flag);
    if (flag) fprintf(stderr, "mpi4: rank %d: partition 0 arrived before it was sent\n", rank);
    WL(MPI_Barrier, MPI_COMM_WORLD);
    for (size_t i = 0; i < PARTS * N; i++) psend[i] = rank + it + (double)i;
    WL(MPI_Pready, 0, part[1]);
    WL(MPI_Pready_range, 1, 2, part[1]);
    int rest[1] = {3};
    WL(MPI_Pready_list, 1, rest, part[1]);
    while (!flag) PMPI_Parrived(part[0], 0, &flag); /* unrecorded: the recorded MPI_Parrived finds it there */
    WL(MPI_Parrived, part[0], 0, &flag);
    WL(MPI_Waitall, 2, part, MPI_STATUSES_IGNORE);
    check += sum_of(precv, PARTS * N);
  }

  for (int i = 0; i < NCOLL; i++)
    if (i != scatter) WL(MPI_Request_free, &coll[i]);
  WL(MPI_Request_free, &part[0]);
  WL(MPI_Request_free, &part[1]);
  check += sum_of(r1, N) + sum_of(inpl, N) + sum_of(ginpl, NP) + sum_of(bc, N) + sum_of(rs, N) + sum_of(scan, N) +
           sum_of(nag, 2 * N) + sum_of(nba, 2 * N) + sum_of(rsb, N);
  WL(MPI_Comm_free, &ring);
  WL(MPI_Comm_free, &dup);
  double total = 0.0;
  WL(MPI_Allreduce, &check, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum: %.12e\n", total);
    fflush(stdout);
  }
  free(s1), free(r1), free(sP), free(rP), free(inpl), free(ginpl), free(bc), free(rs), free(sc), free(sc2);
  free(ex), free(scan), free(nbs), free(nbr), free(nbv), free(nba), free(nbw), free(nag), free(rv), free(av);
  free(aw), free(gv), free(gP), free(rsb), free(counts), free(displs), free(bdispls), free(types);
  free(psend), free(precv), free(a), free(b), free(c), free(d), free(e);
  return wl_finalize(&args, rank);
}
