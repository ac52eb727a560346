/* recorder.c — the recorder's lifecycle and event path.
 *
 * MPI_Init (wrapper) -> tf_recorder_start: read TRACEFOLD_* (a bad value
 *   stops every rank here with one message), build the object tables, pick
 *   the output, agree on the run's identity, open this rank's sinks, start
 *   the recorder's own thread (checkpoints and stops, below).
 * Every intercepted call -> tf_call_begin / tf_put... / tf_call_end: values
 *   go into a per-thread buffer; tf_call_end stamps the compute and
 *   communication deltas and appends the event to the sink under a lock
 *   (runtime.h: a mutex with MPI_THREAD_MULTIPLE, else a flag the
 *   recorder's thread waits on); a sink's full buffer is handed out under
 *   the lock and written after it (tf_file_writer_defer): no disk write
 *   while the lock is held.
 * MPI_Finalize -> tf_recorder_before_finalize (last moment MPI is usable):
 *   the merge, the files, and one report for the whole job if anything
 *   went wrong (a clean run prints nothing; TRACEFOLD_VERBOSE=1 says where
 *   the trace went); tf_recorder_stop releases the rest.
 *
 * Checkpoints (TRACEFOLD_CHECKPOINT, every 10 s by default): the recorder's
 *   thread takes the state for a moment, encodes the folded structure as
 *   it stands into memory (cheap: the structure of a regular code is
 *   small), lets go, and writes rank-R.tfc atomically (written beside,
 *   renamed), marked as a checkpoint: a rank killed by SIGKILL loses at
 *   most the last interval. The first is taken at MPI_Init, so every rank
 *   has a readable file from then on. After the merge at MPI_Finalize they
 *   are removed.
 * Stops without MPI_Finalize (SIGTERM, SIGINT, MPI_Abort, exit): the signal
 *   handler only records the signal and wakes the recorder's thread, which
 *   writes the partial files at once, from outside any MPI call (the rank
 *   may be blocked in one), taking the state as for a checkpoint; an MPI
 *   call's entry or exit is the safe point where the application's thread
 *   does it instead when there is no recorder thread. The ranks that stop
 *   meet in the trace directory (a file each appends to, for at most
 *   0.75 s) before the signal goes on to what it would have done: a
 *   launcher that kills every rank when the first one dies (MPICH's hydra)
 *   then cuts no rank short while it writes.
 *
 * Failure policy: the traced application must never be broken. An internal
 * failure (memory) prints one warning, stops recording and keeps what was
 * written; the trace then carries the number of calls not recorded. A
 * failed write is reported once for the whole job at MPI_Finalize (with
 * TRACEFOLD_MODE=both the flat files are given up first, so that the
 * compressed trace fits), and leaves no half-written file behind.
 *
 * What the other recorder modules share with this one (the clock, the
 * lock, the recording state and failure latch, the call's value buffer) is
 * in runtime.c; this file keeps the rest of the session to itself.
 */
#define _GNU_SOURCE
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "callsite.h"
#include "config.h"
#include "cst_markers.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "object_ids.h"
#include "rank_merge.h"
#include "runtime.h"
#include "tf_schema.h"
#include "util/fields.h"
#include "util/file_io.h"
#include "util/hash.h"
#include "volume.h"

/* A thread's place in the event path: its index, and where its next
 * compute delta starts. */
typedef struct thread_clock {
  int registered;
  int suppressed; /* tf_call_suppress */
  uint32_t index;
  uint64_t last_end;
  uint64_t last_volume; /* time-independent mode: the volume counter when its last call ended */
} thread_clock;

#define MEET_NS 750000000ull /* the ranks that stop wait at most this long for each other */

static struct {
  int started; /* tf_recorder_start ran */
  int rank, nranks, provided;
  tf_config cfg;
  char path[PATH_MAX];
  char tfc[PATH_MAX + 32];  /* this rank's rank-R.tfc */
  tf_file_writer *flat;  /* rank-R.flat (modes flat, both) */
  tf_file_writer *comp;  /* rank-R.tfc (modes compressed, both) */
  tf_compressor compressor;
  int cap_warned;
  int volume;        /* time-independent mode (TRACEFOLD_VOLUME): compute deltas are volumes */
  tf_time_unit unit; /* of compute deltas */
  int merging;     /* every rank takes part in the merge at MPI_Finalize */
  int made_dir;    /* rank 0 created the trace directory (removed if nothing is kept in it) */
  MPI_Comm comm;   /* private duplicate of MPI_COMM_WORLD */
  uint64_t run_id, run_start; /* the run's identity: rank 0's random id and start time */
  pid_t pid;
  struct sigaction old_term, old_int;
  int handlers; /* ours are installed */
  uint64_t t_load;
  _Atomic uint32_t nthreads;
  /* the recorder's thread */
  pthread_t thread;
  int have_thread;
  sem_t wake;
  _Atomic int quit;
  uint64_t ckpt_every, ckpt_next; /* ns; 0: no checkpoints */
  _Atomic int ckpt_busy;          /* a checkpoint is being written (outside the lock) */
  _Atomic int writing;            /* calls writing the files' full buffers (outside the lock) */
  /* stops without MPI_Finalize */
  _Atomic int stopping, stopped;
  /* write failures (errno), reported once per job at MPI_Finalize */
  int flat_errno, comp_errno;
} g = {.comm = MPI_COMM_NULL};

