/* replay.h — the replay engine's internal interface (doc/REPLAY.md).
 *
 * tracefold-replay is an MPI program: each rank walks its own events of a
 * trace through a rank cursor (the loops stay folded; nothing is unrolled
 * into memory) and issues the same MPI calls with the same parameters.
 * One rp_thread replays one recorded thread of the rank. The pieces:
 *   tf_replay_calls.c  generated from gen/mpi.table: one function per MPI
 *                      function, event fields -> the call (gen/emit_replay.py);
 *   fields.c           the current event's fields, and the per-call scratch
 *                      memory and payload buffers;
 *   handles.c          recorded ids -> live communicators, datatypes, ops,
 *                      groups, requests and messages;
 *   outcome.c          which requests complete and which messages are
 *                      matched, as recorded (wildcards, Waitany, Test, ...);
 *   delay.c            the compute delay before each call (none, mean,
 *                      histogram; scale; rate for time-independent traces);
 *   compute.c          the one function that spends that delay;
 *   sync.c             the lock and condition the rank's threads share;
 *   replay.c           options, start-up checks, threads, the report.
 * tracefold-sim is the same engine compiled with smpicc (SimGrid's SMPI):
 * compute_sim.c replaces compute.c, so a delay becomes simulated execution;
 * a rank's recorded threads are lanes of its one actor (replay.c: SMPI
 * 3.32 cannot match the messages of a second actor of a rank).
 * Everything the engine does for itself goes through PMPI_ so that a
 * recorder preloaded into the replay sees exactly the replayed calls.
 * No code here is specific to one MPI library (it also builds with smpicc).
 */
#ifndef TF_REPLAY_H
#define TF_REPLAY_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "tf_schema.h"
#include "tracefold.h"

#define RP_MAXFIELDS 32
#ifdef TF_SIMGRID
#define RP_PROGRAM "tracefold-sim"
#else
#define RP_PROGRAM "tracefold-replay"
#endif

/* ---- options ---- */
typedef enum rp_compute_mode { RP_COMPUTE_NONE, RP_COMPUTE_MEAN, RP_COMPUTE_HISTOGRAM } rp_compute_mode;
typedef struct rp_options {
  const char *trace;
  rp_compute_mode compute;
  int sleep;            /* 1: nanosleep; 0: busy-wait */
  double scale;         /* compute delays are multiplied by it */
  double rate;          /* time-independent traces: compute units per second (0: not given) */
  uint64_t seed;        /* histogram draws */
  int any_source;       /* 1: wildcard receives stay MPI_ANY_SOURCE */
  int quiet;            /* no per-function table */
  int flat;             /* prefer the flat reference files of a trace directory */
  double ref_speed;     /* simulation: the recording host's speed, flop/s (a second of compute = this many flops) */
  const char *report;   /* write the report's figures to this file too (key value lines) */
} rp_options;

/* ---- the lock and condition of the rank's threads (sync.c) ---- */
typedef struct rp_sync rp_sync; /* a lock and a condition */
rp_sync *rp_sync_new(void);     /* NULL: out of memory */
void rp_sync_free(rp_sync *s);
void rp_sync_lock(rp_sync *s);
void rp_sync_unlock(rp_sync *s);
void rp_sync_broadcast(rp_sync *s);
int rp_sync_wait(rp_sync *s, double timeout); /* lock held; 0 woken, -1 timed out */

/* ---- live objects under their recorded ids (handles.c) ---- */
typedef struct rp_obj {
  int64_t id;
  uint8_t used;         /* 0 free, 1 used, 2 deleted */
  uint8_t persistent;   /* requests */
  uint8_t done;         /* requests: completed earlier than recorded (the handle is gone) */
  int rank;             /* communicators: the caller's rank (local group for intercommunicators) */
  union {
    MPI_Comm comm;
    MPI_Datatype dtype;
    MPI_Op op;
    MPI_Group group;
    MPI_Request req;
    MPI_Message msg;
  } h;
  MPI_Aint extent;      /* datatypes: bytes a buffer needs per element (larger of extent and
                           true extent, plus a positive true lower bound) */
} rp_obj;

typedef struct rp_map {
  rp_obj *slots;
  size_t cap, used; /* used: slots not empty (live or deleted) */
  size_t live;
} rp_map;

typedef struct rp_engine {
  rp_options opt;
  tf_trace *trace;
  const tf_trace_info *info;
  int rank, size;
  uint32_t *fnmap;       /* trace function index -> schema id, or one of: */
#define RP_FN_UNKNOWN TF_FN_COUNT        /* a function the engine does not know */
#define RP_FN_OTHER (TF_FN_COUNT + 1)    /* known, but recorded with other fields */
  int nthreads;          /* recorded threads of this rank */
  /* objects, shared by the rank's threads (objs: their lock; signalled
     when one is registered) */
  rp_sync *objs;
  int threaded;
  rp_map comms, dtypes, ops, groups, reqs, msgs;
  MPI_Datatype predef_dtypes[128];
  MPI_Aint predef_extents[128];  /* their spans (bytes a buffer needs per element) */
  uint32_t npredef_dtypes;
  MPI_Op predef_ops[32];
  uint32_t npredef_ops;
  /* where each thread is (replay.c, "threads of a rank") */
  struct rp_thread **threads;
  rp_sync *seq;
  /* the attached buffer (MPI_Buffer_attach) */
  void *bsend_buf;
} rp_engine;

