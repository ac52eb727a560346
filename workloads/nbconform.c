/* nbconform — a conformance-style test of the collectives (the kind of
 * program MPI test suites run): every collective of the table, nonblocking
 * and blocking, rooted ones twice per root, each result checked.
 *
 * What it exercises, on MPI_COMM_WORLD:
 *   - every nonblocking collective (MPI_Ibarrier, Ibcast, Igather(v),
 *     Iscatter(v), Iallgather(v), Ialltoall(v,w), Ireduce, Iallreduce,
 *     Ireduce_scatter(_block), Iscan, Iexscan) and every blocking one, the
 *     rooted ones twice for every root (the second time with MPI_IN_PLACE
 *     where the standard allows it), the others twice;
 *   - user-defined reduction ops: a commutative sum and a non-commutative
 *     "first operand" (MPI_Op_create, MPI_Op_commutative, MPI_Op_free);
 *   - a resized vector datatype (a matrix column of extent one int), sent
 *     by MPI_(I)alltoall and received by MPI_(I)gather;
 *   - a duplicated datatype (MPI_Type_dup) used by a nonblocking
 *     collective and freed before the wait;
 *   - MPI_SIGNED_CHAR broadcasts of a prime count (101);
 *   - per-peer datatypes and byte displacements (MPI_(I)alltoallw);
 *   - root-only arguments absent on non-roots (NULL buffers and arrays, 0
 *     counts, MPI_DATATYPE_NULL);
 *   - every derived datatype constructor (contiguous, vector, hvector,
 *     indexed, hindexed, indexed_block, hindexed_block, struct, subarray,
 *     darray, resized, dup), each broadcast blocking and nonblocking and
 *     checked through MPI_Pack (-x: no darray, which SimGrid's SMPI lacks,
 *     and no subarray, whose order argument is recorded as the MPI
 *     library's own value of MPI_ORDER_C, which SMPI's differs from);
 *   - MPI calls made by MPI: the user sum asks MPI_Type_size of its
 *     datatype, so MPI calls the recorder from inside another call (an
 *     MPI_Waitall, an MPI_Reduce, ...): the trigger of issue 15's "cannot
 *     fold or write the compressed trace" (each rank, 2 ranks and more).
 * Errors are counted on every rank and summed (MPI_Allreduce); rank 0
 * prints them and a checksum of the results.
 *
 * Counts oracle: every call goes through WL(); per rank, with P ranks and
 * I = iterations (-i, default 1): each iteration makes, per root, 2 rounds
 * of 6 rooted collectives (nonblocking, then blocking), and 2 rounds of 11
 * others; see the code for the exact list. -s is unused.
 */
#include "wl_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G 3       /* ints per rank in gathers, scatters, allgathers */
#define R 4       /* rows of the matrix whose columns the resized vector type describes */
#define PRIME 101 /* signed chars per broadcast */
#define MAXREQ 16

static int rank, nprocs, smpi_subset;
static long errors;
static long long checksum;

static int value(int r, int i, int salt) { return (r * 131 + i * 7 + salt * 17) % 1000; }

static void check(int ok, const char *what, int root, int rep) {
  if (!ok) {
    if (errors < 10) fprintf(stderr, "nbconform: rank %d: %s wrong (root %d, round %d)\n", rank, what, root, rep);
    errors++;
  }
}

/* ---- user ops */
static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  int size = 0;
  WL(MPI_Type_size, *dt, &size);
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; i++) b[i] += a[i];
}
static void op_first(void *in, void *inout, int *len, MPI_Datatype *dt) {
  /* a o b = a: associative, not commutative (in comes from the lower ranks) */
  (void)dt;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}
static MPI_Op sum_op, first_op;
static MPI_Datatype coltype; /* a column of an R x P int matrix, extent one int */
static MPI_Datatype cont2;   /* two ints */

/* Start (nb) or make a collective: the nonblocking form into reqs. */
#define COLL(nb, reqs, n, bfn, ifn, ...)                                                                               \
  do {                                                                                                                 \
    if (nb)                                                                                                            \
      WL(ifn, __VA_ARGS__, &(reqs)[(n)++]);                                                                            \
    else                                                                                                               \
      WL(bfn, __VA_ARGS__);                                                                                            \
  } while (0)

static void finish(int nb, MPI_Request *reqs, int n, MPI_Datatype *dup) {
  /* the duplicated datatype is freed while the collectives using it are pending */
  WL(MPI_Type_free, dup);
  if (nb) WL(MPI_Waitall, n, reqs, MPI_STATUSES_IGNORE);
}

