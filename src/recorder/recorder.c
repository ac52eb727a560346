/* recorder.c — the recorder's lifecycle and event path.
 *
 * MPI_Init (wrapper) -> tf_recorder_start: read TRACEFOLD_* (a bad value
 *   stops every rank here with one message), build the object tables, pick
 *   the output, open this rank's sink.
 * Every intercepted call -> tf_call_begin / tf_put... / tf_call_end: values
 *   go into a per-thread buffer; tf_call_end stamps the compute and
 *   communication deltas and appends the event to the sink under a lock
 *   (a real mutex only with MPI_THREAD_MULTIPLE).
 * MPI_Finalize -> tf_recorder_before_finalize (last moment MPI is usable),
 *   then tf_recorder_stop closes the trace.
 *
 * Failure policy: the traced application must never be broken. Any internal
 * failure (memory, I/O) prints one warning, stops recording and keeps what
 * was written; the trace then carries the number of calls not recorded.
 *
 * What the other recorder modules share with this one (the clock, the
 * lock, the recording state and failure latch, the call's value buffer) is
 * in runtime.c; this file keeps the rest of the session to itself.
 */
#define _GNU_SOURCE
#include "session.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "callsite.h"
#include "config.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "object_ids.h"
#include "rank_merge.h"
#include "runtime.h"
#include "tf_schema.h"
#include "volume.h"

/* A thread's place in the event path: its index, and where its next
 * compute delta starts. */
typedef struct thread_clock {
  int registered;
  uint32_t index;
  uint64_t last_end;
  uint64_t last_volume; /* time-independent mode: the volume counter when its last call ended */
} thread_clock;

static struct {
  int started; /* tf_recorder_start ran */
  int rank, nranks, provided;
  tf_config cfg;
  char path[PATH_MAX];
  tf_file_writer *flat;  /* rank-R.flat (modes flat, both) */
  tf_file_writer *comp;  /* rank-R.tfc (modes compressed, both) */
  tf_compressor compressor;
  int cap_warned;
  int volume;        /* time-independent mode (TRACEFOLD_VOLUME): compute deltas are volumes */
  tf_time_unit unit; /* of compute deltas */
  int merging;   /* every rank takes part in the merge at MPI_Finalize */
  MPI_Comm comm; /* private duplicate of MPI_COMM_WORLD */
  struct sigaction old_term, old_int;
  uint64_t t_load;
  _Atomic uint32_t nthreads;
} g = {.comm = MPI_COMM_NULL};

static _Thread_local thread_clock ts;
static _Thread_local volatile sig_atomic_t in_record; /* this thread is inside tf_call_end's locked part */
static volatile sig_atomic_t pending_signal;           /* arrived while in_record: handled when it ends */

static void close_trace(uint32_t partial);
static void on_signal_now(int sig);

__attribute__((constructor)) static void tf_on_load(void) { g.t_load = tf_now_ns(); }

/* A program whose MPI calls never reach the recorder (MPICH's mpi_f08
 * bindings call the library internally) must not go silently untraced. */
__attribute__((destructor)) static void tf_on_unload(void) {
  if (g.started) return;
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (init || fin)
    fprintf(stderr, "tracefold: warning: this program used MPI but its calls never reached tracefold (the mpi_f08 "
                    "bindings of this MPI library are not intercepted); no trace was written\n");
}

/* ------------------------------------------------------------ the call */

static void register_thread(thread_clock *th) {
  th->registered = 1;
  th->index = atomic_fetch_add(&g.nthreads, 1);
  th->last_end = 0; /* first event of a thread: compute delta 0 */
  th->last_volume = 0;
}

