/* comms.h — which MPI_COMM_WORLD ranks each communicator of a trace holds,
 * and in which order: what an exporter needs to turn a peer (recorded as an
 * offset from the caller in the call's communicator) into a world rank, and
 * what OTF2 needs to define communicators.
 *
 * The trace names a communicator by an id that is the same on all its
 * members, and all the communicators one constructor call makes share it
 * (the rows of one MPI_Comm_split: doc/RECORDED.md "Communicator ids").
 * One *instance* here is one actual communicator: an id and its members.
 * Members are reconstructed from the constructor calls every rank recorded,
 * as MPI defines them:
 *   MPI_COMM_WORLD, MPI_COMM_SELF      all ranks; the caller
 *   MPI_Comm_dup(_with_info)           the parent's members, same order
 *   MPI_Comm_split                     the parent's members with the caller's
 *                                      color, by (key, rank in the parent)
 *   MPI_Cart_create                    the parent's first prod(dims) members
 *                                      (with reorder = 1 MPI may renumber
 *                                      them: the instance is then not exact)
 *   MPI_Cart_sub                       the members that share the caller's
 *                                      coordinates in the dropped dimensions
 * Any other constructor (MPI_Comm_create, _split_type, graphs,
 * intercommunicators): the ranks whose trace holds the id, in world order,
 * marked not exact. One pass over every rank's events, skipped when the
 * trace's loop structure holds no constructor call.
 */
#ifndef TF_EXPORT_COMMS_H
#define TF_EXPORT_COMMS_H

#include <stddef.h>
#include <stdint.h>

#include "tracefold.h"

typedef struct xp_comm {
  int64_t id;         /* the trace's id (1 world, 2 self, >= 16 made by a call) */
  uint32_t n;         /* members */
  int32_t *members;   /* world ranks, in the communicator's rank order */
  int32_t parent;     /* the instance it was made from; -1 for world and self */
  const char *made_by; /* "MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_Comm_split", ... */
  int exact;          /* 0: members inferred (see above) */
  uint32_t ndims;     /* Cartesian: its dimensions */
  int64_t dims[16];
} xp_comm;

typedef struct xp_comms {
  xp_comm *v;
  size_t n, cap;
  int32_t nranks;
  struct xp_comm_ref *refs; /* per rank: (id -> instance, own index) */
  uint32_t inexact;   /* instances that are not exact */
} xp_comms;

/* Reconstruct the communicators of trace t: TF_OK, or an error with why in
 * err (the trace turned out malformed, memory ran short). Instance 0 is
 * MPI_COMM_WORLD, instances 1..nranks MPI_COMM_SELF of rank 0..nranks-1. */
tf_status xp_comms_build(xp_comms *c, tf_trace *t, char *err, size_t errlen);
void xp_comms_free(xp_comms *c);
/* Rank's instance of communicator id (and the rank's index in it, if idx is
 * not NULL): its index in c->v, or -1 when unknown (a null handle, a
 * communicator the trace did not see made). */
int32_t xp_comms_of(const xp_comms *c, int32_t rank, int64_t id, uint32_t *idx);
/* The world rank of the peer `off` (recorded offset) of rank in communicator
 * id: >= 0, or -1 when the communicator is unknown or the offset falls
 * outside it (special values: MPI_PROC_NULL, MPI_ANY_SOURCE, ...). */
int32_t xp_comms_peer(const xp_comms *c, int32_t rank, int64_t id, int64_t off);

#endif