/* ---- rooted collectives for one root */
static void rooted(int root, int rep, int nb) {
  const int P = nprocs, me = rank == root, salt = root * 2 + rep + nb * 100;
  const int inplace = rep == 1;
  MPI_Request reqs[MAXREQ];
  int n = 0;
  MPI_Datatype dup;
  WL(MPI_Type_dup, MPI_INT, &dup);

  /* bcast: a prime count of signed chars */
  signed char bc[PRIME];
  for (int i = 0; i < PRIME; i++) bc[i] = me ? (signed char)((i * 3 + salt) % 127) : 0;
  COLL(nb, reqs, n, MPI_Bcast, MPI_Ibcast, bc, PRIME, MPI_SIGNED_CHAR, root, MPI_COMM_WORLD);

  /* gather of R ints into the root's matrix columns (resized vector) */
  int gsend[R], *gmat = me ? calloc((size_t)R * P, sizeof(int)) : NULL;
  for (int i = 0; i < R; i++) gsend[i] = value(rank, i, salt);
  if (me && inplace)
    for (int i = 0; i < R; i++) gmat[i * P + rank] = gsend[i];
  COLL(nb, reqs, n, MPI_Gather, MPI_Igather, me && inplace ? MPI_IN_PLACE : gsend, R, MPI_INT, gmat, me ? 1 : 0,
       me ? coltype : MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);

  /* gatherv: rank q sends q % 3 + 1 ints (the duplicated type) */
  int vsend[3], *vcounts = NULL, *vdispls = NULL, *vrecv = NULL;
  const int vn = rank % 3 + 1;
  for (int i = 0; i < vn; i++) vsend[i] = value(rank, i, salt + 1);
  if (me) {
    vcounts = malloc(2 * (size_t)P * sizeof(int));
    vdispls = vcounts + P;
    vrecv = calloc(4 * (size_t)P, sizeof(int));
    for (int q = 0; q < P; q++) vcounts[q] = q % 3 + 1, vdispls[q] = 4 * (P - 1 - q); /* reversed, with gaps */
    if (inplace) memcpy(vrecv + vdispls[rank], vsend, (size_t)vn * sizeof(int));
  }
  COLL(nb, reqs, n, MPI_Gatherv, MPI_Igatherv, me && inplace ? MPI_IN_PLACE : vsend, vn, dup, vrecv, vcounts, vdispls,
       me ? MPI_INT : MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);

  /* scatter of G ints */
  int *ssend = NULL, srecv[G];
  if (me) {
    ssend = malloc((size_t)G * P * sizeof(int));
    for (int q = 0; q < P; q++)
      for (int i = 0; i < G; i++) ssend[q * G + i] = value(q, i, salt + 2);
  }
  COLL(nb, reqs, n, MPI_Scatter, MPI_Iscatter, ssend, me ? G : 0, me ? MPI_INT : MPI_DATATYPE_NULL,
       me && inplace ? MPI_IN_PLACE : srecv, G, MPI_INT, root, MPI_COMM_WORLD);

  /* scatterv: rank q gets q % 2 + 1 ints */
  int *tsend = NULL, *tcounts = NULL, *tdispls = NULL, trecv[2] = {-1, -1};
  const int tn = rank % 2 + 1;
  if (me) {
    tcounts = malloc(2 * (size_t)P * sizeof(int));
    tdispls = tcounts + P;
    tsend = malloc(3 * (size_t)P * sizeof(int));
    for (int q = 0; q < P; q++) {
      tcounts[q] = q % 2 + 1;
      tdispls[q] = 3 * q + 1;
      for (int i = 0; i < 2; i++) tsend[3 * q + 1 + i] = value(q, i, salt + 3);
    }
  }
  COLL(nb, reqs, n, MPI_Scatterv, MPI_Iscatterv, tsend, tcounts, tdispls, me ? MPI_INT : MPI_DATATYPE_NULL,
       me && inplace ? MPI_IN_PLACE : trecv, tn, MPI_INT, root, MPI_COMM_WORLD);

  /* reduce with the user sum */
  int rsend[G], *rrecv = me ? malloc(G * sizeof(int)) : NULL;
  for (int i = 0; i < G; i++) rsend[i] = value(rank, i, salt + 4);
  if (me && inplace) memcpy(rrecv, rsend, sizeof rsend);
  COLL(nb, reqs, n, MPI_Reduce, MPI_Ireduce, me && inplace ? MPI_IN_PLACE : rsend, rrecv, G, MPI_INT, sum_op, root,
       MPI_COMM_WORLD);

  finish(nb, reqs, n, &dup);

  /* check */
  for (int i = 0; i < PRIME; i++) check(bc[i] == (signed char)((i * 3 + salt) % 127), "bcast", root, rep);
  checksum += bc[PRIME - 1];
  if (me) {
    for (int q = 0; q < P; q++)
      for (int i = 0; i < R; i++) check(gmat[i * P + q] == value(q, i, salt), "gather", root, rep);
    for (int q = 0; q < P; q++)
      for (int i = 0; i < q % 3 + 1; i++) check(vrecv[vdispls[q] + i] == value(q, i, salt + 1), "gatherv", root, rep);
    for (int i = 0; i < G; i++) {
      long s = 0;
      for (int q = 0; q < P; q++) s += value(q, i, salt + 4);
      check(rrecv[i] == s, "reduce", root, rep);
      checksum += rrecv[i];
    }
    checksum += gmat[R * P - 1] + vrecv[0];
  }
  if (!(me && inplace)) {
    for (int i = 0; i < G; i++) check(srecv[i] == value(rank, i, salt + 2), "scatter", root, rep);
    for (int i = 0; i < tn; i++) check(trecv[i] == value(rank, i, salt + 3), "scatterv", root, rep);
  }
  free(gmat);
  free(vcounts);
  free(vrecv);
  free(ssend);
  free(tcounts);
  free(tsend);
  free(rrecv);
}