/* ---- one replaying thread ---- */
typedef struct rp_arena_chunk rp_arena_chunk;
typedef struct rp_thread {
  rp_engine *E;
  uint32_t thread;
  tf_rank_cursor *cur;
  uint64_t index;              /* position of the current event in the rank's sequence */
  uint64_t pos;                /* threaded: its events before pos have completed */
  double last_return;          /* when its previous call returned (rp_now) */
  tf_event ev;
  uint32_t fn;                 /* schema id of the current event */
  uint32_t nf;
  const int64_t *f[RP_MAXFIELDS]; /* field i: its values ... */
  uint32_t fl[RP_MAXFIELDS];      /* ... and how many (1 for scalars) */
  size_t need;                 /* payload bytes this call's buffers must hold */
  /* payload buffers: grown by replacement, old ones kept until the end
   * (a pending nonblocking call may still use them) */
  void *sbuf, *rbuf;
  size_t scap, rcap;
  void **retired;
  size_t nretired;
  rp_arena_chunk *arena;       /* per-call scratch */
  MPI_Status status, last_status;
  const uint8_t *hidden;       /* this call: request array entries hidden from it (outcome.c) */
  /* look-ahead for wildcard receives whose source a later completion tells */
  tf_rank_cursor *peek;
  uint64_t peek_index;         /* events the look-ahead cursor has passed */
  struct rp_seen { int64_t req, src; } *seen; /* receive completions it passed, not yet asked for */
  uint32_t nseen, seen_cap;
  /* draw state of histogram delays */
  struct rp_draw *draws;
  uint32_t ndraws, draws_cap;
  /* totals */
  uint64_t calls[TF_FN_COUNT], bytes[TF_FN_COUNT];
  double compute_s, mpi_s;     /* time spent computing and in the replayed MPI calls */
  double pending_flops;        /* simulation: compute of local calls, not yet executed */
  char error[512];
} rp_thread;

typedef int (*rp_call_fn)(rp_thread *T);
extern const rp_call_fn rp_calls[TF_FN_COUNT]; /* NULL: the engine does it (replay.c) */
/* The call started in its nonblocking form (blocking functions that have
 * one; MPI_Sendrecv as MPI_Irecv + MPI_Isend): req[0], req[1] (or
 * MPI_REQUEST_NULL). Used where one actor replays several threads. */
typedef int (*rp_start_fn)(rp_thread *T, MPI_Request *req);
extern const rp_start_fn rp_starts[TF_FN_COUNT]; /* NULL: no nonblocking form */

