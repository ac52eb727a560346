/* collectives — every collective of gen/mpi.table, blocking and
 * nonblocking, with per-peer counts from 1 to 64 Ki elements and derived
 * datatypes: what the replay and the simulation must size their buffers
 * for (issue 15, point 1).
 *
 * Each iteration runs one round per case (element type, per-peer count):
 *   double    MPI_DOUBLE                               1, 200
 *   int       MPI_INT                                  S (-s, default 64 Ki)
 *   contig    3 ints (MPI_Type_contiguous)             1,000
 *   vector    2 doubles, stride 3 (MPI_Type_vector)    500
 *   resized   a column of a 4-row int matrix with one column per element
 *             (MPI_Type_vector resized to one int)     64
 * and every round twice: blocking, then nonblocking (the cases of up to
 * 1,000 elements with all of the round's calls pending together, one
 * MPI_Waitall; the larger ones each waited for at once, MPI_Wait). A round
 * calls, on
 * MPI_COMM_WORLD with a root that moves, MPI_(I)bcast, (I)gather(v),
 * (I)scatter(v), (I)allgather(v), (I)alltoall(v,w) (the v and w forms with
 * per-peer counts n and n-1, displacements reversed with gaps, byte
 * displacements for w); for the basic types MPI_(I)reduce, (I)allreduce,
 * (I)reduce_scatter(_block), (I)scan, (I)exscan and MPI_Reduce_local; for
 * 200 doubles each again with MPI_IN_PLACE where the standard allows (an
 * in-place MPI_Reduce at root 0: MPICH 4.0.2 crashes at another root from
 * 1,000 ints); and on a 2-D Cartesian
 * communicator (one dimension
 * periodic, so some neighbours are MPI_PROC_NULL) MPI_(I)neighbor_allgather(v)
 * and MPI_(I)neighbor_alltoall(v,w). MPI_(I)barrier once per round.
 * Rank 0 checks the basic-type results it can (alltoall, allgather,
 * bcast, allreduce...), counts errors, and prints a checksum of every
 * receive buffer.
 *
 * -x leaves out the neighbourhood collectives (SimGrid's SMPI lacks them;
 * the Cartesian communicator is still made). -i iterations (default 1).
 * Counts oracle: every call goes through WL().
 */
#include "wl_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs, smpi_subset;
static long errors;
static double checksum;
static MPI_Comm cart = MPI_COMM_NULL;

static void check(int ok, const char *what, const char *type, int n) {
  if (!ok) {
    if (errors < 10) fprintf(stderr, "collectives: rank %d: %s of %d %s: wrong result\n", rank, what, n, type);
    errors++;
  }
}

/* ---- a case: an element type and a per-peer count */
typedef struct ecase {
  const char *name;
  MPI_Datatype t;
  int basic;  /* 1: MPI_DOUBLE, 2: MPI_INT (reductions and checks); 0: derived */
  int n;      /* elements per peer */
  int inplace; /* also with MPI_IN_PLACE */
  MPI_Aint extent, true_ub;
} ecase;

/* Bytes n elements span (lb 0 for every type here). */
static size_t bytes_of(const ecase *c, int64_t n) {
  return n <= 0 ? 1 : (size_t)((n - 1) * c->extent + c->true_ub);
}

/* ---- buffers of a round: freed, and received ones summed, when it ends */
#define MAXBUF 256
static struct {
  void *p;
  size_t len;
  int recv;
} bufs[MAXBUF];
static int nbufs;

static void *buffer(const ecase *c, int64_t n, int recv, int salt) {
  size_t len = bytes_of(c, n);
  unsigned char *p = malloc(len);
  if (!p || nbufs == MAXBUF) {
    fprintf(stderr, "collectives: out of memory\n");
    exit(1);
  }
  if (recv) {
    memset(p, 0, len);
  } else if (c->basic == 1) {
    for (size_t i = 0; i < len / sizeof(double); i++) ((double *)p)[i] = (double)((rank * 7 + (int)i + salt) % 101);
  } else {
    for (size_t i = 0; i < len / sizeof(int); i++) ((int *)p)[i] = (rank * 7 + (int)i + salt) % 101;
  }
  bufs[nbufs].p = p;
  bufs[nbufs].len = len;
  bufs[nbufs].recv = recv;
  nbufs++;
  return p;
}