int tf_call_begin(tf_call *c, uint32_t fn, void *ra) {
  tf_rec_state st = tf_state();
  if (st != TF_STATE_RECORDING) {
    if (st == TF_STATE_FAILED) tf_lost_add(1);
    return 0;
  }
  if (!ts.registered) register_thread(&ts);
  tf_call_init(c, fn, ra);
  c->te = tf_now_ns();
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

void tf_call_end(tf_call *c) {
  tf_thread *th = c->th; /* its values */
  thread_clock *tc = &ts;
  if (th->oom) {
    tf_lost_add(1);
    tf_recorder_fail("out of memory while recording a call");
    return;
  }
  /* compute: from when the previous wrapper returned to the application to
   * when this one was entered, so that the recorder's own work is in neither
   * delta (MPI_Init's wrapper is entered after PMPI_Init: its t0 is earlier) */
  uint64_t enter = c->te && c->te < c->t0 ? c->te : c->t0;
  uint64_t compute = tc->last_end && enter > tc->last_end ? enter - tc->last_end : 0;
  uint64_t duration = c->t1 > c->t0 ? c->t1 - c->t0 : 0;
  if (g.volume) { /* time-independent: the compute volume; communication is kept as bytes only */
    compute = tc->last_volume && c->v0 > tc->last_volume ? c->v0 - tc->last_volume : 0;
    duration = 0;
    if (c->v1) tc->last_volume = c->v1; /* 0: MPI_Init, whose volume is not measured */
  }
  const char *failure = NULL;
  in_record = 1;
  tf_lock();
  if (tf_state() != TF_STATE_RECORDING) {
    tf_lost_add(1); /* the recorder failed during this call */
  } else {
    int is_new = 0;
    int64_t site = tf_callsite_index(c->ra, &is_new);
    if (site < 0) {
      failure = "cannot determine the call site (out of memory, or no caller frame outside MPI)";
    } else {
      uint32_t si = (uint32_t)site;
      if (is_new) {
        const tf_site *s = tf_callsite_get(si);
        if ((g.flat && tf_file_writer_callsite(g.flat, si, s->sig, s->module, s->offset)) ||
            (g.comp && tf_file_writer_callsite(g.comp, si, s->sig, s->module, s->offset)))
          failure = "out of memory in the trace buffer";
      }
      if (!failure && g.flat &&
          tf_file_writer_event(g.flat, c->fn, tc->index, si, compute, duration, th->nvals, th->vals))
        failure = "cannot write the trace (out of memory or I/O error)";
      if (!failure && g.comp) {
        int rc = tf_compressor_event(&g.compressor, g.comp, c->fn, tc->index, si, compute, duration, th->nvals,
                                     th->vals);
        if (rc < 0) failure = "cannot fold or write the compressed trace (out of memory or I/O error)";
        if (rc == 1 && !g.cap_warned) {
          g.cap_warned = 1;
          fprintf(stderr, "tracefold: warning: rank %d: the folded trace reached TRACEFOLD_MEMORY (%zu bytes); it is "
                          "written in segments from here on (still lossless; loops do not fold across segments)\n",
                  g.rank, g.cfg.memory);
        }
      }
    }
    if (failure) tf_lost_add(1);
  }
  tf_unlock();
  in_record = 0;
  if (pending_signal) on_signal_now(pending_signal);
  if (failure) tf_recorder_fail(failure);
  tc->last_end = tf_now_ns(); /* back to the application */
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

/* Rank 0 creates the trace directory; the others learn its name. */
static int choose_output(void) {
  int ok = 1;
  if (g.rank == 0) {
    if (g.cfg.output) {
      snprintf(g.path, sizeof g.path, "%s", g.cfg.output);
      if (mkdir(g.path, 0777) != 0 && errno != EEXIST) ok = 0;
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
          ok = 1;
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

/* ------------------------------------------------------------ stops without MPI_Finalize
 * No merge can happen then: each rank writes what it has as a per-rank
 * compressed file marked partial (and its flat file, in mode both), which
 * every tracefold verb reads. A signal that arrives while this thread is
 * recording an event is handled right after the event. */
static void on_signal_now(int sig) {
  pending_signal = 0;
  close_trace(TF_PARTIAL_SIGNAL);
  /* then what would have happened without us */
  sigaction(sig, sig == SIGTERM ? &g.old_term : &g.old_int, NULL);
  raise(sig);
}

static void on_signal(int sig) {
  if (in_record) {
    pending_signal = sig;
    return;
  }
  on_signal_now(sig);
}

static void on_exit_without_finalize(void) { close_trace(TF_PARTIAL_EXIT); }

static void catch_stops(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &g.old_term);
  sigaction(SIGINT, &sa, &g.old_int);
  atexit(on_exit_without_finalize);
}

void tf_recorder_start(int init_rc) {
  if (init_rc != MPI_SUCCESS) return;
  g.started = 1;
  char err[512];
  int bad = tf_config_read(&g.cfg, err, sizeof err);
  stop_run(bad ? err : NULL);
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g.nranks);
  PMPI_Query_thread(&g.provided);
  tf_runtime_init(g.rank, g.provided == MPI_THREAD_MULTIPLE);
  /* the thread that initialised MPI is thread 0; its first compute delta runs from library load */
  ts.registered = 1;
  ts.index = atomic_fetch_add(&g.nthreads, 1);
  ts.last_end = g.t_load;
  if (g.cfg.mode == TF_MODE_OFF) return;
  g.unit = TF_UNIT_NS;
  if (g.cfg.volume != TF_VOLUME_OFF) { /* MPI_Init's own compute volume is 0: counting starts here */
    g.unit = tf_volume_start((tf_volume_request)g.cfg.volume);
    ts.last_volume = tf_volume_now();
    g.volume = 1;
  }
  if (tf_object_ids_init() != 0) {
    tf_recorder_fail("out of memory at MPI_Init");
    return;
  }
  PMPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  if (!choose_output()) return;
  /* the merge at MPI_Finalize is collective: from here on every rank takes
   * part, with or without a trace of its own (a rank whose files cannot be
   * opened below sends a failure mark) */
  g.merging = g.cfg.mode == TF_MODE_COMPRESSED || g.cfg.mode == TF_MODE_BOTH;
  char file[PATH_MAX + 32], lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
  int liblen = 0;
  PMPI_Get_library_version(lib, &liblen);
  lib[strcspn(lib, "\n")] = 0;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  tf_file_info info = {.rank = g.rank,
                       .nranks = g.nranks,
                       .thread_level = g.provided,
                       .start_unix_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec,
                       .exe = exe_path(),
                       .mpi = lib,
                       .timing = g.cfg.timing,
                       .bins = g.cfg.bins,
                       .unit = g.unit,
                       .nfuncs = TF_FN_COUNT,
                       .funcs = tf_schema};
  if (g.cfg.mode == TF_MODE_FLAT || g.cfg.mode == TF_MODE_BOTH) {
    snprintf(file, sizeof file, "%s/rank-%d.flat", g.path, g.rank);
    if (!(g.flat = tf_file_writer_open(file, TF_FILE_FLAT, &info, err, sizeof err))) {
      tf_recorder_fail(err);
      return;
    }
  }
  catch_stops();
  if (g.cfg.mode == TF_MODE_COMPRESSED || g.cfg.mode == TF_MODE_BOTH) {
    snprintf(file, sizeof file, "%s/rank-%d.tfc", g.path, g.rank);
    if (!(g.comp = tf_file_writer_open_lazy(file, TF_FILE_COMPRESSED, &info, err, sizeof err))) {
      tf_recorder_fail(err);
      return;
    }
    if (tf_compressor_init(&g.compressor, tf_schema, TF_FN_COUNT, g.cfg.memory)) {
      tf_recorder_fail("out of memory at MPI_Init");
      return;
    }
    tf_compressor_set_timing(&g.compressor, (tf_timing_mode)g.cfg.timing, g.cfg.bins);
  }
  tf_state_recording();
}

static void close_writer(tf_file_writer **w, uint64_t lost, uint32_t partial) {
  if (!*w) return;
  char err[512];
  if (lost) tf_file_writer_lost(*w, lost);
  if (partial) tf_file_writer_partial(*w, partial);
  if (tf_file_writer_close(*w, err, sizeof err) != TF_OK) fprintf(stderr, "tracefold: warning: rank %d: %s\n", g.rank, err);
  *w = NULL;
}

/* Stop recording and write the last folded segment into the compressed
 * writer (under the lock). Returns the calls not recorded in it. */
static uint64_t stop_folding(tf_rec_state was) {
  uint64_t lost = tf_lost();
  if (!g.comp) return lost;
  uint64_t unwritten = g.compressor.nevents; /* folded since the last segment (finish resets it) */
  /* after a failure the folded structure may be incomplete: write it only if recording was healthy */
  if (was != TF_STATE_RECORDING || tf_compressor_finish(&g.compressor, g.comp) != 0) {
    if (was == TF_STATE_RECORDING)
      fprintf(stderr, "tracefold: warning: rank %d: cannot write the last segment of the compressed trace\n", g.rank);
    lost += unwritten;
  }
  tf_compressor_free(&g.compressor);
  return lost;
}

/* Per-rank files, complete or partial. */
static void close_trace(uint32_t partial) {
  tf_lock();
  int had = g.flat || g.comp;
  tf_rec_state was = tf_state_done();
  uint64_t lost = stop_folding(was);
  close_writer(&g.flat, tf_lost(), partial);
  close_writer(&g.comp, lost, partial);
  tf_unlock();
  if (had && partial)
    fprintf(stderr, "tracefold: rank %d stopped before MPI_Finalize; its partial trace is in %s\n", g.rank, g.path);
}

/* The merge at MPI_Finalize: one trace file for all ranks. */
static void merge_trace(void) {
  tf_lock();
  tf_rec_state was = tf_state_done();
  uint64_t lost = stop_folding(was);
  close_writer(&g.flat, tf_lost(), 0);
  uint8_t *mine = NULL;
  size_t len = 0;
  int on_disk = 0;
  char err[512] = "";
  if (g.comp) {
    if (lost) tf_file_writer_lost(g.comp, lost);
    if (tf_file_writer_finish_mem(g.comp, &mine, &len, &on_disk, err, sizeof err) != TF_OK)
      fprintf(stderr, "tracefold: warning: rank %d: %s\n", g.rank, err);
    g.comp = NULL;
  }
  tf_unlock();
  char out[PATH_MAX + 16], file[PATH_MAX + 32];
  snprintf(out, sizeof out, "%s/%s", g.path, TF_TRACE_FILE);
  snprintf(file, sizeof file, "%s/rank-%d.tfc", g.path, g.rank);
  uint64_t merge_ns = 0;
  if (tf_merge_ranks(g.comm, g.rank, g.nranks, mine, len, out, &merge_ns, err, sizeof err) == 0) {
    if (on_disk) remove(file);
    if (g.rank == 0)
      fprintf(stderr, "tracefold: trace written to %s (%d ranks, merged in %.1f ms)\n", out, g.nranks,
              (double)merge_ns / 1e6);
  } else {
    /* keep every rank's own file instead: the tools read and merge them */
    FILE *f = on_disk || !mine ? NULL : fopen(file, "wb");
    if (f) {
      if (fwrite(mine, 1, len, f) != len) fprintf(stderr, "tracefold: warning: rank %d: cannot write %s\n", g.rank, file);
      fclose(f);
    }
    if (err[0] || g.rank == 0)
      fprintf(stderr, "tracefold: warning: rank %d: the ranks' traces could not be merged (%s); each rank's file is "
                      "in %s (`tracefold merge %s` merges them)\n", g.rank, err[0] ? err : "see the other ranks",
              g.path, g.path);
  }
  free(mine);
}

void tf_recorder_before_finalize(void) {
  if (g.merging) merge_trace();
  if (g.comm != MPI_COMM_NULL) PMPI_Comm_free(&g.comm);
}

void tf_recorder_stop(void) {
  close_trace(0);
  if (g.volume) tf_volume_stop();
  tf_callsites_free();
  tf_object_ids_free();
}

void tf_recorder_abort(void) { close_trace(TF_PARTIAL_ABORT); }
