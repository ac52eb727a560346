/* values.c — MPI arguments and outcomes as trace values (values.h).
 *
 * Ranks are recorded as offsets from the caller's rank in the communicator
 * (so that "my right neighbour" is the same value on every rank), roots
 * absolutely; MPI's special ranks, tags and MPI_UNDEFINED become the TF_*
 * specials of tracefold.h. A status becomes three values (matched source
 * as an offset, tag, bytes), "-" (TF_NONE) when the request was not a
 * receive or did not complete.
 */
#include <string.h>

#include "values.h"

/* ------------------------------------------------- ranks, tags, topologies */

int64_t tf_peer(const tf_comm_info *ci, int rank) {
  if (rank == MPI_ANY_SOURCE) return TF_ANY_SOURCE;
  if (rank == MPI_PROC_NULL) return TF_PROC_NULL;
  if (rank == MPI_ROOT) return TF_ROOT;
  return (int64_t)rank - ci->rank;
}

int64_t tf_root_val(int root) {
  if (root == MPI_ROOT) return TF_ROOT;
  if (root == MPI_PROC_NULL) return TF_PROC_NULL;
  return root;
}

int64_t tf_tag_val(int tag) { return tag == MPI_ANY_TAG ? TF_ANY_TAG : tag; }
int64_t tf_int_val(int v) { return v == MPI_UNDEFINED ? TF_UNDEFINED : v; }

/* One-sided assertions and lock types: portable values (tracefold.h), since
 * MPI libraries number them differently. Bits MPI does not define are kept,
 * shifted above the portable ones, so that nothing is lost. */
int64_t tf_assert_val(int assert_bits) {
  static const struct { int mpi; int64_t tf; } modes[] = {
      {MPI_MODE_NOCHECK, TF_MODE_NOCHECK},     {MPI_MODE_NOSTORE, TF_MODE_NOSTORE},
      {MPI_MODE_NOPUT, TF_MODE_NOPUT},         {MPI_MODE_NOPRECEDE, TF_MODE_NOPRECEDE},
      {MPI_MODE_NOSUCCEED, TF_MODE_NOSUCCEED}};
  int64_t v = 0;
  unsigned rest = (unsigned)assert_bits;
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
    if (rest & (unsigned)modes[i].mpi) {
      v |= modes[i].tf;
      rest &= ~(unsigned)modes[i].mpi;
    }
  return v | ((int64_t)rest << 5);
}

int64_t tf_lock_type_val(int lock_type) {
  if (lock_type == MPI_LOCK_EXCLUSIVE) return TF_LOCK_EXCLUSIVE;
  if (lock_type == MPI_LOCK_SHARED) return TF_LOCK_SHARED;
  return tf_int_val(lock_type) == TF_UNDEFINED ? TF_UNDEFINED : (int64_t)lock_type + 1000;
}
int tf_is_root(const tf_comm_info *ci, int root) { return ci->is_inter ? root == MPI_ROOT : root == ci->rank; }
int tf_coll_size(const tf_comm_info *ci) { return ci->is_inter ? ci->remote_size : ci->size; }

tf_degrees tf_neighbor_degrees(MPI_Comm comm) {
  tf_degrees d = {0, 0};
  int topo = MPI_UNDEFINED;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return d;
  if (topo == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    d.in = d.out = 2 * ndims;
  } else if (topo == MPI_GRAPH) {
    int rank = 0, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &n);
    d.in = d.out = n;
  } else if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &d.in, &d.out, &weighted);
  }
  return d;
}

int tf_cartdim(MPI_Comm comm) {
  int topo = MPI_UNDEFINED, ndims = 0;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo != MPI_CART) return 0;
  PMPI_Cartdim_get(comm, &ndims);
  return ndims;
}

int64_t tf_sum_ints(const int *v, int n) {
  int64_t s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  return s;
}

int64_t tf_bytes_w(const int *counts, const MPI_Datatype *types, int n) {
  int64_t s = 0;
  for (int i = 0; i < n; i++) {
    int64_t size = tf_dtype_get(types[i]).size;
    if (size < 0) return TF_UNDEFINED;
    s += (int64_t)counts[i] * size;
  }
  return s;
}