/* argument arrays of the round (counts, displacements, datatypes) */
static void *args_of(size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p || nbufs == MAXBUF) {
    fprintf(stderr, "collectives: out of memory\n");
    exit(1);
  }
  bufs[nbufs].p = p;
  bufs[nbufs].len = 0;
  bufs[nbufs].recv = 0;
  nbufs++;
  return p;
}
static int *ints(int n) { return args_of((size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* bytes of a receive buffer whose contents the standard leaves undefined
 * (past an in-place reduce-scatter's own block, an exscan's result on rank
 * 0): zeroed when the round ends, before the checksum */
static struct {
  unsigned char *p;
  size_t len;
} undef[MAXBUF];
static int nundef;
static void undefined(void *p, size_t from, size_t len) {
  if (nundef < MAXBUF && len) undef[nundef].p = (unsigned char *)p + from, undef[nundef++].len = len;
}

static void round_end(void) {
  for (int i = 0; i < nundef; i++) memset(undef[i].p, 0, undef[i].len);
  nundef = 0;
  for (int i = 0; i < nbufs; i++) {
    if (bufs[i].recv) {
      const unsigned char *b = bufs[i].p;
      uint64_t s = 0;
      for (size_t k = 0; k < bufs[i].len; k++) s = s * 31 + b[k];
      checksum += (double)(s % 1000003);
    }
    free(bufs[i].p);
  }
  nbufs = 0;
}

/* ---- blocking, or nonblocking and waited at once, or pending together */
enum { BLOCKING, WAITED, PENDING };
static int mode;
static MPI_Request reqs[128];
static int nreqs;

#define COLL(bfn, ifn, ...)                                                                                            \
  do {                                                                                                                 \
    if (mode == BLOCKING) {                                                                                            \
      WL(bfn, __VA_ARGS__);                                                                                            \
    } else {                                                                                                           \
      WL(ifn, __VA_ARGS__, &reqs[nreqs]);                                                                              \
      if (mode == WAITED)                                                                                              \
        WL(MPI_Wait, &reqs[nreqs], MPI_STATUS_IGNORE);                                                                 \
      else                                                                                                             \
        nreqs++;                                                                                                       \
    }                                                                                                                  \
  } while (0)

/* value element i of rank r's send buffer (basic types) */
static double sent(int r, int64_t i, int salt) { return (double)((r * 7 + (int)i + salt) % 101); }
static double got(const ecase *c, const void *p, int64_t i) {
  return c->basic == 1 ? ((const double *)p)[i] : (double)((const int *)p)[i];
}
static int checking(const ecase *c) { return c->basic && mode != PENDING; }

/* v-form counts (n, n-1, n, ...) and displacements (reversed, with gaps), in elements */
static void vlayout(int P, int n, int **counts, int **displs, int *total) {
  *counts = ints(P);
  *displs = ints(P);
  *total = 0;
  for (int q = 0; q < P; q++) (*counts)[q] = q % 2 ? n - 1 : n;
  for (int q = 0; q < P; q++) (*displs)[q] = (P - 1 - q) * (n + 1);
  *total = P * (n + 1);
}

static void rooted(const ecase *c, int root) {
  const int P = nprocs, n = c->n, me = rank == root;
  MPI_Datatype t = c->t;
  /* bcast */
  void *bc = buffer(c, n, !me, 1);
  COLL(MPI_Bcast, MPI_Ibcast, bc, n, t, root, MPI_COMM_WORLD);
  if (checking(c)) check(got(c, bc, n - 1) == sent(root, n - 1, 1), "bcast", c->name, n);
  /* gather, then with MPI_IN_PLACE at the root; the receive side only at the root */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    void *s = buffer(c, n, 0, 2), *r = me ? buffer(c, (int64_t)n * P, 1, 0) : NULL;
    if (me && inplace) memcpy((char *)r + (size_t)rank * n * c->extent, s, bytes_of(c, n));
    COLL(MPI_Gather, MPI_Igather, me && inplace ? MPI_IN_PLACE : s, n, t, r, me ? n : 0, me ? t : MPI_DATATYPE_NULL,
         root, MPI_COMM_WORLD);
    if (me && checking(c))
      for (int q = 0; q < P; q++) check(got(c, r, (int64_t)q * n) == sent(q, 0, 2), "gather", c->name, n);
  }
  /* gatherv */
  {
    int *counts, *displs, total;
    vlayout(P, n, &counts, &displs, &total);
    void *s = buffer(c, counts[rank], 0, 3), *r = me ? buffer(c, total, 1, 0) : NULL;
    COLL(MPI_Gatherv, MPI_Igatherv, s, counts[rank], t, r, me ? counts : NULL, me ? displs : NULL,
         me ? t : MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    if (me && checking(c))
      for (int q = 0; q < P; q++)
        if (counts[q]) check(got(c, r, displs[q]) == sent(q, 0, 3), "gatherv", c->name, n);
  }
  /* scatter, then with MPI_IN_PLACE at the root; the send side only at the root */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    void *s = me ? buffer(c, (int64_t)n * P, 0, 4) : NULL, *r = buffer(c, n, 1, 0);
    COLL(MPI_Scatter, MPI_Iscatter, s, me ? n : 0, me ? t : MPI_DATATYPE_NULL, me && inplace ? MPI_IN_PLACE : r, n,
         t, root, MPI_COMM_WORLD);
    if (checking(c) && !(me && inplace)) check(got(c, r, 0) == sent(root, (int64_t)rank * n, 4), "scatter", c->name, n);
  }
  /* scatterv */
  {
    int *counts, *displs, total;
    vlayout(P, n, &counts, &displs, &total);
    void *s = me ? buffer(c, total, 0, 5) : NULL, *r = buffer(c, counts[rank], 1, 0);
    COLL(MPI_Scatterv, MPI_Iscatterv, s, me ? counts : NULL, me ? displs : NULL, me ? t : MPI_DATATYPE_NULL, r,
         counts[rank], t, root, MPI_COMM_WORLD);
    if (checking(c) && counts[rank]) check(got(c, r, 0) == sent(root, displs[rank], 5), "scatterv", c->name, n);
  }
  if (!c->basic) return;
  /* reduce, then with MPI_IN_PLACE at the root, which is then rank 0 (MPICH 4.0.2 crashes on an
   * in-place MPI_Reduce of 1,000 ints or more at another root) */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    const int rr = inplace ? 0 : root, mine = rank == rr;
    void *s = buffer(c, n, 0, 6), *r = mine ? buffer(c, n, 1, 0) : NULL;
    if (mine && inplace) memcpy(r, s, bytes_of(c, n));
    COLL(MPI_Reduce, MPI_Ireduce, mine && inplace ? MPI_IN_PLACE : s, r, n, t, MPI_SUM, rr, MPI_COMM_WORLD);
    if (mine && checking(c)) {
      double want = 0;
      for (int q = 0; q < P; q++) want += sent(q, n - 1, 6);
      check(got(c, r, n - 1) == want, "reduce", c->name, n);
    }
  }
}

static void unrooted(const ecase *c) {
  const int P = nprocs, n = c->n;
  MPI_Datatype t = c->t;
  /* allgather, alltoall; again in place */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    void *s = buffer(c, n, 0, 7), *r = buffer(c, (int64_t)n * P, 1, 0);
    if (inplace) memcpy((char *)r + (size_t)rank * n * c->extent, s, bytes_of(c, n));
    COLL(MPI_Allgather, MPI_Iallgather, inplace ? MPI_IN_PLACE : s, inplace ? 0 : n, inplace ? MPI_DATATYPE_NULL : t,
         r, n, t, MPI_COMM_WORLD);
    if (checking(c))
      for (int q = 0; q < P; q++) check(got(c, r, (int64_t)q * n + n - 1) == sent(q, n - 1, 7), "allgather", c->name, n);
    s = buffer(c, (int64_t)n * P, 0, 8);
    r = buffer(c, (int64_t)n * P, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, (int64_t)n * P));
    COLL(MPI_Alltoall, MPI_Ialltoall, inplace ? MPI_IN_PLACE : s, inplace ? 0 : n, inplace ? MPI_DATATYPE_NULL : t, r,
         n, t, MPI_COMM_WORLD);
    if (checking(c))
      for (int q = 0; q < P; q++)
        check(got(c, r, (int64_t)q * n) == sent(q, (int64_t)rank * n, 8), "alltoall", c->name, n);
  }
  /* allgatherv, alltoallv, alltoallw (byte displacements); again in place */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    int *counts, *displs, total;
    vlayout(P, n, &counts, &displs, &total);
    void *s = buffer(c, counts[rank], 0, 9), *r = buffer(c, total, 1, 0);
    if (inplace) memcpy((char *)r + (size_t)displs[rank] * c->extent, s, bytes_of(c, counts[rank]));
    COLL(MPI_Allgatherv, MPI_Iallgatherv, inplace ? MPI_IN_PLACE : s, inplace ? 0 : counts[rank],
         inplace ? MPI_DATATYPE_NULL : t, r, counts, displs, t, MPI_COMM_WORLD);
    if (checking(c))
      for (int q = 0; q < P; q++)
        if (counts[q]) check(got(c, r, displs[q]) == sent(q, 0, 9), "allgatherv", c->name, n);
    /* alltoallv: n or n - 1 elements between two ranks (the same both ways, as in place requires), at
     * reversed displacements */
    int *sc = ints(P), *rc = sc, *rcnt = sc;
    for (int q = 0; q < P; q++) sc[q] = (q + rank) % 2 ? n - 1 : n;
    s = buffer(c, total, 0, 10);
    r = buffer(c, total, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, total));
    COLL(MPI_Alltoallv, MPI_Ialltoallv, inplace ? MPI_IN_PLACE : s, sc, displs, t, r, rcnt, displs, t,
         MPI_COMM_WORLD);
    if (checking(c) && !inplace)
      for (int q = 0; q < P; q++)
        if (rc[q]) check(got(c, r, displs[q]) == sent(q, displs[rank], 10), "alltoallv", c->name, n);
    /* alltoallw: the same, displacements in bytes, a datatype per peer */
    int *bd = ints(P);
    MPI_Datatype *types = args_of((size_t)P * sizeof *types);
    for (int q = 0; q < P; q++) bd[q] = (int)((MPI_Aint)displs[q] * c->extent), types[q] = t;
    s = buffer(c, total, 0, 11);
    r = buffer(c, total, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, total));
    COLL(MPI_Alltoallw, MPI_Ialltoallw, inplace ? MPI_IN_PLACE : s, sc, bd, types, r, rcnt, bd, types, MPI_COMM_WORLD);
    if (checking(c) && !inplace)
      for (int q = 0; q < P; q++)
        if (rc[q]) check(got(c, r, displs[q]) == sent(q, displs[rank], 11), "alltoallw", c->name, n);
  }
  if (!c->basic) return;
  /* reductions over the basic types; again in place */
  for (int inplace = 0; inplace < 1 + c->inplace; inplace++) {
    void *s = buffer(c, n, 0, 12), *r = buffer(c, n, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, n));
    COLL(MPI_Allreduce, MPI_Iallreduce, inplace ? MPI_IN_PLACE : s, r, n, t, MPI_SUM, MPI_COMM_WORLD);
    if (checking(c)) {
      double want = 0;
      for (int q = 0; q < P; q++) want += sent(q, 0, 12);
      check(got(c, r, 0) == want, "allreduce", c->name, n);
    }
    int *counts = ints(P), total = 0;
    for (int q = 0; q < P; q++) counts[q] = q % 2 ? n - 1 : n, total += counts[q];
    s = buffer(c, total, 0, 13);
    r = buffer(c, inplace ? total : counts[rank], 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, total));
    COLL(MPI_Reduce_scatter, MPI_Ireduce_scatter, inplace ? MPI_IN_PLACE : s, r, counts, t, MPI_SUM, MPI_COMM_WORLD);
    if (inplace) undefined(r, (size_t)counts[rank] * (size_t)c->extent, bytes_of(c, total) - (size_t)counts[rank] * (size_t)c->extent);
    s = buffer(c, (int64_t)n * P, 0, 14);
    r = buffer(c, inplace ? (int64_t)n * P : n, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, (int64_t)n * P));
    COLL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, inplace ? MPI_IN_PLACE : s, r, n, t, MPI_SUM,
         MPI_COMM_WORLD);
    if (inplace) undefined(r, (size_t)n * (size_t)c->extent, bytes_of(c, (int64_t)n * P) - (size_t)n * (size_t)c->extent);
    if (checking(c)) {
      double want = 0;
      for (int q = 0; q < P; q++) want += sent(q, (int64_t)rank * n, 14);
      check(got(c, r, 0) == want, "reduce_scatter_block", c->name, n);
    }
    s = buffer(c, n, 0, 15);
    r = buffer(c, n, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, n));
    COLL(MPI_Scan, MPI_Iscan, inplace ? MPI_IN_PLACE : s, r, n, t, MPI_SUM, MPI_COMM_WORLD);
    s = buffer(c, n, 0, 16);
    r = buffer(c, n, 1, 0);
    if (inplace) memcpy(r, s, bytes_of(c, n));
    COLL(MPI_Exscan, MPI_Iexscan, inplace ? MPI_IN_PLACE : s, r, n, t, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) undefined(r, 0, bytes_of(c, n));
  }
  if (mode == BLOCKING) {
    void *s = buffer(c, n, 0, 17), *r = buffer(c, n, 0, 18);
    WL(MPI_Reduce_local, s, r, n, t, MPI_SUM);
  }
}

