/* payload.h — the payload buffers the replayed calls send from and
 * receive into, as large as each call's layout (payload.c). Uses
 * fields.h, handles.h (datatype extents, communicator sizes) and scratch.h.
 *
 * Each buffer argument of a call has a layout in gen/mpi.table
 * ({layout=...}: one block of count elements, N blocks over the
 * communicator or the neighbours, blocks at displacements, ...); the
 * generated call (emit_replay.py) computes its span from the event's
 * fields with the rp_span_* functions below, merges the spans of the two
 * buffers when one is MPI_IN_PLACE, and takes a buffer that holds it. */
#ifndef TF_REPLAY_PAYLOAD_H
#define TF_REPLAY_PAYLOAD_H

#include "engine.h"

/* The bytes [lo, hi) a buffer argument touches, from the pointer the call
 * gets; lo > hi: none. */
typedef struct rp_span {
  int64_t lo, hi;
} rp_span;
#define RP_SPAN_NONE ((rp_span){INT64_MAX, INT64_MIN})

/* Spans from the event's fields (field indices; a count or datatype
 * recorded as "-" spans nothing):
 *   block   count x times elements of dtype (times: 1, or blocks over the
 *           communicator or the neighbours)
 *   displs  counts[i] elements at displs[i] extents of dtype, or, when the
 *           dtype field is an array (w forms), of dtype[i] at displs[i] bytes
 *   sum     counts[0] + ... elements of dtype
 *   mine    counts[rank in comm] elements of dtype
 *   bytes   n bytes (n: a scalar field) */
rp_span rp_span_block(rp_thread *T, int count, int dtype, int64_t times);
rp_span rp_span_displs(rp_thread *T, int counts, int displs, int dtype);
rp_span rp_span_sum(rp_thread *T, int counts, int dtype);
rp_span rp_span_mine(rp_thread *T, int counts, int dtype, MPI_Comm comm);
rp_span rp_span_bytes(rp_thread *T, int n);
rp_span rp_span_one(rp_thread *T, int dtype); /* one element of dtype */
rp_span rp_span_union(rp_span a, rp_span b);

/* The send and receive payload buffers of the thread, holding span s
 * (contents arbitrary): the pointer to pass to the call. A buffer that
 * grows is replaced, the old one kept until the end (a pending nonblocking
 * call may still use it). */
void *rp_sbuf(rp_thread *T, rp_span s);
void *rp_rbuf(rp_thread *T, rp_span s);
void rp_buffers_free(rp_thread *T);
/* Memory a window exposes (MPI_Win_create, MPI_Win_attach), spanning s:
 * zeroed, of its own (free() it when the window or region goes). */
void *rp_win_mem(rp_thread *T, rp_span s);

#endif