/* ------------------------------------------------------ requests, statuses */

void tf_put_req_ids(tf_call *c, const tf_req_snap *snaps, int n) {
  if (!snaps) n = 0;
  tf_put_len(c, n);
  for (int i = 0; i < n; i++) tf_put(c, snaps[i].id);
}

void tf_put_status(tf_call *c, const tf_comm_info *ci, const MPI_Status *st, int completed) {
  if (!completed || !st || st == MPI_STATUS_IGNORE) {
    tf_put(c, TF_NONE);
    tf_put(c, TF_NONE);
    tf_put(c, TF_NONE);
    return;
  }
  int n = 0;
  PMPI_Get_count(st, MPI_BYTE, &n);
  tf_put(c, tf_peer(ci, st->MPI_SOURCE));
  tf_put(c, tf_tag_val(st->MPI_TAG));
  tf_put(c, n == MPI_UNDEFINED ? TF_UNDEFINED : n);
}

void tf_put_req_status(tf_call *c, const tf_req_snap *s, const MPI_Status *st, int completed) {
  tf_put_status(c, s ? &s->ci : NULL, st, completed && s && s->kind == TF_REQ_RECV);
}

/* three arrays (src, tag, bytes) over the completed requests listed by idx */
static void put_status_arrays(tf_call *c, const tf_req_snap *snaps, int n, const int *idx, const MPI_Status *sts) {
  int64_t *v = n >= 0 && n < (1 << 28) ? tf_put_room(c, 3 * ((uint32_t)n + 1)) : NULL;
  if (!v) {
    tf_call_oom(c);
    return;
  }
  int64_t *src = v + 1, *tag = src + n + 1, *bytes = tag + n + 1; /* each array after its length */
  v[0] = src[n] = tag[n] = n;
  for (int k = 0; k < n; k++) {
    const tf_req_snap *s = &snaps[idx ? idx[k] : k];
    const MPI_Status *st = &sts[k];
    if (s->kind != TF_REQ_RECV) {
      src[k] = tag[k] = bytes[k] = TF_NONE;
      continue;
    }
    int cnt = 0;
    PMPI_Get_count(st, MPI_BYTE, &cnt);
    src[k] = tf_peer(&s->ci, st->MPI_SOURCE);
    tag[k] = tf_tag_val(st->MPI_TAG);
    bytes[k] = cnt == MPI_UNDEFINED ? TF_UNDEFINED : cnt;
  }
}

void tf_put_req_statuses(tf_call *c, const tf_req_snap *snaps, int n, const MPI_Status *sts, int completed) {
  if (!completed || !snaps || !sts || sts == MPI_STATUSES_IGNORE) n = 0;
  put_status_arrays(c, snaps, n, NULL, sts);
}

void tf_put_some_statuses(tf_call *c, const tf_req_snap *snaps, int outcount, const int *indices,
                          const MPI_Status *sts) {
  int n = outcount == MPI_UNDEFINED || !snaps ? 0 : outcount;
  tf_put_len(c, n);
  for (int k = 0; k < n; k++) tf_put(c, indices[k]);
  if (!sts || sts == MPI_STATUSES_IGNORE) n = 0;
  /* MPI_Waitsome fills statuses[k] for indices[k] */
  put_status_arrays(c, snaps, n, indices, sts);
}

/* ------------------------------------------------------------------ MPI-IO */

void tf_put_string(tf_call *c, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n > 4096) n = 4096; /* a path is shorter; the trace holds at most this much of it */
  tf_put_len(c, (int)n);
  for (size_t i = 0; i < n; i++) tf_put(c, (unsigned char)s[i]);
}

void tf_put_io_status(tf_call *c, const MPI_Status *st, int completed) {
  int cnt = 0;
  if (!completed || !st || PMPI_Get_count(st, MPI_BYTE, &cnt) != MPI_SUCCESS) {
    tf_put(c, TF_NONE);
    return;
  }
  tf_put(c, cnt == MPI_UNDEFINED ? TF_UNDEFINED : cnt);
}