/* neighbourhood collectives on the Cartesian communicator (4 neighbours) */
static void neighbours(const ecase *c) {
  const int K = 4, n = c->n;
  MPI_Datatype t = c->t;
  void *s = buffer(c, n, 0, 19), *r = buffer(c, (int64_t)n * K, 1, 0);
  COLL(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, s, n, t, r, n, t, cart);
  int *counts, *displs, total;
  vlayout(K, n, &counts, &displs, &total);
  s = buffer(c, n - 1, 0, 20);
  r = buffer(c, total, 1, 0);
  int *one = ints(K); /* every neighbour sends n - 1 */
  for (int k = 0; k < K; k++) one[k] = n - 1;
  COLL(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, s, n - 1, t, r, one, displs, t, cart);
  s = buffer(c, (int64_t)n * K, 0, 21);
  r = buffer(c, (int64_t)n * K, 1, 0);
  COLL(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, s, n, t, r, n, t, cart);
  s = buffer(c, total, 0, 22);
  r = buffer(c, total, 1, 0);
  COLL(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, s, one, displs, t, r, one, displs, t, cart);
  MPI_Aint *bd = args_of((size_t)K * sizeof *bd);
  MPI_Datatype *types = args_of((size_t)K * sizeof *types);
  for (int k = 0; k < K; k++) bd[k] = (MPI_Aint)displs[k] * c->extent, types[k] = t;
  s = buffer(c, total, 0, 23);
  r = buffer(c, total, 1, 0);
  COLL(MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, s, one, bd, types, r, one, bd, types, cart);
}