static _Thread_local thread_clock ts;
/* Functions whose fields are all scalars: their values fit when there are
 * as many as fields (set at MPI_Init; the others are split to check).
 * One load and compare per call: the count, UINT32_MAX for the others. */
static uint32_t scalar_nvals[TF_FN_COUNT]; /* the number of fields, or UINT32_MAX if not all scalar */
static volatile sig_atomic_t pending_signal; /* SIGTERM or SIGINT arrived: the partial files are to be written */

static void stop_for_signal(int on_recorder_thread);
static void sleep_ns(uint64_t ns);

__attribute__((constructor)) static void tf_on_load(void) { g.t_load = tf_now_ns(); }

/* A program whose MPI calls never reach the recorder (a Fortran binding
 * without entry points here, say) must not go silently untraced. */
__attribute__((destructor)) static void tf_on_unload(void) {
  if (g.started) return;
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (init || fin)
    fprintf(stderr, "tracefold: warning: this program used MPI but its calls never reached tracefold (MPI_Init was "
                    "not intercepted); no trace was written\n");
}

/* ------------------------------------------------------------ the call */

static void register_thread(thread_clock *th) {
  th->registered = 1;
  th->index = atomic_fetch_add(&g.nthreads, 1);
  th->last_end = 0; /* first event of a thread: compute delta 0 */
  th->last_volume = 0;
}

void tf_call_suppress(int on) { ts.suppressed = on; }

/* tf_call_begin off its common path (suppressed, a signal pending, not
 * recording, the thread's first call) */
__attribute__((noinline)) static int call_begin_rare(tf_call *c, uint32_t fn, void *ra) {
  if (ts.suppressed) return 0;
  if (pending_signal) stop_for_signal(0); /* a safe point (the recorder's thread usually got there first) */
  tf_rec_state st = tf_state();
  if (st != TF_STATE_RECORDING) {
    if (st == TF_STATE_FAILED) tf_lost_add(1);
    return 0;
  }
  if (!ts.registered) register_thread(&ts);
  tf_call_init(c, fn, ra);
  return 1;
}

int tf_call_begin(tf_call *c, uint32_t fn, void *ra) {
  if (__builtin_expect(ts.suppressed || pending_signal || !ts.registered || tf_state() != TF_STATE_RECORDING, 0))
    return call_begin_rare(c, fn, ra);
  tf_call_init(c, fn, ra);
  return 1;
}

void tf_call_clock_start(tf_call *c) {
  if (g.volume) c->v0 = tf_volume_now();
  c->t0 = tf_now_ns();
}
void tf_call_clock_stop(tf_call *c) {
  c->t1 = tf_now_ns();
  if (g.volume) c->v1 = tf_volume_now();
}

void tf_call_clock_resume(void) {
  if (!ts.registered) return;
  ts.last_end = tf_now_ns();
  if (g.volume) ts.last_volume = tf_volume_now();
}

/* Why buffering into w failed in memory (rc: what the writer returned).
 * Failed writes to the file are said once per job at MPI_Finalize. */
static void memory_failure(int rc, const char *what, char *msg, size_t len) {
  snprintf(msg, len, "out of memory while %s%s", what, rc == -2 ? " (values refused by the writer)" : "");
}

/* Until no call is writing a file's full buffers outside the lock: before
 * a file is closed or given up. */
static void wait_for_writers(void) {
  while (atomic_load(&g.writing)) sleep_ns(1000000);
}

static const char *fn_name(uint32_t fn) { return fn < TF_FN_COUNT ? tf_schema[fn].name : "an MPI call"; }