/* ---- collectives without a root */
static void unrooted(int rep, int nb) {
  const int P = nprocs, salt = 1000 + rep + nb * 100, inplace = rep == 1;
  MPI_Request reqs[MAXREQ];
  int n = 0;
  MPI_Datatype dup;
  WL(MPI_Type_dup, MPI_INT, &dup);

  COLL(nb, reqs, n, MPI_Barrier, MPI_Ibarrier, MPI_COMM_WORLD);

  /* allgather of G ints (the duplicated type on both sides) */
  int agsend[G], *agrecv = malloc((size_t)G * P * sizeof(int));
  for (int i = 0; i < G; i++) agsend[i] = value(rank, i, salt);
  if (inplace) memcpy(agrecv + G * rank, agsend, sizeof agsend);
  COLL(nb, reqs, n, MPI_Allgather, MPI_Iallgather, inplace ? MPI_IN_PLACE : agsend, G, dup, agrecv, G, dup,
       MPI_COMM_WORLD);

  /* allgatherv: rank q contributes q % 3 + 1 ints */
  int avsend[3], *avcounts = malloc(2 * (size_t)P * sizeof(int)), *avdispls = avcounts + P;
  int *avrecv = calloc(3 * (size_t)P, sizeof(int));
  const int avn = rank % 3 + 1;
  for (int q = 0; q < P; q++) avcounts[q] = q % 3 + 1, avdispls[q] = 3 * q; /* (MPICH 4.0.2 on one rank ignores displs[0]) */
  for (int i = 0; i < avn; i++) avsend[i] = value(rank, i, salt + 1);
  if (inplace) memcpy(avrecv + avdispls[rank], avsend, (size_t)avn * sizeof(int));
  COLL(nb, reqs, n, MPI_Allgatherv, MPI_Iallgatherv, inplace ? MPI_IN_PLACE : avsend, avn, MPI_INT, avrecv, avcounts,
       avdispls, MPI_INT, MPI_COMM_WORLD);

  /* alltoall of matrix columns (resized vector) into rows of R ints */
  int *mat = malloc((size_t)R * P * sizeof(int)), *a2recv = malloc((size_t)R * P * sizeof(int));
  for (int i = 0; i < R; i++)
    for (int j = 0; j < P; j++) mat[i * P + j] = value(rank, i * P + j, salt + 2);
  COLL(nb, reqs, n, MPI_Alltoall, MPI_Ialltoall, mat, 1, coltype, a2recv, R, MPI_INT, MPI_COMM_WORLD);

  /* alltoallv: q % 2 + 1 ints to rank q */
  int *vv = malloc(4 * (size_t)P * sizeof(int)), *vsc = vv, *vsd = vv + P, *vrc = vv + 2 * P, *vrd = vv + 3 * P;
  int *a2vsend = malloc(2 * (size_t)P * sizeof(int)), *a2vrecv = calloc(2 * (size_t)P, sizeof(int));
  for (int q = 0; q < P; q++) {
    vsc[q] = q % 2 + 1, vsd[q] = 2 * q;
    vrc[q] = rank % 2 + 1, vrd[q] = 2 * (P - 1 - q);
    for (int i = 0; i < 2; i++) a2vsend[2 * q + i] = value(rank, 2 * q + i, salt + 3);
  }
  COLL(nb, reqs, n, MPI_Alltoallv, MPI_Ialltoallv, a2vsend, vsc, vsd, MPI_INT, a2vrecv, vrc, vrd, MPI_INT,
       MPI_COMM_WORLD);

  /* alltoallw: 2 ints to each rank, as 2 x MPI_INT or 1 x cont2 or 2 x dup, byte displacements */
  int *ww = malloc(4 * (size_t)P * sizeof(int)), *wsc = ww, *wsd = ww + P, *wrc = ww + 2 * P, *wrd = ww + 3 * P;
  MPI_Datatype *wst = malloc(2 * (size_t)P * sizeof *wst), *wrt = wst + P;
  int *a2wsend = malloc(2 * (size_t)P * sizeof(int)), *a2wrecv = calloc(2 * (size_t)P, sizeof(int));
  for (int q = 0; q < P; q++) {
    wst[q] = q % 3 == 0 ? MPI_INT : q % 3 == 1 ? cont2 : dup;
    wsc[q] = wst[q] == cont2 ? 1 : 2;
    wsd[q] = (int)(2 * q * sizeof(int));
    wrt[q] = q % 2 == 0 ? cont2 : MPI_INT;
    wrc[q] = wrt[q] == cont2 ? 1 : 2;
    wrd[q] = (int)(2 * (P - 1 - q) * sizeof(int));
    for (int i = 0; i < 2; i++) a2wsend[2 * q + i] = value(rank, 2 * q + i, salt + 4);
  }
  COLL(nb, reqs, n, MPI_Alltoallw, MPI_Ialltoallw, a2wsend, wsc, wsd, wst, a2wrecv, wrc, wrd, wrt, MPI_COMM_WORLD);

  /* allreduce (user sum), reduce_scatter (user sum), reduce_scatter_block (user sum) */
  int arsend[G], arrecv[G];
  for (int i = 0; i < G; i++) arsend[i] = value(rank, i, salt + 5);
  if (inplace) memcpy(arrecv, arsend, sizeof arsend);
  COLL(nb, reqs, n, MPI_Allreduce, MPI_Iallreduce, inplace ? MPI_IN_PLACE : arsend, arrecv, G, MPI_INT, sum_op,
       MPI_COMM_WORLD);
  int *rscounts = malloc((size_t)P * sizeof(int)), total = 0;
  for (int q = 0; q < P; q++) rscounts[q] = q % 3 + 1, total += q % 3 + 1;
  int *rssend = malloc((size_t)total * sizeof(int)), *rsrecv = malloc((size_t)total * sizeof(int));
  for (int i = 0; i < total; i++) rssend[i] = value(rank, i, salt + 6);
  if (inplace) memcpy(rsrecv, rssend, (size_t)total * sizeof(int));
  COLL(nb, reqs, n, MPI_Reduce_scatter, MPI_Ireduce_scatter, inplace ? MPI_IN_PLACE : rssend, rsrecv, rscounts,
       MPI_INT, sum_op, MPI_COMM_WORLD);
  int *rbsend = malloc((size_t)G * P * sizeof(int)), *rbrecv = malloc((size_t)G * P * sizeof(int));
  for (int i = 0; i < G * P; i++) rbsend[i] = value(rank, i, salt + 7);
  if (inplace) memcpy(rbrecv, rbsend, (size_t)G * P * sizeof(int));
  COLL(nb, reqs, n, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, inplace ? MPI_IN_PLACE : rbsend, rbrecv, G,
       MPI_INT, sum_op, MPI_COMM_WORLD);

  /* scan with the non-commutative op, exscan with the sum */
  int scsend[G], screcv[G], exsend[G], exrecv[G] = {0, 0, 0};
  for (int i = 0; i < G; i++) scsend[i] = value(rank, i, salt + 8), exsend[i] = value(rank, i, salt + 9);
  if (inplace) memcpy(screcv, scsend, sizeof scsend);
  COLL(nb, reqs, n, MPI_Scan, MPI_Iscan, inplace ? MPI_IN_PLACE : scsend, screcv, G, MPI_INT, first_op,
       MPI_COMM_WORLD);
  COLL(nb, reqs, n, MPI_Exscan, MPI_Iexscan, exsend, exrecv, G, MPI_INT, sum_op, MPI_COMM_WORLD);

  finish(nb, reqs, n, &dup);

  /* check */
  for (int q = 0; q < P; q++)
    for (int i = 0; i < G; i++) check(agrecv[q * G + i] == value(q, i, salt), "allgather", -1, rep);
  for (int q = 0; q < P; q++)
    for (int i = 0; i < q % 3 + 1; i++) check(avrecv[avdispls[q] + i] == value(q, i, salt + 1), "allgatherv", -1, rep);
  for (int q = 0; q < P; q++)
    for (int i = 0; i < R; i++) check(a2recv[q * R + i] == value(q, i * P + rank, salt + 2), "alltoall", -1, rep);
  for (int q = 0; q < P; q++)
    for (int i = 0; i < rank % 2 + 1; i++)
      check(a2vrecv[vrd[q] + i] == value(q, 2 * rank + i, salt + 3), "alltoallv", -1, rep);
  for (int q = 0; q < P; q++)
    for (int i = 0; i < 2; i++)
      check(a2wrecv[2 * (P - 1 - q) + i] == value(q, 2 * rank + i, salt + 4), "alltoallw", -1, rep);
  for (int i = 0; i < G; i++) {
    long s = 0;
    for (int q = 0; q < P; q++) s += value(q, i, salt + 5);
    check(arrecv[i] == s, "allreduce", -1, rep);
    checksum += arrecv[i];
  }
  int off = 0;
  for (int q = 0; q < rank; q++) off += rscounts[q];
  for (int i = 0; i < rscounts[rank]; i++) {
    long s = 0;
    for (int q = 0; q < P; q++) s += value(q, off + i, salt + 6);
    check(rsrecv[i] == s, "reduce_scatter", -1, rep);
  }
  for (int i = 0; i < G; i++) {
    long s = 0;
    for (int q = 0; q < P; q++) s += value(q, rank * G + i, salt + 7);
    check(rbrecv[i] == s, "reduce_scatter_block", -1, rep);
  }
  for (int i = 0; i < G; i++) check(screcv[i] == value(0, i, salt + 8), "scan", -1, rep);
  if (rank > 0)
    for (int i = 0; i < G; i++) {
      long s = 0;
      for (int q = 0; q < rank; q++) s += value(q, i, salt + 9);
      check(exrecv[i] == s, "exscan", -1, rep);
    }
  checksum += agrecv[G * P - 1] + a2recv[0] + a2wrecv[1];
  free(agrecv);
  free(avcounts);
  free(avrecv);
  free(mat);
  free(a2recv);
  free(vv);
  free(a2vsend);
  free(a2vrecv);
  free(ww);
  free(wst);
  free(a2wsend);
  free(a2wrecv);
  free(rscounts);
  free(rssend);
  free(rsrecv);
  free(rbsend);
  free(rbrecv);
}