static void one_round(const ecase *c, int root) {
  nreqs = 0;
  COLL(MPI_Barrier, MPI_Ibarrier, MPI_COMM_WORLD);
  rooted(c, root);
  unrooted(c);
  if (!smpi_subset) neighbours(c);
  if (mode == PENDING) WL(MPI_Waitall, nreqs, reqs, MPI_STATUSES_IGNORE);
  round_end();
}

static void make_case(ecase *c, const char *name, MPI_Datatype t, int basic, int n, int inplace) {
  MPI_Aint lb, tlb, text;
  c->name = name;
  c->t = t;
  c->basic = basic;
  c->n = n;
  c->inplace = inplace;
  WL(MPI_Type_get_extent, t, &lb, &c->extent);
  WL(MPI_Type_get_true_extent, t, &tlb, &text);
  c->true_ub = tlb + text;
}

int main(int argc, char **argv) {
  wl_args args;
  wl_start(&argc, &argv, 1, 65536, &args, &rank, &nprocs);
  smpi_subset = args.smpi_subset;
  if (rank == 0)
    printf("collectives: %d ranks, %d iterations, up to %d elements per peer%s\n", nprocs, args.iters, args.size,
           smpi_subset ? ", no neighbourhood collectives" : "");

  int dims[2] = {0, 0}, periods[2] = {1, 0};
  WL(MPI_Dims_create, nprocs, 2, dims);
  WL(MPI_Cart_create, MPI_COMM_WORLD, 2, dims, periods, 0, &cart);

  MPI_Datatype contig, vector, column, resized;
  /* the resized columns: n = 64 per peer, v layouts take up to (n + 1) x max(P, 4) of them */
  const int R = 4, ncol = 64, stride = (ncol + 1) * (nprocs > 4 ? nprocs : 4);
  WL(MPI_Type_contiguous, 3, MPI_INT, &contig);
  WL(MPI_Type_commit, &contig);
  WL(MPI_Type_vector, 2, 1, 3, MPI_DOUBLE, &vector);
  WL(MPI_Type_commit, &vector);
  /* a column of an R x stride int matrix: elements one int apart, each spanning R rows */
  WL(MPI_Type_vector, R, 1, stride, MPI_INT, &column);
  WL(MPI_Type_create_resized, column, 0, (MPI_Aint)sizeof(int), &resized);
  WL(MPI_Type_free, &column);
  WL(MPI_Type_commit, &resized);

  ecase cases[6];
  int ncases = 0;
  make_case(&cases[ncases++], "double", MPI_DOUBLE, 1, 1, 0);
  make_case(&cases[ncases++], "double", MPI_DOUBLE, 1, 200, 1);
  make_case(&cases[ncases++], "int", MPI_INT, 2, args.size, 0);
  make_case(&cases[ncases++], "contig", contig, 0, 1000, 0);
  make_case(&cases[ncases++], "vector", vector, 0, 500, 0);
  make_case(&cases[ncases++], "resized", resized, 0, ncol, 0);

  /* every case blocking, then nonblocking: the smaller ones all pending together, the larger ones each
   * waited for at once (their buffers would not all fit) */
  for (int it = 0; it < args.iters; it++)
    for (int k = 0; k < ncases; k++)
      for (int nb = 0; nb < 2; nb++) {
        mode = !nb ? BLOCKING : cases[k].n <= 1000 ? PENDING : WAITED;
        one_round(&cases[k], (k + it + nb) % nprocs);
      }

  WL(MPI_Type_free, &contig);
  WL(MPI_Type_free, &vector);
  WL(MPI_Type_free, &resized);
  WL(MPI_Comm_free, &cart);

  long total = 0;
  double sum = 0;
  WL(MPI_Reduce, &errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  WL(MPI_Reduce, &checksum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("errors: %ld\n", total);
    printf("checksum: %.6e\n", sum + (double)total);
    fflush(stdout);
  }
  int rc = wl_finalize(&args, rank);
  return total ? 1 : rc;
}