void tf_call_end(tf_call *c) {
  thread_clock *tc = &ts;
  uint32_t nvals;
  const int64_t *vals = tf_call_values(c, &nvals);
  char msg[768];
  if (c->oom) {
    tf_call_done(c);
    tf_lost_add(1);
    snprintf(msg, sizeof msg, "out of memory while recording %s", fn_name(c->fn));
    tf_recorder_fail(msg);
    return;
  }
  /* compute: from when the previous wrapper returned to the application to
   * just before this one calls the MPI library, so that the recorder's
   * folding and writing is in neither delta (what it does before the MPI
   * call, taking the arguments, is a few ns in the compute delta: one clock
   * read fewer per call). A call made from inside another call (application
   * code that MPI runs, such as a user-defined op) has no compute delta of
   * its own, and leaves the thread's clock to the enclosing call. */
  const int nested = c->depth > 0;
  uint64_t compute = !nested && tc->last_end && c->t0 > tc->last_end ? c->t0 - tc->last_end : 0;
  uint64_t duration = c->t1 > c->t0 ? c->t1 - c->t0 : 0;
  if (g.volume) { /* time-independent: the compute volume; communication is kept as bytes only */
    compute = !nested && tc->last_volume && c->v0 > tc->last_volume ? c->v0 - tc->last_volume : 0;
    duration = 0;
    if (c->v1 && !nested) tc->last_volume = c->v1; /* 0: MPI_Init, whose volume is not measured */
  }
  const char *failure = NULL;
  int quiet = 0;                   /* a write failed: said once per job at MPI_Finalize */
  tf_file_writer *dropped = NULL;  /* mode both: the flat file given up, removed outside the lock */
  tf_file_writer *out[2] = {NULL, NULL}; /* files with full buffers, written outside the lock */
  tf_lock();
  tf_rec_state now = tf_state();
  if (now != TF_STATE_RECORDING) {
    /* the recorder failed during this call: lost. Stopped (a signal, the
     * end of the run on another thread): the call ends after the trace's
     * end, like any call after a partial trace's last event, and is not a
     * loss (counting it made a SIGTERM'd run LOSSY, mpi.signals) */
    if (now == TF_STATE_FAILED) tf_lost_add(1);
  } else {
    int is_new = 0;
    int64_t site = -1;
    char why[512];
    /* the values must fit the function's fields: the readers split them so */
    if (nvals != scalar_nvals[c->fn] &&
        tf_event_fields_why(&tf_schema[c->fn], vals, nvals, why, sizeof why) != TF_OK) {
      snprintf(msg, sizeof msg, "the values recorded for %s do not fit its fields (%s); this is a bug in tracefold",
               fn_name(c->fn), why);
      failure = msg;
    } else if ((site = tf_callsite_index(c->ra, &is_new)) < 0) {
      failure = "cannot determine the call site (out of memory, or no caller frame outside MPI)";
    } else {
      uint32_t si = (uint32_t)site;
      int rc = 0;
      if (is_new) {
        const tf_site *s = tf_callsite_get(si);
        tf_file_writer *w[2] = {g.flat, g.comp};
        for (int i = 0; i < 2 && !failure; i++)
          if (w[i] && (rc = tf_file_writer_callsite(w[i], si, s->sig, s->module, s->offset))) {
            memory_failure(rc, "buffering a call site", msg, sizeof msg);
            failure = msg;
          }
      }
      if (!failure && g.flat &&
          (rc = tf_file_writer_event(g.flat, c->fn, tc->index, si, compute, duration, nvals, vals))) {
        int e = tf_file_writer_error(g.flat);
        if (e != ENOMEM && rc != -2 && g.comp) { /* both: the compressed trace goes on alone */
          g.flat_errno = e ? e : EIO;
          dropped = g.flat;
          g.flat = NULL;
        } else if (e && e != ENOMEM) {
          g.flat_errno = e, quiet = 1;
          failure = "cannot write the flat trace";
        } else {
          memory_failure(rc, "buffering the flat trace", msg, sizeof msg);
          failure = msg;
        }
      }
      if (!failure && g.comp) {
        tf_cst_markers_deliver(&g.compressor, tc->index); /* CST-guided folding: this thread's loop markers first */
        rc = tf_compressor_event(&g.compressor, g.comp, c->fn, tc->index, si, compute, duration, nvals, vals);
        if (rc < 0) {
          int e = tf_file_writer_error(g.comp);
          memory_failure(rc, "folding the trace", msg, sizeof msg);
          failure = msg;
          if (e && e != ENOMEM) g.comp_errno = e, quiet = 1;
        }
        if (rc == 1 && !g.cap_warned) {
          g.cap_warned = 1;
          fprintf(stderr, "tracefold: warning: rank %d: the folded trace reached TRACEFOLD_MEMORY (%zu bytes); it is "
                          "written in segments from here on (still lossless; loops do not fold across segments)\n",
                  g.rank, g.cfg.memory);
        }
      }
    }
    if (failure) tf_lost_add(1);
    if (g.flat && tf_file_writer_pending(g.flat)) out[0] = g.flat;
    if (g.comp && tf_file_writer_pending(g.comp)) out[1] = g.comp;
    if (out[0] || out[1]) atomic_fetch_add(&g.writing, 1); /* the files stay open until it is done */
  }
  tf_unlock();
  tf_call_done(c);
  if (out[0] || out[1]) { /* no disk write under the lock: a slow file system holds up this thread only */
    tf_file_writer_write_out(out[0], 0);
    tf_file_writer_write_out(out[1], 0);
    atomic_fetch_sub(&g.writing, 1);
  }
  if (dropped) {
    wait_for_writers();
    tf_file_writer_abandon(dropped);
  }
  if (failure) {
    if (quiet) tf_recorder_fail_quietly();
    else tf_recorder_fail(failure);
  }
  if (pending_signal) stop_for_signal(0); /* a safe point */
  if (!nested) tc->last_end = tf_now_ns(); /* back to the application */
}

/* ------------------------------------------------------------ lifecycle */

static void stop_run(const char *msg) {
  /* a bad TRACEFOLD_* setting: stop every rank cleanly, one message */
  int bad = msg != NULL, first_bad = INT_MAX, me = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  int mine = bad ? me : INT_MAX;
  PMPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_bad == INT_MAX) return;
  if (first_bad == me) fprintf(stderr, "tracefold: %s (run stopped at MPI_Init)\n", msg);
  PMPI_Finalize();
  exit(2);
}

static const char *exe_path(void) {
  static char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "?";
  buf[n] = 0;
  return buf;
}

static uint64_t wall_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static void sleep_ns(uint64_t ns) {
  struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  nanosleep(&t, NULL);
}

