/* engine.h — the replay engine's state, which its modules share (replay.h
 * lists them): the options, the rank's engine (its live objects, its
 * threads) and one replaying thread (its current event, scratch memory,
 * payload buffers, look-ahead, totals). Types only. */
#ifndef TF_REPLAY_ENGINE_H
#define TF_REPLAY_ENGINE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "sync.h"
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
  const char *io_dir;   /* MPI-IO: the scratch directory (NULL: a new one under $TMPDIR, removed at the end) */
  int io_skip;          /* 1: MPI-IO calls are not made; each takes its recorded duration (--io skip) */
} rp_options;

/* ---- live objects under their recorded ids (handles.c) ---- */
/* What count elements of a datatype touch: element k lies at k x extent,
 * its data at [true_lb, true_ub) from there. */
typedef struct rp_typespan {
  MPI_Aint extent, true_lb, true_ub;
} rp_typespan;

typedef struct rp_obj {
  int64_t id;
  uint8_t used;         /* 0 free, 1 used, 2 deleted */
  uint8_t persistent;   /* requests */
  uint8_t done;         /* requests: completed earlier than recorded (the handle is gone); windows: the
                           exposure epoch completed earlier than recorded (by MPI_Win_test) */
  uint32_t turns;       /* persistent requests, threaded: the events naming it that have run (persist.c) */
  int rank;             /* communicators: the caller's rank (local group for intercommunicators) */
  union {
    MPI_Comm comm;
    MPI_Datatype dtype;
    MPI_Op op;
    MPI_Group group;
    MPI_Request req;
    MPI_Message msg;
    MPI_Win win;
    MPI_File file;
  } h;
  rp_typespan span;     /* datatypes: their extent and true bounds */
  void *kept;           /* requests: the array arguments of the call that made it (rp_kept), until it completes */
  void *mem;            /* windows: the memory MPI_Win_create exposes; regions: theirs (the engine's) */
  int64_t nregions;     /* windows: regions attached so far (their numbers, 1, 2, ...) */
  int group_size;       /* windows: the size of their group */
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
  rp_map comms, dtypes, ops, groups, reqs, msgs, wins, regions, files;
  char *io_dir;          /* MPI-IO: the scratch directory the files are in (io.c), NULL with --io skip */
  int io_dir_made;       /* 1: this engine made it (removed at the end) */
  char *cwd;             /* the working directory to return to after an I/O call */
  MPI_Datatype predef_dtypes[128];
  rp_typespan predef_spans[128]; /* their extents and true bounds */
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
  tf_field_value field[RP_MAXFIELDS]; /* its fields (tf_event_fields) */
  /* payload buffers: grown by replacement, old ones kept until the end
   * (a pending nonblocking call may still use them) */
  void *sbuf, *rbuf;
  size_t scap, rcap;
  void **retired;
  size_t nretired;
  rp_arena_chunk *arena;       /* per-call scratch */
  void *kept;                  /* this call's array arguments that must outlive it (rp_alloc_kept) */
  MPI_Status status, last_status;
  const uint8_t *hidden;       /* this call: request array entries hidden from it (outcome.c) */
  /* look-ahead for wildcard receives whose source a later completion tells */
  tf_rank_cursor *peek;
  uint64_t peek_index;         /* events the look-ahead cursor has passed */
  struct rp_seen { int64_t req, src; } *seen; /* receive completions it passed, not yet asked for */
  uint32_t nseen, seen_cap;
  /* messages a failed MPI_Improbe poll of the recording matched here
   * (outcome.c): held for the poll that found them in the recording */
  struct rp_held { MPI_Comm comm; int src, tag; MPI_Message msg; } *held;
  uint32_t nheld, held_cap;
  struct rp_held probe;        /* this MPI_Improbe: the envelope it may match */
  int take_held;               /* this MPI_Improbe or MPI_Mprobe: the held message it takes, or -1 */
  int peer_null;               /* this MPI_Mprobe: made on MPI_PROC_NULL (its message is held: outcome.c) */
  /* threaded: the persistent requests alive its cursor has passed the making of, with the events naming
   * each it has passed; the turn of each request of its current event (persist.c) */
  struct rp_turn { int64_t id; uint32_t passed; } *turns;
  uint32_t nturns, turns_cap;
  uint32_t *need, nneed, need_cap;
  /* draw state of histogram delays */
  struct rp_draw *draws;
  uint32_t ndraws, draws_cap;
  /* totals */
  uint64_t calls[TF_FN_COUNT], bytes[TF_FN_COUNT];
  double compute_s, mpi_s;     /* time spent computing and in the replayed MPI calls */
  double fn_s[TF_FN_COUNT];    /* ... in the calls of each function */
  uint64_t recorded_fn_ns[TF_FN_COUNT]; /* the trace's durations of those calls (after MPI_Init) */
  double pending_flops;        /* simulation: compute of local calls, not yet executed */
  char error[512];
} rp_thread;

#endif
