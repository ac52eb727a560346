/* runtime.c — see runtime.h. */
#define _GNU_SOURCE /* syscall (membarrier) */
#include "runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif

static struct {
  _Atomic int state; /* tf_rec_state */
  _Atomic uint64_t lost;
  atomic_flag warned;
  int rank;
  int threaded;
  pthread_mutex_t lock;  /* MPI_THREAD_MULTIPLE: the lock; otherwise it orders the other threads among themselves */
  _Atomic int busy;      /* not threaded: an MPI thread is inside tf_lock .. tf_unlock */
  _Atomic int claimed;   /* not threaded: another thread holds the state (tf_lock_other) */
  int asym;              /* not threaded: membarrier(2) fences for tf_lock, which then needs none */
} rt = {.state = TF_STATE_IDLE, .warned = ATOMIC_FLAG_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local tf_thread ts;

/* Threads whose call buffers (values, scratch) are allocated: each is
 * registered with a pthread key the first time it allocates, so that the
 * buffers are freed when the thread exits (a program that starts a thread
 * per task would otherwise keep one set per thread it ever ran). */
static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;
static pthread_key_t buffers_key;
static int have_buffers_key;
static _Atomic uint32_t nbuffers;

static void free_buffers(void *arg) {
  tf_thread *th = arg;
  free(th->vals);
  for (uint32_t d = 0; d < th->nscratch; d++)
    for (int k = 0; k < TF_SCRATCH_KINDS; k++) free(th->scratch[d][k].p);
  free(th->scratch);
  memset(th, 0, sizeof *th);
  atomic_fetch_sub(&nbuffers, 1);
}

static void make_buffers_key(void) { have_buffers_key = pthread_key_create(&buffers_key, free_buffers) == 0; }

/* Before th's first allocation. Without a key (none left) the buffers stay
 * until the process ends, as they would without this. */
static void own_buffers(tf_thread *th) {
  if (th->owned) return;
  th->owned = 1;
  atomic_fetch_add(&nbuffers, 1);
  pthread_once(&buffers_once, make_buffers_key);
  if (have_buffers_key) pthread_setspecific(buffers_key, th);
}

uint32_t tf_thread_buffers(void) { return atomic_load(&nbuffers); }

/* The clock. CLOCK_MONOTONIC through the vDSO costs tens of ns a read
 * (50 ns on a KVM guest), and every call reads the clock three times. Where
 * the kernel itself keeps time with the TSC (its clocksource is "tsc": the
 * counter is invariant and synchronised across cores) the recorder reads
 * the counter instead, scaled to ns by a rate measured against
 * CLOCK_MONOTONIC from library load to MPI_Init (at least TSC_CALIBRATE_NS
 * apart, so the rate is within ~1e-5), and offset so that both clocks agree
 * at MPI_Init. Before MPI_Init, and elsewhere, CLOCK_MONOTONIC. */
#define TSC_CALIBRATE_NS 5000000ull

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t ticks(void) { return __rdtsc(); }
#else
static inline uint64_t ticks(void) { return 0; }
#endif

tf_clock tf_clk; /* runtime.h (tf_now_ns reads it inline) */

static int kernel_uses_tsc(void) {
#if defined(__x86_64__)
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  char name[32] = "";
  if (!f) return 0;
  int ok = fgets(name, sizeof name, f) && strcmp(name, "tsc\n") == 0;
  fclose(f);
  return ok;
#else
  return 0;
#endif
}

__attribute__((constructor)) static void clock_at_load(void) {
  if (!kernel_uses_tsc()) return;
  tf_clk.tick0 = ticks();
  tf_clk.ns0 = monotonic_ns();
}

/* At MPI_Init: the rate from the pair read at load to now. */
static void clock_calibrate(void) {
  if (!tf_clk.ns0) return;
  uint64_t ns = monotonic_ns(), t = ticks();
  while (ns - tf_clk.ns0 < TSC_CALIBRATE_NS) ns = monotonic_ns(), t = ticks(); /* MPI_Init came quickly */
  if (t <= tf_clk.tick0) return; /* not counting: keep CLOCK_MONOTONIC */
  tf_clk.mult = (uint64_t)(((unsigned __int128)(ns - tf_clk.ns0) << 32) / (t - tf_clk.tick0));
  tf_clk.tick0 = t;
  tf_clk.ns0 = ns;
  tf_clk.tsc = tf_clk.mult > 0;
}

uint64_t tf_monotonic_ns(void) { return monotonic_ns(); }

/* The handshake of tf_lock and tf_lock_other (not threaded) needs a full
 * fence between each side's store and its load of the other's flag. The
 * MPI thread takes the lock on every call, the other side a few times a
 * minute: with membarrier(2) the other side makes every thread of the
 * process execute that fence, and tf_lock needs only a compiler barrier
 * (the asymmetric Dekker of user-space RCU). */
static void choose_fences(void) {
#if defined(__linux__) && defined(SYS_membarrier)
  long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  rt.asym = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#endif
}

static void fence_other_threads(void) {
#if defined(__linux__) && defined(SYS_membarrier)
  if (rt.asym && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) rt.asym = 0;
#endif
}

void tf_runtime_init(int rank, int threaded) {
  rt.rank = rank;
  rt.threaded = threaded;
  clock_calibrate();
  if (!threaded) choose_fences();
}

static void pause_briefly(void) {
  struct timespec t = {0, 100000}; /* 0.1 ms: the other side holds the state for a checkpoint's encoding */
  nanosleep(&t, NULL);
}

void tf_lock(void) {
  if (rt.threaded) {
    pthread_mutex_lock(&rt.lock);
    return;
  }
  for (;;) {
    if (rt.asym) { /* the other side fences this thread (membarrier) */
      atomic_store_explicit(&rt.busy, 1, memory_order_relaxed);
      atomic_signal_fence(memory_order_seq_cst);
    } else {
      atomic_store(&rt.busy, 1); /* seq_cst: ordered before the load below */
    }
    if (!atomic_load_explicit(&rt.claimed, memory_order_acquire)) return;
    atomic_store(&rt.busy, 0);           /* the other thread holds it: let it finish */
    while (atomic_load(&rt.claimed)) pause_briefly();
  }
}
void tf_unlock(void) {
  if (rt.threaded) pthread_mutex_unlock(&rt.lock);
  else atomic_store_explicit(&rt.busy, 0, memory_order_release);
}

void tf_lock_tables(void) {
  if (rt.threaded) pthread_mutex_lock(&rt.lock);
}
void tf_unlock_tables(void) {
  if (rt.threaded) pthread_mutex_unlock(&rt.lock);
}
int tf_tables_shared(void) { return rt.threaded; }

void tf_lock_other(void) {
  pthread_mutex_lock(&rt.lock);
  if (rt.threaded) return;
  atomic_store(&rt.claimed, 1);          /* seq_cst: ordered before the load below */
  fence_other_threads();                 /* a store of busy before it is seen, or the MPI thread sees claimed */
  while (atomic_load(&rt.busy)) sched_yield();
}
void tf_unlock_other(void) {
  if (!rt.threaded) atomic_store(&rt.claimed, 0);
  pthread_mutex_unlock(&rt.lock);
}

tf_rec_state tf_state(void) { return (tf_rec_state)atomic_load(&rt.state); }
void tf_state_recording(void) { atomic_store(&rt.state, TF_STATE_RECORDING); }
tf_rec_state tf_state_done(void) { return (tf_rec_state)atomic_exchange(&rt.state, TF_STATE_DONE); }

void tf_recorder_fail(const char *what) {
  /* from RECORDING, or from IDLE (MPI_Init could not open the trace): the
   * calls from here on are counted as lost */
  int expected = TF_STATE_RECORDING;
  if (!atomic_compare_exchange_strong(&rt.state, &expected, TF_STATE_FAILED)) {
    expected = TF_STATE_IDLE;
    atomic_compare_exchange_strong(&rt.state, &expected, TF_STATE_FAILED);
  }
  if (!atomic_flag_test_and_set(&rt.warned))
    fprintf(stderr, "tracefold: warning: rank %d: %s; recording stopped, the trace keeps what was recorded before\n",
            rt.rank, what);
}

void tf_recorder_fail_quietly(void) {
  int expected = TF_STATE_RECORDING;
  atomic_compare_exchange_strong(&rt.state, &expected, TF_STATE_FAILED);
}

void tf_lost_add(uint64_t n) { atomic_fetch_add(&rt.lost, n); }
uint64_t tf_lost(void) { return atomic_load(&rt.lost); }

/* ------------------------------------------------------------ the call */

void tf_call_init(tf_call *c, uint32_t fn, void *ra) {
  tf_thread *th = &ts;
  if (th->depth == 0) th->nvals = 0;
  c->fn = fn;
  c->ra = ra;
  c->th = th;
  c->t0 = c->t1 = 0;
  c->v0 = c->v1 = 0;
  c->base = th->nvals;
  c->depth = th->depth++;
  c->oom = 0;
}

void tf_call_done(tf_call *c) {
  tf_thread *th = c->th;
  th->nvals = c->base;
  if (th->depth) th->depth--;
}

void tf_put_grow(tf_call *c, int64_t v) {
  int64_t *p = tf_put_room_grown(c, 1);
  if (p) *p = v;
}

int64_t *tf_put_room_grown(tf_call *c, uint32_t n) {
  tf_thread *th = c->th;
  if (c->oom) return NULL;
  if (n > UINT32_MAX / 2 - th->nvals) {
    c->oom = 1;
    return NULL;
  }
  own_buffers(th);
  uint32_t cap = th->cap ? th->cap : 256;
  while (cap - th->nvals < n) cap *= 2;
  int64_t *nv = realloc(th->vals, cap * sizeof *nv);
  if (!nv) {
    c->oom = 1;
    return NULL;
  }
  th->vals = nv;
  th->cap = cap;
  int64_t *p = th->vals + th->nvals;
  th->nvals += n;
  return p;
}

__attribute__((noinline)) static void *scratch_grown(tf_call *c, int kind, size_t bytes) {
  tf_thread *th = c->th;
  own_buffers(th);
  if (c->depth >= th->nscratch) {
    uint32_t n = c->depth + 4;
    tf_scratch(*ns)[TF_SCRATCH_KINDS] = realloc(th->scratch, n * sizeof *ns);
    if (!ns) {
      c->oom = 1;
      return NULL;
    }
    memset(ns + th->nscratch, 0, (n - th->nscratch) * sizeof *ns);
    th->scratch = ns;
    th->nscratch = n;
  }
  tf_scratch *s = &th->scratch[c->depth][kind];
  if (bytes > s->cap) {
    void *p = realloc(s->p, bytes);
    if (!p) {
      c->oom = 1;
      return NULL;
    }
    s->p = p;
    s->cap = bytes;
  }
  return s->p;
}

void *tf_call_scratch(tf_call *c, int kind, size_t bytes) {
  tf_thread *th = c->th;
  if (c->depth < th->nscratch && bytes <= th->scratch[c->depth][kind].cap) /* it has scratch: it owns its buffers */
    return th->scratch[c->depth][kind].p;
  return scratch_grown(c, kind, bytes);
}

MPI_Status *tf_statuses_scratch(tf_call *c, int n) {
  if (n <= 0) return MPI_STATUSES_IGNORE;
  MPI_Status *s = tf_call_scratch(c, TF_SCRATCH_STATUSES, (size_t)n * sizeof *s);
  return s ? s : MPI_STATUSES_IGNORE;
}