/* Rank 0 creates the trace directory; the others learn its name. */
static int choose_output(void) {
  int ok = 1;
  if (g.rank == 0) {
    if (g.cfg.output) {
      snprintf(g.path, sizeof g.path, "%s", g.cfg.output);
      if (mkdir(g.path, 0777) == 0) g.made_dir = 1;
      else if (errno != EEXIST) ok = 0;
      struct stat sb;
      if (ok && (stat(g.path, &sb) != 0 || !S_ISDIR(sb.st_mode))) ok = 0;
    } else {
      const char *exe = strrchr(exe_path(), '/');
      exe = exe ? exe + 1 : exe_path();
      ok = 0;
      for (int k = 1; k < 10000; k++) {
        if (k == 1)
          snprintf(g.path, sizeof g.path, "tracefold-%.200s-%dp", exe, g.nranks);
        else
          snprintf(g.path, sizeof g.path, "tracefold-%.200s-%dp.%d", exe, g.nranks, k);
        if (mkdir(g.path, 0777) == 0) { /* atomic claim: never reuse an earlier trace */
          ok = g.made_dir = 1;
          break;
        }
        if (errno != EEXIST) break;
      }
    }
    if (!ok) fprintf(stderr, "tracefold: warning: cannot create trace directory %s: %s; not tracing\n", g.path,
                     strerror(errno));
  }
  PMPI_Bcast(&ok, 1, MPI_INT, 0, g.comm);
  PMPI_Bcast(g.path, (int)sizeof g.path, MPI_CHAR, 0, g.comm);
  return ok;
}

/* The run's identity, the same in every file of the run: a random id drawn
 * by rank 0 and its start time. */
static void agree_on_run(void) {
  uint64_t id[2] = {0, wall_ns()};
  if (g.rank == 0 && getrandom(&id[0], sizeof id[0], GRND_NONBLOCK) != (ssize_t)sizeof id[0])
    id[0] = tf_mix(id[1] ^ (uint64_t)getpid() << 32, tf_now_ns());
  if (!id[0]) id[0] = 1; /* 0 means "no run id" (format version 2) */
  PMPI_Bcast(id, 2, MPI_UINT64_T, 0, g.comm);
  g.run_id = id[0];
  g.run_start = id[1];
}

/* TRACEFOLD_VOLUME=on: every rank counts instructions, or (one rank cannot)
 * every rank counts CPU time: a trace has one unit. Said once per job. */
static tf_time_unit start_volume(void) {
  char why[400];
  tf_time_unit unit = tf_volume_start((tf_volume_request)g.cfg.volume, why, sizeof why);
  int fell = g.cfg.volume == TF_VOLUME_ON && unit != TF_UNIT_INSTRUCTIONS, nfell = 0;
  int mine = fell ? g.rank : INT_MAX, first = INT_MAX;
  PMPI_Allreduce(&fell, &nfell, 1, MPI_INT, MPI_SUM, g.comm);
  PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, g.comm);
  if (!nfell) return unit;
  if (!fell) { /* counters work here, not everywhere */
    tf_volume_stop();
    unit = tf_volume_start(TF_VOLUME_CPU, why, sizeof why);
  }
  if (g.rank == first)
    fprintf(stderr, "tracefold: warning: hardware counters unavailable on %d of %d ranks (rank %d: %s); "
                    "TRACEFOLD_VOLUME counts per-thread CPU time instead, on every rank\n", nfell, g.nranks, first, why);
  return unit;
}

/* ------------------------------------------------------------ checkpoints */

/* The folded trace as it stands, into rank-R.tfc (atomically), marked a
 * checkpoint. The state is held only while it is encoded into memory. */
static void checkpoint(void) {
  tf_lock_other();
  if (tf_state() != TF_STATE_RECORDING || !g.comp) {
    tf_unlock_other();
    return;
  }
  atomic_store(&g.ckpt_busy, 1);
  uint64_t t0 = tf_now_ns(), segev = 0;
  tf_buf seg = {0};
  tf_file_snapshot snap;
  int ok = tf_compressor_snapshot(&g.compressor, &seg, &segev) == 0 &&
           tf_file_writer_snapshot(g.comp, seg.data, seg.len, segev, tf_lost(), TF_PARTIAL_CHECKPOINT, &snap) == 0;
  uint64_t held = tf_now_ns() - t0;
  tf_file_writer *comp = g.comp; /* open until ckpt_busy is cleared (write_partial waits for it) */
  tf_unlock_other();
  tf_buf_free(&seg);
  if (ok) {
    tf_file_writer_write_out(comp, 1); /* the snapshot copies what the writer flushed from its file */
    tf_file_snapshot_write(&snap, g.tfc); /* a failure keeps the previous checkpoint; the next one tries again */
    tf_file_snapshot_free(&snap);
  }
  atomic_store(&g.ckpt_busy, 0);
  /* the state is held at most 1% of the time, however large the structure grows */
  uint64_t every = g.ckpt_every > 100 * held ? g.ckpt_every : 100 * held;
  g.ckpt_next = tf_now_ns() + every;
}