/* ---- the current event's fields (fields.c) ---- */
/* What the engine needs to know of each function's fields, found once. */
enum { RP_ROLE_NONE, RP_ROLE_COUNT, RP_ROLE_DISPL, RP_ROLE_DTYPE, RP_ROLE_BYTES };
typedef struct rp_fninfo {
  uint8_t role[RP_MAXFIELDS];     /* for the payload size and bytes */
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
/* The same for any event of function fn into f/fl: 0 or -1. */
int rp_layout(uint32_t fn, const tf_event *ev, const int64_t **f, uint32_t *fl);
int rp_field_index(uint32_t fn, const char *name); /* -1: no such field */
int rp_int(const rp_thread *T, int i);          /* scalar field: TF_NONE -> 0, TF_UNDEFINED -> MPI_UNDEFINED */
int64_t rp_int64(const rp_thread *T, int i);    /* the same, 64-bit */
int rp_tag(const rp_thread *T, int i);          /* TF_ANY_TAG -> MPI_ANY_TAG */
int rp_root(const rp_thread *T, int i);         /* TF_ROOT -> MPI_ROOT, TF_PROC_NULL -> MPI_PROC_NULL */
int rp_max_int(const rp_thread *T);             /* the largest scalar int of the event (room for skipped outputs) */
int *rp_ints(rp_thread *T, int i);              /* array field as int[] (scratch, modifiable) */
MPI_Aint *rp_aints(rp_thread *T, int i);
int *rp_scratch_ints(rp_thread *T, int n);      /* n zeroed ints */
void *rp_alloc(rp_thread *T, size_t bytes);     /* per-call scratch (zeroed); aborts when memory is out */
void rp_arena_reset(rp_thread *T);
/* arr (n elements of elem bytes, room for *cap) with room for one more:
 * doubled when full; stops the replay when memory is out. */
void *rp_grow(rp_thread *T, void *arr, uint32_t n, uint32_t *cap, size_t elem);
void rp_arena_free(rp_thread *T);
void *rp_sbuf(rp_thread *T);                    /* send / receive payload buffers of T->need bytes */
void *rp_rbuf(rp_thread *T);
void rp_buffers_free(rp_thread *T);
/* Payload bytes the buffers need for this call: from its counts,
 * displacements and datatype extents. */
size_t rp_payload_need(rp_thread *T);
/* The event's payload bytes: its bytes fields summed. */
uint64_t rp_event_bytes(const rp_thread *T);
/* The event involves no other rank and takes no simulated time: its
 * function has no communicator (MPI_Type_*, MPI_Dims_create, ...) or its
 * every peer is MPI_PROC_NULL. */
int rp_event_local(const rp_thread *T);

/* ---- handles (handles.c) ---- */
int rp_handles_init(rp_engine *E);
void rp_handles_free(rp_engine *E);
MPI_Comm rp_comm(rp_thread *T, int i);
int rp_comm_rank(MPI_Comm c); /* the caller's rank in c (PMPI) */
void rp_comm_new(rp_thread *T, int i, MPI_Comm c);
void rp_comm_forget(rp_thread *T, int i);
MPI_Datatype rp_dtype(rp_thread *T, int i);
MPI_Datatype *rp_dtypes(rp_thread *T, int i);
MPI_Aint rp_dtype_extent(rp_thread *T, int64_t id);
void rp_dtype_new(rp_thread *T, int i, MPI_Datatype d);
void rp_dtype_back(rp_thread *T, int i, MPI_Datatype d);
void rp_dtype_forget(rp_thread *T, int i);
MPI_Op rp_op(rp_thread *T, int i);
void rp_op_new(rp_thread *T, int i, MPI_Op o);
void rp_op_forget(rp_thread *T, int i);
int *rp_unweighted(void); /* MPI_UNWEIGHTED (skipped graph weights) */
void rp_user_function(void *in, void *inout, int *len, MPI_Datatype *dt);
MPI_Group rp_group(rp_thread *T, int i);
void rp_group_new(rp_thread *T, int i, MPI_Group g);
void rp_group_forget(rp_thread *T, int i);
MPI_Message rp_msg(rp_thread *T, int i);
void rp_msg_new(rp_thread *T, int i, MPI_Message m);
void rp_msg_forget(rp_thread *T, int i);
MPI_Request rp_req(rp_thread *T, int i);
MPI_Request *rp_reqs(rp_thread *T, int i);
void rp_req_new(rp_thread *T, int i, MPI_Request r);
void rp_req_back(rp_thread *T, int i, MPI_Request r);  /* after the call: its state (NULL: gone) */
void rp_reqs_back(rp_thread *T, int i, const MPI_Request *r);
void rp_req_forget(rp_thread *T, int i);
/* The live request of a recorded id (NULL if unknown); *persistent, *done. */
rp_obj *rp_req_obj(rp_engine *E, int64_t id);
void rp_req_drop(rp_engine *E, rp_obj *o); /* delete a request found by rp_req_obj (lock held) */
/* Every communicator, datatype, op and group the current event uses exists. */
int rp_objects_ready(rp_thread *T);
void rp_lock(rp_engine *E);
void rp_unlock(rp_engine *E);
/* A fatal replay error: message on stderr naming the trace, rank and event, then MPI_Abort. */
_Noreturn void rp_die(rp_thread *T, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- what the recording saw (outcome.c) ---- */
/* An absolute peer: field i is an offset from the caller's rank in comm;
 * a wildcard source becomes the matched source (status field src, or the
 * completion of request req found ahead) unless --any-source. */
int rp_peer(rp_thread *T, MPI_Comm comm, int i, int src, int req);
MPI_Status *rp_status(rp_thread *T, int src);             /* MPI_STATUS_IGNORE if the recording ignored it */
MPI_Status *rp_statuses(rp_thread *T, int src, int count); /* likewise for arrays */
MPI_Status *rp_last_status(rp_thread *T);                 /* of the last call that had one */
/* Before the call: wait until what the recording completed can complete;
 * for MPI_Waitany/Testany/Waitsome/Testsome (reqs: the call's array) hide
 * the requests the recording did not report, so the call reports exactly
 * the recorded ones. */
void rp_outcome_before(rp_thread *T, uint32_t fn, MPI_Request *reqs);
/* After the call (live: its request(s) as the call left them, NULL if it
 * completes none): take them back, reconciled with the recorded outcome. */
void rp_outcome_after(rp_thread *T, uint32_t fn, int rc, MPI_Request *live);

/* ---- compute (delay.c, compute.c) ---- */
/* Check the options against the trace: NULL, or why not. */
const char *rp_delay_check(const rp_options *o, const tf_trace_info *info);
/* Seconds to compute before the current event. */
double rp_delay(rp_thread *T);
void rp_draws_free(rp_thread *T);
/* Spend compute time as the application did: live, busy-waiting or
 * sleeping until `seconds` after T's previous call returned; simulated,
 * executing seconds x ref_speed flops on the rank's host, together with
 * the compute of the local calls before it (`now` 0: the call is local,
 * the compute waits for the next one). */
void rp_compute(rp_thread *T, double seconds, int now);
double rp_now(void); /* seconds, monotonic (simulated time under SimGrid) */

#endif
