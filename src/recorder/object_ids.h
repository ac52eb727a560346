/* object_ids.h — symbolic ids for MPI objects (communicators, requests,
 * datatypes, ops, groups, matched messages): traces never hold MPI handle
 * values. How each kind of id is chosen is described in object_ids.c.
 *
 * Every function takes the tables' lock around its table (tf_lock_tables:
 * a mutex under MPI_THREAD_MULTIPLE only); none calls an
 * MPI routine that could fail on user data, and none aborts (out of memory
 * stops the recorder with a warning, tf_recorder_fail).
 */
#ifndef TF_RECORDER_OBJECT_IDS_H
#define TF_RECORDER_OBJECT_IDS_H

#include <mpi.h>
#include <stdint.h>

#include "runtime.h"

/* setup / teardown of the object tables (MPI_Init / after MPI_Finalize);
 * tf_object_ids_init: 0, or -1 out of memory */
int tf_object_ids_init(void);
void tf_object_ids_free(void);

/* ---- communicators ---- */
typedef struct tf_comm_info {
  int64_t id;
  int rank, size, remote_size, is_inter;
} tf_comm_info;

/* MPI_COMM_WORLD's, answered inline (set at setup, then only read: no lock) */
extern tf_comm_info tf_comm_world;
tf_comm_info tf_comm_lookup(MPI_Comm comm);
static inline tf_comm_info tf_comm_get(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? tf_comm_world : tf_comm_lookup(comm);
}
enum { TF_NEWCOMM_PARENT, TF_NEWCOMM_GROUP, TF_NEWCOMM_INTER };
int64_t tf_comm_new(const tf_comm_info *parent, MPI_Comm newcomm, int how, int tag);
void tf_comm_forget(MPI_Comm comm);

/* ---- datatypes: id and size in bytes (TF_UNDEFINED when MPI_Type_size gives MPI_UNDEFINED) ---- */
typedef struct tf_dtype_ref {
  int64_t id, size;
} tf_dtype_ref;
tf_dtype_ref tf_dtype_get(MPI_Datatype t);
tf_dtype_ref tf_dtype_none(void);
tf_dtype_ref tf_dtype_new(MPI_Datatype t);
void tf_dtype_forget(MPI_Datatype t);

/* ---- ops, groups ---- */
int64_t tf_op_get(MPI_Op op);
int64_t tf_op_new(MPI_Op op);
void tf_op_forget(MPI_Op op);
int64_t tf_group_get(MPI_Group g);
int64_t tf_group_new(MPI_Group g);
void tf_group_forget(MPI_Group g);

/* ---- matched messages ---- */
typedef struct tf_msg_snap {
  int64_t id;
  tf_comm_info ci;
} tf_msg_snap;
int64_t tf_msg_new(MPI_Message m, const tf_comm_info *ci);
tf_msg_snap tf_msg_take(MPI_Message m); /* the message is consumed */

/* ---- MPI-IO files: id = hash(communicator id, n) where n counts the files
 * opened over that communicator (MPI_File_open is collective: every member
 * opens in the same order, so all agree without communication). The
 * reference keeps the communicator's info: the file's nonblocking requests
 * belong to it. ---- */
typedef struct tf_file_ref {
  int64_t id;
  tf_comm_info ci;
} tf_file_ref;
tf_file_ref tf_file_get(MPI_File fh);
int64_t tf_file_new(const tf_comm_info *comm, MPI_File fh);
void tf_file_forget(MPI_File fh);

/* ---- requests ---- */
enum { TF_REQ_SEND = 1, TF_REQ_RECV = 2, TF_REQ_COLL = 3 };
typedef struct tf_req_snap {
  MPI_Request handle;
  int64_t id;    /* TF_NULL_HANDLE for MPI_REQUEST_NULL or unknown */
  int kind, persistent;
  tf_comm_info ci;
  int forgotten; /* tf_req_forget removed its record: tf_req_settled has nothing to do */
} tf_req_snap;
/* A new request's id. Its record stays claimed by the calling call until
 * tf_req_published, after the call's event is in the trace (tf_call_end). */
int64_t tf_req_new(MPI_Request r, int kind, int persistent, const tf_comm_info *ci);
void tf_req_published(MPI_Request r, int64_t id);
/* The request's snapshot: of the oldest live request with handle r that
 * no call in progress has claimed. completing: taken by a call that
 * completes or frees requests (Wait, Test, ..., Request_free) before it
 * calls MPI; it claims the record, because once MPI has completed it the
 * handle value can be given to another thread's new request before this
 * call forgets the old one, and other threads may complete requests that
 * share the handle value meanwhile: the calls of others then take other
 * records. tf_req_settled releases the claim after the call. */
tf_req_snap tf_req_get(MPI_Request r, int completing);
/* Snapshots of n requests in the call's scratch, valid until the call ends
 * and the thread's next call at its depth begins (the wrapper releases them
 * with tf_req_settled right after tf_call_end);
 * NULL for n <= 0, and on allocation failure (the call is then dropped,
 * tf_call_oom). */
tf_req_snap *tf_req_get_all(tf_call *c, const MPI_Request *rs, int n, int completing);
/* After the MPI call: the request is forgotten (nonpersistent) or freed.
 * Only the record with the snapshot's id goes: if the handle value has been
 * given to another request meanwhile, that one's record stays. */
void tf_req_completed(tf_req_snap *s);
void tf_req_forget(tf_req_snap *s);
/* After a completion call has recorded its event (tf_call_end), for each
 * snapshot it took: a request it did not complete is no longer claimed
 * (nothing if it was forgotten). Not before: a call of another thread that
 * took the request in between would name it in an event recorded before
 * this one, which still names it (a test that did not complete it), as if
 * after its completion. */
void tf_req_settled(const tf_req_snap *s);

/* ---- windows (one-sided communication) ----
 * A window's info is its id and the caller's rank and size in its group
 * (peers of one-sided calls are relative to it). tf_win_new: the id of a
 * window made over comm (parent), identical on all its members. Regions of
 * a dynamic window are numbered 1, 2, ... per window in attach order;
 * tf_win_region: the number of the region at base (TF_NULL_HANDLE if
 * unknown), which MPI_Win_detach records instead of the address. */
tf_comm_info tf_win_get(MPI_Win win);
int64_t tf_win_new(const tf_comm_info *parent, MPI_Win win);
void tf_win_forget(MPI_Win win);
void tf_win_attach(MPI_Win win, const void *base);
int64_t tf_win_region(MPI_Win win, const void *base);
void tf_win_detach(MPI_Win win, const void *base);

#endif