static void *recorder_thread(void *arg) {
  (void)arg;
  for (;;) {
    int rc;
    if (g.ckpt_every) {
      struct timespec at = {(time_t)(g.ckpt_next / 1000000000u), (long)(g.ckpt_next % 1000000000u)};
      rc = sem_clockwait(&g.wake, CLOCK_MONOTONIC, &at);
    } else {
      rc = sem_wait(&g.wake);
    }
    if (rc != 0 && errno == EINTR) continue;
    if (atomic_load(&g.quit)) break;
    if (pending_signal) {
      stop_for_signal(1);
      continue;
    }
    if (g.ckpt_every && tf_now_ns() >= g.ckpt_next) checkpoint();
  }
  return NULL;
}

static void start_thread(void) {
  if (sem_init(&g.wake, 0, 0) != 0) return;
  g.ckpt_every = g.comp ? g.cfg.checkpoint_ns : 0;
  /* the first checkpoint now, on the application's thread (the recorder's
   * may not run before a launcher kills the rank): every rank has a
   * readable file from MPI_Init on */
  if (g.ckpt_every) checkpoint();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old); /* the application's threads take its signals */
  g.have_thread = pthread_create(&g.thread, NULL, recorder_thread, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!g.have_thread) sem_destroy(&g.wake);
}

static void stop_thread(void) {
  if (!g.have_thread) return;
  atomic_store(&g.quit, 1);
  sem_post(&g.wake);
  pthread_join(g.thread, NULL);
  sem_destroy(&g.wake);
  g.have_thread = 0;
}

/* ------------------------------------------------------------ stops without MPI_Finalize
 * No merge can happen then: each rank writes what it has as a per-rank
 * compressed file marked partial (and its flat file, in mode both), which
 * every tracefold verb reads. */

static const char *reason_text(uint32_t why) {
  return why == TF_PARTIAL_ABORT ? "MPI_Abort" : why == TF_PARTIAL_SIGNAL ? "a signal" : "an exit without MPI_Finalize";
}

/* The ranks that stop meet in the trace directory before they go on (and
 * die): each appends a byte to one file, and waits until it holds one byte
 * per rank, or MEET_NS at most; the file is removed. */
static void meet_others(void) {
  if (g.nranks < 2) return;
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/.tracefold-stop-%016llx", g.path, (unsigned long long)g.run_id);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd < 0) return;
  ssize_t w = write(fd, "x", 1);
  close(fd);
  uint64_t t0 = tf_now_ns();
  struct stat sb;
  while (w == 1 && stat(path, &sb) == 0 && sb.st_size < g.nranks && tf_now_ns() - t0 < MEET_NS) sleep_ns(2000000);
  unlink(path);
}

/* This rank's files, closed as they stand (the state is ours: recording
 * is over). 0, or the errno of the first that could not be written. */
static int close_files(tf_rec_state was, uint32_t partial) {
  int err = 0;
  wait_for_writers();
  if (g.comp) { /* first: the compressed trace has priority */
    uint64_t lost = tf_lost(), unwritten = g.compressor.nevents;
    /* after a failure the folded structure may be incomplete: written only if recording was healthy */
    if (was != TF_STATE_RECORDING || tf_compressor_finish(&g.compressor, g.comp) != 0) lost += unwritten;
    tf_compressor_free(&g.compressor);
    if (lost) tf_file_writer_lost(g.comp, lost);
    if (partial) tf_file_writer_partial(g.comp, partial);
    int e;
    if (tf_file_writer_close_errno(g.comp, NULL, 0, &e) != TF_OK) err = g.comp_errno = g.comp_errno ? g.comp_errno : e;
    g.comp = NULL;
  }
  if (g.flat) {
    if (tf_lost()) tf_file_writer_lost(g.flat, tf_lost());
    if (partial) tf_file_writer_partial(g.flat, partial);
    int e;
    if (tf_file_writer_close_errno(g.flat, NULL, 0, &e) != TF_OK) {
      g.flat_errno = g.flat_errno ? g.flat_errno : e;
      if (!err) err = g.flat_errno;
    }
    g.flat = NULL;
  } else if (g.flat_errno && !err && !g.comp_errno && g.cfg.mode == TF_MODE_FLAT) {
    err = g.flat_errno;
  }
  return err;
}

/* Recording ends here; the files are written with the partial mark. */
static void write_partial(uint32_t partial, int meet) {
  tf_lock_other();
  tf_rec_state was = tf_state_done();
  tf_unlock_other();
  while (atomic_load(&g.ckpt_busy)) sleep_ns(1000000); /* a checkpoint being written ends first */
  if (was != TF_STATE_RECORDING && was != TF_STATE_FAILED) return;
  int had = g.flat || g.comp || g.flat_errno;
  int err = close_files(was, partial);
  if (had && err)
    fprintf(stderr, "tracefold: warning: rank %d stopped before MPI_Finalize (%s) and could not write its partial "
                    "trace in %s: %s%s\n", g.rank, reason_text(partial), g.path, strerror(err),
            g.ckpt_every ? " (its last checkpoint stays)" : "");
  else if (had && (g.rank == 0 || partial == TF_PARTIAL_ABORT || g.cfg.verbose))
    fprintf(stderr, "tracefold: rank %d stopped before MPI_Finalize (%s); its partial trace is in %s\n", g.rank,
            reason_text(partial), g.path);
  if (meet) meet_others();
}

static void restore_handlers(void) {
  if (!g.handlers) return;
  sigaction(SIGTERM, &g.old_term, NULL);
  sigaction(SIGINT, &g.old_int, NULL);
  g.handlers = 0;
}

