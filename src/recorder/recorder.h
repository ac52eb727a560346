/* recorder.h — internal interface between the generated MPI wrappers
 * (tf_wrappers.c, tf_fortran.c) and the recorder runtime.
 *
 * A wrapper records one event as: tf_call_begin(); tf_put() each parameter
 * value in schema order (pre-call values); tf_call_clock_start();
 * PMPI_X(); tf_call_clock_stop(); tf_put() outcomes; tf_call_end(). Values
 * accumulate in a per-thread buffer; tf_call_end() timestamps and hands the
 * event to the sink. Object ids (communicators, requests, datatypes, ops,
 * groups, messages) come from handles.c; none of these functions ever calls
 * an MPI routine that could fail on user data, and none aborts.
 */
#ifndef TF_RECORDER_H
#define TF_RECORDER_H

#include <mpi.h>
#include <stdint.h>

#include "tracefold.h"

/* ---- clock ---- */
uint64_t tf_now_ns(void);

/* ---- lifecycle (recorder.c) ---- */
void tf_recorder_start(int init_rc);   /* after PMPI_Init[_thread] */
void tf_recorder_before_finalize(void); /* before PMPI_Finalize: last MPI use */
void tf_recorder_stop(void);           /* after PMPI_Finalize: close output */
void tf_recorder_abort(void);          /* MPI_Abort: flush what we have */

/* ---- merge at MPI_Finalize (rank_merge.c) ----
 * Collective over comm: merge every rank's per-rank compressed file bytes
 * (mine) into one merged trace that rank 0 writes to out_path. 0 on every
 * rank if the file was written, else -1 on every rank (err says why where
 * it went wrong). Rank 0 gets the merge time in *merge_ns. */
int tf_merge_ranks(MPI_Comm comm, int rank, int nranks, const uint8_t *mine, size_t len, const char *out_path,
                   uint64_t *merge_ns, char *err, size_t errlen);

/* Warn once on stderr (per process) and stop recording; the application goes on. */
void tf_recorder_fail(const char *what);

/* ---- one call ---- */
typedef struct tf_thread tf_thread;
typedef struct tf_call {
  uint32_t fn;
  void *ra;      /* return address into the caller: the call site */
  uint64_t te;     /* when the wrapper was entered: the end of the compute delta */
  uint64_t t0, t1;
  uint64_t v0, v1; /* time-independent mode: the thread's volume counter at t0 and t1 */
  tf_thread *th;
} tf_call;

int tf_call_begin(tf_call *c, uint32_t fn, void *ra); /* 0: do not record */
void tf_call_clock_start(tf_call *c);
void tf_call_clock_stop(tf_call *c);
void tf_call_end(tf_call *c);
/* After MPI_Init's event: the next compute delta starts now, so that the
 * recorder's own start-up (after PMPI_Init returned) is not charged to the
 * application. */
void tf_call_clock_resume(void);
void tf_put(tf_call *c, int64_t v);
static inline void tf_put_len(tf_call *c, int n) { tf_put(c, n); }

/* Per-thread scratch, valid until the call ends. NULL on allocation failure
 * (the event is then dropped and the recorder stops with a warning). */
MPI_Status *tf_statuses_scratch(tf_call *c, int n);

/* ---- value mapping (handles.c) ---- */
typedef struct tf_comm_info {
  int64_t id;
  int rank, size, remote_size, is_inter;
} tf_comm_info;

tf_comm_info tf_comm_get(MPI_Comm comm);
int64_t tf_peer(const tf_comm_info *ci, int rank);  /* offset or special */
int64_t tf_root_val(int root);
int64_t tf_tag_val(int tag);
int64_t tf_int_val(int v);                          /* MPI_UNDEFINED -> TF_UNDEFINED */
int tf_is_root(const tf_comm_info *ci, int root);
int tf_coll_size(const tf_comm_info *ci);