/* ---- every derived datatype constructor, broadcast from rank 0 and checked through MPI_Pack */
static uint64_t packed_hash(void *buf, MPI_Datatype t) {
  int size = 0, pos = 0;
  WL(MPI_Pack_size, 1, t, MPI_COMM_WORLD, &size);
  char *p = malloc((size_t)size + 1);
  WL(MPI_Pack, buf, 1, t, p, size, &pos, MPI_COMM_WORLD);
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < pos; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
  free(p);
  return h;
}

static void datatypes(void) {
  enum { NTMAX = 12, BUF = 512 };
  MPI_Datatype t[NTMAX];
  int n = 0;
  int bl[3] = {2, 1, 3}, di[3] = {0, 5, 9};
  MPI_Aint hd[3] = {0, 20, 40};
  WL(MPI_Type_contiguous, 5, MPI_INT, &t[n++]);
  WL(MPI_Type_vector, 3, 2, 4, MPI_INT, &t[n++]);
  WL(MPI_Type_create_hvector, 3, 1, 12, MPI_INT, &t[n++]);
  WL(MPI_Type_indexed, 3, bl, di, MPI_INT, &t[n++]);
  WL(MPI_Type_create_hindexed, 3, bl, hd, MPI_INT, &t[n++]);
  WL(MPI_Type_create_indexed_block, 3, 2, di, MPI_INT, &t[n++]);
  WL(MPI_Type_create_hindexed_block, 3, 1, hd, MPI_INT, &t[n++]);
  MPI_Datatype st[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Aint sd[3] = {0, 8, 24};
  WL(MPI_Type_create_struct, 3, bl, sd, st, &t[n++]);
  int sizes[2] = {6, 5}, subs[2] = {3, 2}, starts[2] = {1, 2};
  if (!smpi_subset) /* its order is recorded as this MPI's MPI_ORDER_C, which SMPI does not share */
    WL(MPI_Type_create_subarray, 2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t[n++]);
  int gs[1] = {2 * nprocs}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {nprocs};
  if (!smpi_subset) /* SimGrid's SMPI lacks it */
    WL(MPI_Type_create_darray, nprocs, rank, 1, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t[n++]);
  WL(MPI_Type_create_resized, t[1], 4, 40, &t[n++]);
  WL(MPI_Type_dup, t[3], &t[n++]);
  const int NT = n;
  for (int k = 0; k < NT; k++) WL(MPI_Type_commit, &t[k]);

  char *buf = malloc(2 * BUF);
  for (int nb = 0; nb < 2; nb++)
    for (int k = 0; k < NT; k++) {
      for (int i = 0; i < 2 * BUF; i++) buf[i] = rank == 0 ? (char)(i * 13 + k + nb) : (char)-1;
      if (nb) {
        MPI_Request r;
        WL(MPI_Ibcast, buf + BUF / 2, 1, t[k], 0, MPI_COMM_WORLD, &r);
        WL(MPI_Wait, &r, MPI_STATUS_IGNORE);
      } else {
        WL(MPI_Bcast, buf + BUF / 2, 1, t[k], 0, MPI_COMM_WORLD);
      }
      /* the darray's layout depends on the rank, its signature does not: the packed bytes are rank 0's */
      uint64_t h = packed_hash(buf + BUF / 2, t[k]), hmin = 0, hmax = 0;
      WL(MPI_Allreduce, &h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
      WL(MPI_Allreduce, &h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
      check(hmin == hmax, "derived datatype broadcast", 0, k);
      checksum += (long long)(hmin % 1000);
    }
  free(buf);
  for (int k = 0; k < NT; k++) WL(MPI_Type_free, &t[k]);
}

int main(int argc, char **argv) {
  wl_args args;
  wl_start(&argc, &argv, 1, 1, &args, &rank, &nprocs);
  smpi_subset = args.smpi_subset;
  if (rank == 0) printf("nbconform: %d ranks, %d iterations\n", nprocs, args.iters);

  int commute = -1;
  WL(MPI_Op_create, op_sum, 1, &sum_op);
  WL(MPI_Op_create, op_first, 0, &first_op);
  WL(MPI_Op_commutative, first_op, &commute);
  check(commute == 0, "MPI_Op_commutative", -1, 0);
  MPI_Datatype col;
  WL(MPI_Type_vector, R, 1, nprocs, MPI_INT, &col);
  WL(MPI_Type_create_resized, col, 0, (MPI_Aint)sizeof(int), &coltype);
  WL(MPI_Type_free, &col);
  WL(MPI_Type_commit, &coltype);
  WL(MPI_Type_contiguous, 2, MPI_INT, &cont2);
  WL(MPI_Type_commit, &cont2);

  for (int it = 0; it < args.iters; it++) {
    for (int nb = 1; nb >= 0; nb--) {
      for (int root = 0; root < nprocs; root++)
        for (int rep = 0; rep < 2; rep++) rooted(root, rep, nb);
      for (int rep = 0; rep < 2; rep++) unrooted(rep, nb);
    }
    datatypes();
  }

  WL(MPI_Type_free, &coltype);
  WL(MPI_Type_free, &cont2);
  WL(MPI_Op_free, &sum_op);
  WL(MPI_Op_free, &first_op);

  long total = 0;
  long long sum = 0;
  WL(MPI_Allreduce, &errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  WL(MPI_Allreduce, &checksum, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("errors: %ld\n", total);
    printf("checksum: %lld\n", sum + total);
    fflush(stdout);
  }
  int rc = wl_finalize(&args, rank);
  return total ? 1 : rc;
}