/* SIGTERM or SIGINT arrived: the partial files, then what would have
 * happened without us. On the recorder's thread, or at a safe point of
 * an application thread (whichever comes first). */
static void stop_for_signal(int on_recorder_thread) {
  int sig = pending_signal;
  if (!sig || atomic_exchange(&g.stopping, 1)) return;
  write_partial(TF_PARTIAL_SIGNAL, 1);
  atomic_store(&g.stopped, 1);
  restore_handlers();
  if (on_recorder_thread) kill(getpid(), sig); /* the application's threads take it (this one blocks it) */
  else raise(sig);
}

/* The handler records the signal and wakes the recorder's thread: nothing
 * else (no lock, no allocation, no I/O). When there is nothing to record
 * for (another process after a fork, recording over), the signal goes on
 * to what was there before. */
static void on_signal(int sig) {
  tf_rec_state st = tf_state();
  if (getpid() != g.pid || atomic_load(&g.stopping) || (st != TF_STATE_RECORDING && st != TF_STATE_FAILED)) {
    sigaction(sig, sig == SIGTERM ? &g.old_term : &g.old_int, NULL);
    raise(sig);
    return;
  }
  if (!pending_signal) pending_signal = sig;
  if (g.have_thread) sem_post(&g.wake);
}

static void on_exit_without_finalize(void) {
  if (!g.started || atomic_exchange(&g.stopping, 1)) return;
  tf_rec_state st = tf_state();
  if (st != TF_STATE_RECORDING && st != TF_STATE_FAILED) return;
  write_partial(TF_PARTIAL_EXIT, 1);
  atomic_store(&g.stopped, 1);
}

static void catch_stops(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, &g.old_term);
  sigaction(SIGINT, &sa, &g.old_int);
  g.handlers = 1;
  atexit(on_exit_without_finalize);
}

/* ------------------------------------------------------------ start */

void tf_recorder_start(int init_rc) {
  if (init_rc != MPI_SUCCESS) return;
  g.started = 1;
  g.pid = getpid();
  char err[512];
  int bad = tf_config_read(&g.cfg, err, sizeof err);
  stop_run(bad ? err : NULL);
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g.nranks);
  PMPI_Query_thread(&g.provided);
  tf_runtime_init(g.rank, g.provided == MPI_THREAD_MULTIPLE);
  for (uint32_t f = 0; f < TF_FN_COUNT; f++)
    scalar_nvals[f] = tf_func_all_scalar(&tf_schema[f]) ? (uint32_t)tf_schema[f].nfields : UINT32_MAX;
  /* the thread that initialised MPI is thread 0; its first compute delta runs from library load */
  ts.registered = 1;
  ts.index = atomic_fetch_add(&g.nthreads, 1);
  ts.last_end = g.t_load;
  if (g.cfg.mode == TF_MODE_OFF) return;
  PMPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  /* the duplicate inherits MPI_COMM_WORLD's handler (usually fatal): an MPI
   * error in the recorder's own communication (the merge) must come back as
   * an error code, for a fallback to per-rank files, not abort the program */
  PMPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN);
  g.unit = TF_UNIT_NS;
  if (g.cfg.volume != TF_VOLUME_OFF) { /* MPI_Init's own compute volume is 0: counting starts here */
    g.unit = start_volume();
    ts.last_volume = tf_volume_now();
    g.volume = 1;
  }
  if (tf_object_ids_init() != 0) {
    tf_recorder_fail("out of memory at MPI_Init");
    return;
  }
  if (!choose_output()) return;
  agree_on_run();
  /* the merge at MPI_Finalize is collective: from here on every rank takes
   * part, with or without a trace of its own (a rank whose files cannot be
   * opened below sends a failure mark) */
  g.merging = g.cfg.mode == TF_MODE_COMPRESSED || g.cfg.mode == TF_MODE_BOTH;
  char file[PATH_MAX + 32], lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
  int liblen = 0;
  PMPI_Get_library_version(lib, &liblen);
  lib[strcspn(lib, "\n")] = 0;
  tf_file_info info = {.rank = g.rank,
                       .nranks = g.nranks,
                       .thread_level = g.provided,
                       .start_unix_ns = wall_ns(),
                       .exe = exe_path(),
                       .mpi = lib,
                       .timing = g.cfg.timing,
                       .bins = g.cfg.bins,
                       .unit = g.unit,
                       .nfuncs = TF_FN_COUNT,
                       .funcs = tf_schema,
                       .run_id = g.run_id,
                       .run_start_unix_ns = g.run_start};
  /* both files are created when first flushed (1 MiB) or closed: nothing on disk before there is something */
  if (g.cfg.mode == TF_MODE_FLAT || g.cfg.mode == TF_MODE_BOTH) {
    snprintf(file, sizeof file, "%s/rank-%d.flat", g.path, g.rank);
    if (!(g.flat = tf_file_writer_open_lazy(file, TF_FILE_FLAT, &info, err, sizeof err))) {
      tf_recorder_fail(err);
      return;
    }
    tf_file_writer_defer(g.flat); /* written outside the lock (tf_call_end) */
    tf_file_writer_checked(g.flat); /* tf_call_end checks the values against tf_schema */
  }
  if (g.cfg.mode == TF_MODE_COMPRESSED || g.cfg.mode == TF_MODE_BOTH) {
    snprintf(g.tfc, sizeof g.tfc, "%s/rank-%d.tfc", g.path, g.rank);
    if (!(g.comp = tf_file_writer_open_lazy(g.tfc, TF_FILE_COMPRESSED, &info, err, sizeof err))) {
      tf_recorder_fail(err);
      return;
    }
    tf_file_writer_defer(g.comp); /* the folder's segments too (TRACEFOLD_MEMORY) */
    if (tf_compressor_init(&g.compressor, tf_schema, TF_FN_COUNT, g.cfg.memory)) {
      tf_recorder_fail("out of memory at MPI_Init");
      return;
    }
    tf_compressor_set_timing(&g.compressor, (tf_timing_mode)g.cfg.timing, g.cfg.bins);
    tf_compressor_set_flat_window(&g.compressor, g.cfg.flat_window);
    g.compressor.cst_guided = tf_cst_guided_program(); /* built by tracefold-cc: guided from the first event */
  }
  tf_state_recording();
  start_thread();
  catch_stops();
}

