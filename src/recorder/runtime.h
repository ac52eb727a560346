/* runtime.h — the state every recorder module shares; depends on no other
 * recorder module.
 *
 *   the clock        tf_now_ns (monotonic)
 *   the lock         tf_lock / tf_unlock, taken by threads that make MPI
 *                    calls: a real mutex only under MPI_THREAD_MULTIPLE
 *                    (tf_runtime_init); otherwise a flag that the
 *                    recorder's own thread (checkpoints, stops: recorder.c)
 *                    waits on after it claims the state with
 *                    tf_lock_other / tf_unlock_other; the object tables'
 *                    lock (tf_lock_tables) is only that mutex
 *   the state        IDLE -> RECORDING (MPI_Init set up the output) -> DONE
 *                    (MPI_Finalize, or a stop without it); any internal
 *                    failure latches FAILED instead (tf_recorder_fail): the
 *                    application goes on, calls are counted as lost
 *   the call         the event being recorded by the calling thread: its
 *                    parameter values accumulate in a per-thread buffer
 *                    (tf_put), with per-thread scratch for statuses
 *
 * Nothing here calls MPI, and nothing aborts.
 */
#ifndef TF_RECORDER_RUNTIME_H
#define TF_RECORDER_RUNTIME_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---- clock ---- */
/* ns: CLOCK_MONOTONIC, or from MPI_Init on the TSC scaled to agree with it
 * where the kernel keeps time with the TSC (runtime.c). Inline: every call
 * reads it three times. */
typedef struct tf_clock {
  int tsc;             /* the TSC is in use (set at MPI_Init, x86-64 only) */
  uint64_t tick0, ns0; /* a pair read together: at load, then at MPI_Init */
  uint64_t mult;       /* ns per tick, times 2^32 */
} tf_clock;
extern tf_clock tf_clk;
uint64_t tf_monotonic_ns(void);
static inline uint64_t tf_now_ns(void) {
#if defined(__x86_64__)
  if (tf_clk.tsc) {
    uint64_t t = __builtin_ia32_rdtsc();
    /* a thread on a core whose counter lags by a few ticks reads the anchor */
    uint64_t dt = t > tf_clk.tick0 ? t - tf_clk.tick0 : 0;
    return tf_clk.ns0 + (uint64_t)(((unsigned __int128)dt * tf_clk.mult) >> 32);
  }
#endif
  return tf_monotonic_ns();
}

/* ---- start: at MPI_Init, once ---- */
/* rank: named in warnings; threaded: MPI_THREAD_MULTIPLE was provided, so
 * tf_lock takes a real mutex from here on. */
void tf_runtime_init(int rank, int threaded);

/* ---- lock ---- */
/* Threads that call MPI (the application's). Not reentrant. */
void tf_lock(void);
void tf_unlock(void);
/* Any other thread (the recorder's own), or an MPI thread that does not
 * hold tf_lock: exclusive access to what tf_lock protects. Without
 * MPI_THREAD_MULTIPLE it claims the state, then waits until no MPI thread
 * is inside (a Dekker handshake: with membarrier(2) tf_lock costs no fence
 * at all, otherwise one, and no atomic read-modify-write); an MPI thread
 * that arrives meanwhile waits until tf_unlock_other. */
void tf_lock_other(void);
void tf_unlock_other(void);
/* The object tables (object_ids.c), which only threads that call MPI use
 * (never the recorder's own): tf_lock's mutex under MPI_THREAD_MULTIPLE,
 * nothing otherwise, where the application's MPI calls never overlap. */
void tf_lock_tables(void);
void tf_unlock_tables(void);
/* 1 when the tables' lock is that mutex (MPI_THREAD_MULTIPLE); 0 when
 * tf_lock_tables does nothing, and a lookup may skip it. */
int tf_tables_shared(void);

/* ---- recording state and failure latch ---- */
typedef enum tf_rec_state { TF_STATE_IDLE, TF_STATE_RECORDING, TF_STATE_FAILED, TF_STATE_DONE } tf_rec_state;

tf_rec_state tf_state(void);
void tf_state_recording(void);   /* IDLE -> RECORDING: MPI_Init is done */
tf_rec_state tf_state_done(void); /* -> DONE; returns the state it was in */
/* Warn once on stderr (per process) and stop recording (RECORDING or
 * IDLE -> FAILED); the application goes on. */
void tf_recorder_fail(const char *what);
/* The same without a word (the failure is reported later: a write that
 * failed is said once per job at MPI_Finalize). */
