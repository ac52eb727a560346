/* fields.h — the replayed event's fields (fields.c): its values split into
 * its function's fields (tf_event_fields), what the engine needs to know
 * of each function's fields, and the fields as MPI arguments. Uses
 * scratch.h. */
#ifndef TF_REPLAY_FIELDS_H
#define TF_REPLAY_FIELDS_H

#include "engine.h"

/* What the engine needs to know of each function's fields, found once. */
enum { RP_ROLE_NONE, RP_ROLE_BYTES };
typedef struct rp_fninfo {
  uint8_t role[RP_MAXFIELDS];     /* the payload bytes fields (RP_ROLE_BYTES) */
  int8_t flag, index, indices;    /* outcome fields (-1: none) */
  int8_t request, requests;       /* the request(s) a call uses */
  int8_t status_src, statuses_src;
  int8_t comm, source, tag;       /* probes */
  uint8_t persistent;             /* creates a persistent request (MPI_*_init) */
  uint8_t frees;                  /* frees an object (MPI_*_free) */
} rp_fninfo;
extern rp_fninfo rp_info[TF_FN_COUNT];
void rp_fninfo_init(void);
/* Lay the event's values out by its function's field list: 0 or -1 (the
 * values do not fit; T->error says why). */
int rp_fields(rp_thread *T);
/* The same for any event of function fn into fields (room for RP_MAXFIELDS): 0 or -1. */
int rp_layout(uint32_t fn, const tf_event *ev, tf_field_value *fields);
int rp_field_index(uint32_t fn, const char *name); /* -1: no such field */
int rp_int(const rp_thread *T, int i);          /* scalar field: TF_NONE -> 0, TF_UNDEFINED -> MPI_UNDEFINED */
int64_t rp_int64(const rp_thread *T, int i);    /* the same, 64-bit */
int rp_tag(const rp_thread *T, int i);          /* TF_ANY_TAG -> MPI_ANY_TAG */
int rp_root(const rp_thread *T, int i);         /* TF_ROOT -> MPI_ROOT, TF_PROC_NULL -> MPI_PROC_NULL */
int rp_max_int(const rp_thread *T);             /* the largest scalar int of the event (room for skipped outputs) */
int *rp_ints(rp_thread *T, int i);              /* array field as int[] (scratch, modifiable) */
MPI_Aint *rp_aints(rp_thread *T, int i);
int *rp_ints_kept(rp_thread *T, int i);         /* the same, kept until the request the call makes completes */
MPI_Aint *rp_aints_kept(rp_thread *T, int i);
int *rp_scratch_ints(rp_thread *T, int n);      /* n zeroed ints */
int rp_assert(const rp_thread *T, int i);       /* TF_MODE_* bits -> MPI_MODE_* bits */
int rp_lock_type(const rp_thread *T, int i);    /* TF_LOCK_* -> MPI_LOCK_* */
/* The event's payload bytes: its bytes fields summed. */
uint64_t rp_event_bytes(const rp_thread *T);
/* The event involves no other rank and takes no simulated time: its
 * function has no communicator (MPI_Type_*, MPI_Dims_create, ...) or its
 * every peer is MPI_PROC_NULL. MPI-IO calls (a file or a file name among
 * their fields) are not local: they take time. */
int rp_event_local(const rp_thread *T);

#endif