/* ------------------------------------------------------------ MPI_Finalize */

/* What every rank did, agreed on: rank 0 says it once for the job. */
typedef struct outcome {
  int merged;          /* trace.tf was written */
  int merge_failed;    /* the merge (or writing its result) failed */
  int kept, lost_file; /* merge failed: ranks that kept their rank-R.tfc, ranks that could not */
  int file_errno;      /* first errno of a rank file (or trace.tf) that could not be written */
  int flat_failed;     /* ranks whose flat file could not be written */
  int flat_errno;
  int stopped;         /* ranks that had stopped on a signal before (they reported it) */
} outcome;

/* The first rank (MPI_MIN) with `mine` set says `value`; everyone gets it. */
static int from_first(int mine, int value) {
  int me = mine ? g.rank : INT_MAX, first = INT_MAX;
  PMPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, g.comm);
  if (first == INT_MAX) return 0;
  PMPI_Bcast(&value, 1, MPI_INT, first, g.comm);
  return value;
}

static int sum(int v) {
  int total = 0;
  PMPI_Allreduce(&v, &total, 1, MPI_INT, MPI_SUM, g.comm);
  return total;
}

static void report(const outcome *o, const char *why, uint64_t merge_ns) {
  if (g.rank != 0) return;
  char out[PATH_MAX + 16];
  snprintf(out, sizeof out, "%s/%s", g.path, TF_TRACE_FILE);
  if (o->merged && o->flat_failed)
    fprintf(stderr, "tracefold: warning: the flat files (rank-R.flat) could not be written on %d of %d ranks (%s); "
                    "the merged trace %s is complete\n", o->flat_failed, g.nranks, strerror(o->flat_errno), out);
  else if (o->merged && g.cfg.verbose)
    fprintf(stderr, "tracefold: trace written to %s (%d ranks, merged in %.1f ms)%s\n", out, g.nranks,
            (double)merge_ns / 1e6, g.cfg.mode == TF_MODE_BOTH ? ", with each rank's rank-R.flat beside it" : "");
  if (o->merged || o->stopped) return;
  if (!g.merging) { /* mode flat */
    if (o->flat_failed)
      fprintf(stderr, "tracefold: warning: the flat files (rank-R.flat) could not be written on %d of %d ranks in %s: "
                      "%s\n", o->flat_failed, g.nranks, g.path, strerror(o->flat_errno));
    else if (g.cfg.verbose)
      fprintf(stderr, "tracefold: flat trace written to %s (rank-R.flat, %d ranks)\n", g.path, g.nranks);
    return;
  }
  if (o->kept == g.nranks)
    fprintf(stderr, "tracefold: warning: the ranks' traces could not be merged (%s); each rank's file is in %s "
                    "(`tracefold merge %s` merges them)\n", why, g.path, g.path);
  else if (o->kept)
    fprintf(stderr, "tracefold: warning: the ranks' traces could not be merged (%s); %d of %d ranks kept their file "
                    "in %s (`tracefold merge %s` merges what is there), the others could not write theirs: %s\n", why,
            o->kept, g.nranks, g.path, g.path, strerror(o->file_errno ? o->file_errno : EIO));
  else
    fprintf(stderr, "tracefold: warning: no trace was written in %s (%s)\n", g.path,
            o->file_errno ? strerror(o->file_errno) : why);
}