void tf_recorder_fail_quietly(void);
/* Calls not recorded (after a failure, or dropped by one). */
void tf_lost_add(uint64_t n);
uint64_t tf_lost(void);

/* ---- the call being recorded ---- */
/* A call can start while another call of the same thread is in progress:
 * MPI runs application code inside a call (a user-defined reduction op,
 * an attribute or error-handler callback, a generalized request's query)
 * and that code calls MPI. Calls nest like a stack: the nested call's
 * values go on top of the enclosing call's in the thread's buffer, it is
 * recorded (and written) when it returns, before the enclosing call, and
 * the enclosing call then goes on with its own values where it left them.
 * Per-call scratch (statuses, request snapshots) is kept per depth for the
 * same reason. */
#define TF_SCRATCH_STATUSES 0 /* tf_statuses_scratch */
#define TF_SCRATCH_SNAPS 1    /* tf_req_get_all (object_ids.c) */
#define TF_SCRATCH_KINDS 2
typedef struct tf_scratch {
  void *p;
  size_t cap; /* bytes */
} tf_scratch;

typedef struct tf_thread {  /* one per thread, its buffers freed when the thread exits */
  int64_t *vals;            /* the values of its calls in progress, outermost first */
  uint32_t nvals, cap;
  uint32_t depth;           /* calls of this thread in progress */
  uint32_t nscratch;        /* depths with scratch */
  tf_scratch (*scratch)[TF_SCRATCH_KINDS]; /* per depth */
  int owned;                /* its buffers are registered to be freed at its exit */
} tf_thread;

/* Threads whose call buffers are allocated now (the tests check that an
 * exited thread's are freed). */
uint32_t tf_thread_buffers(void);

typedef struct tf_call {
  uint32_t fn;
  void *ra;        /* return address into the caller: the call site */
  uint64_t t0, t1; /* just before and after the MPI library's call: the compute delta ends at t0 */
  uint64_t v0, v1; /* time-independent mode: the thread's volume counter at t0 and t1 */
  tf_thread *th;
  uint32_t base;   /* its values are th->vals[base .. th->nvals) */
  uint32_t depth;  /* 0: called by the application; > 0: from inside another call of this thread */
  int oom;         /* an allocation failed during this call: it is dropped */
} tf_call;

/* A new call on the calling thread: c names function fn called from ra,
 * times and volumes 0, no values yet. Every tf_call_init is followed by
 * one tf_call_done. */
void tf_call_init(tf_call *c, uint32_t fn, void *ra);
/* One more value (inline: every wrapper puts several per call); the
 * buffer grows out of line. */
void tf_put_grow(tf_call *c, int64_t v);
static inline void tf_put(tf_call *c, int64_t v) {
  tf_thread *th = c->th;
  if (__builtin_expect(th->nvals < th->cap, 1)) th->vals[th->nvals++] = v;
  else tf_put_grow(c, v);
}
static inline void tf_put_len(tf_call *c, int n) { tf_put(c, n); }
/* Room for n more values, appended now, for the caller to fill (arrays);
 * NULL if memory is short (the call is then dropped, tf_call_oom). */
int64_t *tf_put_room_grown(tf_call *c, uint32_t n);
static inline int64_t *tf_put_room(tf_call *c, uint32_t n) {
  tf_thread *th = c->th;
  if (__builtin_expect(th->cap - th->nvals >= n, 1)) {
    int64_t *p = th->vals + th->nvals;
    th->nvals += n;
    return p;
  }
  return tf_put_room_grown(c, n);
}
/* The call's values so far (valid until the next tf_put). */
static inline const int64_t *tf_call_values(const tf_call *c, uint32_t *n) {
  *n = c->th->nvals - c->base;
  return c->th->vals + c->base;
}
/* The call is recorded (or dropped): its values leave the thread's buffer. */
void tf_call_done(tf_call *c);
/* Mark the call as failed for lack of memory: tf_call_end drops it and the
 * recorder stops with a warning. */
static inline void tf_call_oom(tf_call *c) { c->oom = 1; }

/* Per-call scratch of `bytes` (kind: TF_SCRATCH_*), valid until the call
 * ends; NULL on allocation failure (the call is then marked tf_call_oom). */
void *tf_call_scratch(tf_call *c, int kind, size_t bytes);
/* n statuses of scratch: MPI_STATUSES_IGNORE for n <= 0, and on allocation
 * failure (the event is then dropped and the recorder stops with a warning). */
MPI_Status *tf_statuses_scratch(tf_call *c, int n);

#endif