typedef struct tf_degrees {
  int in, out;
} tf_degrees;
tf_degrees tf_neighbor_degrees(MPI_Comm comm);
int64_t tf_sum_ints(const int *v, int n);
int tf_cartdim(MPI_Comm comm); /* dimensions of comm's Cartesian topology (0: none) */
/* payload bytes of count elements of a datatype of `size` bytes; UNDEFINED
 * when the datatype's size is (MPI_Type_size gave MPI_UNDEFINED) */
static inline int64_t tf_bytes(int64_t count, int64_t size) { return size < 0 ? TF_UNDEFINED : count * size; }
int64_t tf_bytes_w(const int *counts, const MPI_Datatype *types, int n);

enum { TF_NEWCOMM_PARENT, TF_NEWCOMM_GROUP, TF_NEWCOMM_INTER };
int64_t tf_comm_new(const tf_comm_info *parent, MPI_Comm newcomm, int how, int tag);
void tf_comm_forget(MPI_Comm comm);

typedef struct tf_dtype_ref {
  int64_t id, size;
} tf_dtype_ref;
tf_dtype_ref tf_dtype_get(MPI_Datatype t);
tf_dtype_ref tf_dtype_none(void);
tf_dtype_ref tf_dtype_new(MPI_Datatype t);
void tf_dtype_forget(MPI_Datatype t);

int64_t tf_op_get(MPI_Op op);
int64_t tf_op_new(MPI_Op op);
void tf_op_forget(MPI_Op op);
int64_t tf_group_get(MPI_Group g);
int64_t tf_group_new(MPI_Group g);
void tf_group_forget(MPI_Group g);

typedef struct tf_msg_snap {
  int64_t id;
  tf_comm_info ci;
} tf_msg_snap;
int64_t tf_msg_new(MPI_Message m, const tf_comm_info *ci);
tf_msg_snap tf_msg_take(MPI_Message m); /* the message is consumed */

enum { TF_REQ_SEND = 1, TF_REQ_RECV = 2, TF_REQ_COLL = 3 };
typedef struct tf_req_snap {
  MPI_Request handle;
  int64_t id;    /* TF_NULL_HANDLE for MPI_REQUEST_NULL or unknown */
  int kind, persistent;
  tf_comm_info ci;
} tf_req_snap;
int64_t tf_req_new(MPI_Request r, int kind, int persistent, const tf_comm_info *ci);
tf_req_snap tf_req_get(MPI_Request r);
tf_req_snap *tf_req_get_all(tf_call *c, const MPI_Request *rs, int n);
void tf_put_req_ids(tf_call *c, const tf_req_snap *snaps, int n);
void tf_req_completed(const tf_req_snap *s); /* nonpersistent: forget */
void tf_req_forget(const tf_req_snap *s);

/* statuses: matched source (offset), tag and bytes, or "-" when not a receive */
void tf_put_status(tf_call *c, const tf_comm_info *ci, const MPI_Status *st, int completed);
void tf_put_req_status(tf_call *c, const tf_req_snap *s, const MPI_Status *st, int completed);
void tf_put_req_statuses(tf_call *c, const tf_req_snap *snaps, int n, const MPI_Status *sts, int completed);
void tf_put_some_statuses(tf_call *c, const tf_req_snap *snaps, int outcount, const int *indices,
                          const MPI_Status *sts);

/* setup / teardown of the object tables, under the recorder */
int tf_handles_init(void);
void tf_handles_free(void);

/* ---- locking: a real mutex only under MPI_THREAD_MULTIPLE ---- */
void tf_lock(void);
void tf_unlock(void);

/* ---- Fortran support (fortran_support.c) ---- */
#define TF_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
void *tf_fortran_buf(void *buf);
const int *tf_fortran_weights(const MPI_Fint *w); /* MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY */
MPI_Request *tf_fortran_scratch_request(const MPI_Fint *f, int n);
MPI_Datatype *tf_fortran_scratch_type(const MPI_Fint *f, int n);
MPI_Status *tf_fortran_scratch_status(int n);

#endif