static int out_of_space(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

void tf_recorder_before_finalize(void) {
  if (!g.started || g.comm == MPI_COMM_NULL) return;
  stop_thread(); /* no checkpoint or stop from here on (a stop under way ends first) */
  restore_handlers();
  tf_lock_other();
  tf_rec_state was = tf_state_done();
  tf_unlock_other();
  wait_for_writers();
  int stopped = atomic_load(&g.stopped) || atomic_load(&g.stopping);
  char err[512] = "";
  uint8_t *mine = NULL;
  size_t len = 0;
  int on_disk = 0, recorded = was == TF_STATE_RECORDING || was == TF_STATE_FAILED;
  outcome o = {0};
  if (g.comp && !stopped && recorded) {
    uint64_t lost = tf_lost(), unwritten = g.compressor.nevents;
    if (was != TF_STATE_RECORDING || tf_compressor_finish(&g.compressor, g.comp) != 0) lost += unwritten;
    if (g.cfg.verbose && g.compressor.flat_events)
      fprintf(stderr, "tracefold: rank %d: %llu events kept in flat runs (folding did not pay)\n", g.rank,
              (unsigned long long)g.compressor.flat_events);
    tf_compressor_free(&g.compressor);
    if (lost) tf_file_writer_lost(g.comp, lost);
    int e = tf_file_writer_error(g.comp);
    if (tf_file_writer_finish_mem(g.comp, &mine, &len, &on_disk, err, sizeof err) != TF_OK) {
      g.comp_errno = e ? e : EIO;
      free(mine);
      mine = NULL;
    }
    g.comp = NULL;
  }
  if (g.comp) { /* never recorded (a failure at MPI_Init) */
    tf_compressor_free(&g.compressor);
    tf_file_writer_abandon(g.comp);
    g.comp = NULL;
  }
  tf_buf merged = {0};
  uint64_t merge_ns = 0;
  int merge_ok = 0, had_mine = mine != NULL; /* the rank's file was read back (the merge may free mine since) */
  if (g.merging) {
    /* a file complete on disk is not needed in memory any more once read (the merge drops it) */
    merge_ok = tf_merge_ranks(g.comm, g.rank, g.nranks, &mine, len, on_disk, &merged, &merge_ns, err, sizeof err) == 0;
    int werr = 0;
    char out[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/%s", g.path, TF_TRACE_FILE);
    if (merge_ok && g.rank == 0) werr = tf_save_file(out, merged.data, merged.len);
    if (merge_ok) PMPI_Bcast(&werr, 1, MPI_INT, 0, g.comm);
    if (werr && out_of_space(werr)) {
      /* room for the merged trace: the checkpoints go (each rank still holds its
       * whole trace, written below if this fails again), and the flat files */
      if (!on_disk) remove(g.tfc);
      if (g.flat) {
        g.flat_errno = g.flat_errno ? g.flat_errno : werr;
        tf_file_writer_abandon(g.flat);
        g.flat = NULL;
      }
      PMPI_Barrier(g.comm);
      if (g.rank == 0) werr = tf_save_file(out, merged.data, merged.len);
      PMPI_Bcast(&werr, 1, MPI_INT, 0, g.comm);
    }
    tf_buf_free(&merged);
    if (merge_ok && werr) {
      merge_ok = 0;
      if (g.rank == 0) snprintf(err, sizeof err, "cannot write %.300s: %s", out, strerror(werr));
      o.file_errno = werr;
    }
    o.merged = merge_ok;
  }
  if (o.merged) remove(g.tfc); /* the checkpoint, or the rank's file completed on disk */
  /* the flat files, complete */
  if (g.flat && !stopped && recorded) {
    if (tf_lost()) tf_file_writer_lost(g.flat, tf_lost());
    int e;
    if (tf_file_writer_close_errno(g.flat, NULL, 0, &e) != TF_OK) g.flat_errno = g.flat_errno ? g.flat_errno : e;
    g.flat = NULL;
  }
  tf_file_writer_abandon(g.flat); /* never recorded */
  g.flat = NULL;
  /* no merge: each rank keeps its own file */
  int kept = 0, file_errno = 0;
  if (g.merging && !o.merged && !stopped) {
    if (mine && !on_disk) file_errno = tf_save_file(g.tfc, mine, len);
    else if (!had_mine) file_errno = g.comp_errno ? g.comp_errno : ENOMEM;
    kept = !file_errno;
    if (!kept) remove(g.tfc); /* no checkpoint of a run that went to its end */
  }
  free(mine);
  o.stopped = sum(stopped);
  if (g.merging && !o.merged) {
    o.kept = sum(kept);
    int e = from_first(file_errno != 0, file_errno);
    if (!o.file_errno) o.file_errno = e;
    /* the reason, from the first rank that has one */
    int has = err[0] != 0, first = INT_MAX, me = has ? g.rank : INT_MAX;
    PMPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, g.comm);
    if (first != INT_MAX) PMPI_Bcast(err, (int)sizeof err, MPI_CHAR, first, g.comm);
  }
  o.flat_failed = sum(g.flat_errno != 0);
  o.flat_errno = from_first(g.flat_errno != 0, g.flat_errno);
  report(&o, err[0] ? err : "see the other ranks", merge_ns);
  if (g.rank == 0 && g.made_dir && !o.merged && !o.kept && !o.stopped)
    rmdir(g.path); /* nothing was kept: no empty trace directory (only if it is empty) */
  PMPI_Comm_free(&g.comm);
}

void tf_recorder_stop(void) {
  if (g.started && (g.comp || g.flat)) { /* MPI_Finalize without before_finalize (never the case): close what is open */
    tf_lock_other();
    tf_rec_state was = tf_state_done();
    tf_unlock_other();
    close_files(was, 0);
  }
  if (g.volume) tf_volume_stop();
  tf_callsites_free();
  tf_object_ids_free();
}

void tf_recorder_abort(void) {
  if (!g.started || atomic_exchange(&g.stopping, 1)) return;
  stop_thread();
  write_partial(TF_PARTIAL_ABORT, 0);
  atomic_store(&g.stopped, 1);
}
