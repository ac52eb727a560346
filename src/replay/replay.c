/* replay.c — tracefold-replay: run a trace's MPI calls again under MPI.
 *
 *   mpirun -np P tracefold-replay [options] TRACE
 *   smpirun -np P ... tracefold-sim [options] TRACE   (the same, simulated)
 *
 * Every rank opens the trace, checks that it can replay it (P ranks, known
 * functions, timing for the chosen compute mode), then walks its own events
 * through a rank cursor: the loops stay folded, nothing is unrolled into
 * memory. Before each call it computes the delay the trace keeps
 * (delay.c), then issues the call (tf_replay_calls.c). Each recorded
 * thread of a rank is replayed by a thread of its own; the threads start
 * their calls in the recorded order. At MPI_Finalize rank 0 reports the
 * replay's wall time (simulated time under SimGrid) next to the recorded
 * one, each rank's compute and MPI time, and the calls and bytes per
 * function. Exit status: 0, 2 for bad use or a trace it cannot replay.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "trace_share.h"
#include "tf_replay_portable.h"
#ifdef TF_SIMGRID
#include <simgrid/version.h>
#endif

#ifdef TF_SIMGRID
#define LAUNCH "smpirun -np P -platform XML -hostfile HOSTS"
#else
#define LAUNCH "mpirun -np P"
#endif

static const char usage[] =
    "usage: " LAUNCH " " RP_PROGRAM " [options] TRACE\n"
    "  TRACE                 trace.tf, a trace directory, or per-rank files' directory\n"
    "  --compute MODE        none | mean | histogram (default): compute delays from the trace\n"
    "  --sleep               sleep through compute delays (default: busy-wait)\n"
    "  --scale X             multiply compute delays by X (default 1)\n"
    "  --rate R              time-independent traces: compute units per second\n"
    "                        (instructions: required; cpu-ns: default 1e9)\n"
    "  --seed N              seed of the histogram draws (default 1)\n"
    "  --any-source          keep wildcard receives as MPI_ANY_SOURCE (default: the recorded source)\n"
    "  --flat                a directory with flat reference files: replay those (exact deltas)\n"
    "  --quiet               no per-function table in the report\n"
    "  --report FILE         also write the report's figures to FILE (key value lines)\n"
#ifndef TF_SIMGRID
    "  --io-dir DIR          MPI-IO: open the recorded files in DIR (default: a new\n"
    "                        directory under $TMPDIR, removed at the end)\n"
    "  --io skip             MPI-IO: touch no file; each I/O call takes its recorded time\n"
#endif
#ifdef TF_SIMGRID
    "  --ref-speed F         flop/s of the recording host: a second of compute is F flops\n"
    "                        on the simulated host (default 1e9; also the default --rate\n"
    "                        of instruction traces)\n"
#endif
    ;

/* ------------------------------------------------------------ options */

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= 0) || v > 1e30) return -1;
  *out = v;
  return 0;
}

/* 0, or -1 with a message in err. */
static int parse_options(int argc, char **argv, rp_options *o, char *err, size_t errlen) {
  *o = (rp_options){.compute = RP_COMPUTE_HISTOGRAM, .scale = 1, .seed = 1, .ref_speed = 1e9};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--compute") == 0 && more) {
      const char *m = argv[++i];
      if (strcmp(m, "none") == 0) o->compute = RP_COMPUTE_NONE;
      else if (strcmp(m, "mean") == 0) o->compute = RP_COMPUTE_MEAN;
      else if (strcmp(m, "histogram") == 0) o->compute = RP_COMPUTE_HISTOGRAM;
      else return snprintf(err, errlen, "--compute %s: expected none, mean or histogram", m), -1;
    } else if (strcmp(a, "--sleep") == 0) {
      o->sleep = 1;
    } else if (strcmp(a, "--scale") == 0 && more) {
      if (parse_double(argv[++i], &o->scale)) return snprintf(err, errlen, "--scale %s: expected a number >= 0", argv[i]), -1;
    } else if (strcmp(a, "--rate") == 0 && more) {
      if (parse_double(argv[++i], &o->rate) || o->rate <= 0)
        return snprintf(err, errlen, "--rate %s: expected a number > 0 (units per second)", argv[i]), -1;
    } else if (strcmp(a, "--seed") == 0 && more) {
      char *end;
      errno = 0;
      o->seed = strtoull(argv[++i], &end, 10);
      if (errno || end == argv[i] || *end) return snprintf(err, errlen, "--seed %s: expected an integer", argv[i]), -1;
    } else if (strcmp(a, "--any-source") == 0) {
      o->any_source = 1;
    } else if (strcmp(a, "--flat") == 0) {
      o->flat = 1;
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
    } else if (strcmp(a, "--report") == 0 && more) {
      o->report = argv[++i];
#ifdef TF_SIMGRID
    } else if (strcmp(a, "--ref-speed") == 0 && more) {
      if (parse_double(argv[++i], &o->ref_speed) || o->ref_speed <= 0)
        return snprintf(err, errlen, "--ref-speed %s: expected a speed > 0 (flop/s)", argv[i]), -1;
#endif
    } else if (strcmp(a, "--io-dir") == 0 && more) {
      o->io_dir = argv[++i];
    } else if (strcmp(a, "--io") == 0 && more) {
      const char *m = argv[++i];
      if (strcmp(m, "skip") == 0) o->io_skip = 1;
      else if (strcmp(m, "perform") == 0) o->io_skip = 0;
      else return snprintf(err, errlen, "--io %s: expected skip or perform", m), -1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      return snprintf(err, errlen, "%s", usage), -1;
    } else if (a[0] == '-' && a[1]) {
      return snprintf(err, errlen, "unknown option %s (or it lacks its value)\n%s", a, usage), -1;
    } else if (o->trace) {
      return snprintf(err, errlen, "one trace at a time (%s and %s)\n%s", o->trace, a, usage), -1;
    } else {
      o->trace = a;
    }
  }
  if (!o->trace) return snprintf(err, errlen, "no trace given\n%s", usage), -1;
  return 0;
}

/* ------------------------------------------------------------ checks */

/* Map the trace's functions to the engine's: by name, with identical
 * fields (RP_FN_UNKNOWN, RP_FN_OTHER otherwise; refused only where used).
 * 0, or -1 out of memory. */
static int map_functions(rp_engine *E, char *err, size_t errlen) {
  const tf_trace_info *in = E->info;
  E->fnmap = malloc((in->nfuncs + 1) * sizeof *E->fnmap);
  if (!E->fnmap) return snprintf(err, errlen, "out of memory"), -1;
  for (uint32_t j = 0; j < in->nfuncs; j++) {
    E->fnmap[j] = RP_FN_UNKNOWN;
    const tf_func_desc *d = &in->funcs[j];
    for (uint32_t k = 0; k < TF_FN_COUNT; k++) {
      const tf_func_desc *s = &tf_schema[k];
      if (strcmp(s->name, d->name) != 0) continue;
      int same = s->nfields == d->nfields;
      for (uint32_t f = 0; same && f < s->nfields; f++)
        same = strcmp(s->fields[f].name, d->fields[f].name) == 0 && s->fields[f].kind == d->fields[f].kind &&
               s->fields[f].is_array == d->fields[f].is_array;
      E->fnmap[j] = same ? k : RP_FN_OTHER;
    }
  }
  return 0;
}

/* Why the engine cannot replay the trace's function j (fnmap >= TF_FN_COUNT). */
static void cannot_replay(const rp_engine *E, uint32_t j, char *buf, size_t len) {
  if (j < E->info->nfuncs && E->fnmap[j] == RP_FN_OTHER)
    snprintf(buf, len, "%s is recorded with other parameters than this replay engine knows (a trace of another "
             "tracefold version?)", E->info->funcs[j].name);
  else
    snprintf(buf, len, "the trace calls %s, which this replay engine does not know",
             j < E->info->nfuncs ? E->info->funcs[j].name : "an unnamed function");
}

/* -1 (and why) if this engine's MPI cannot make schema function fn's
 * calls: under SimGrid, one SMPI does not implement ({nosim} in mpi.table;
 * its calls would abort the simulation); under an MPI library older than
 * the function ({mpi=4}: MPI_Isendrecv under an MPI-3.1 library). */
static int cannot_call(const rp_engine *E, uint32_t fn, char *err, size_t errlen) {
  if (fn >= TF_FN_COUNT) return 0;
#ifdef TF_SIMGRID
  if (rp_nosim[fn])
    return snprintf(err, errlen, "%s: the trace calls %s, which SimGrid's SMPI does not implement (SimGrid %d.%d): it "
                    "cannot be simulated (doc/SIMULATE.md, \"What SMPI lacks\")", E->opt.trace, tf_schema[fn].name,
                    SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR), -1;
#endif
  if (rp_mpi_version[fn] > MPI_VERSION)
    return snprintf(err, errlen, "%s: the trace calls %s, which is MPI %d.0: this MPI library implements MPI %d.%d; "
                    "replay the trace under an MPI %d.0 library (doc/REPLAY.md)", E->opt.trace, tf_schema[fn].name,
                    rp_mpi_version[fn], MPI_VERSION, MPI_SUBVERSION, rp_mpi_version[fn]), -1;
  return 0;
}

/* Functions used by the events (of the merged structure), and the threads of `rank`. */
static int check_nodes(rp_engine *E, const tf_node *const *nodes, uint32_t n, uint32_t *threads, char *err,
                       size_t errlen) {
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      if (check_nodes(E, ni.body, ni.nbody, threads, err, errlen)) return -1;
      continue;
    }
    if (ni.fn >= E->info->nfuncs || E->fnmap[ni.fn] >= TF_FN_COUNT) {
      char why[300];
      cannot_replay(E, ni.fn, why, sizeof why);
      return snprintf(err, errlen, "%s: %s", E->opt.trace, why), -1;
    }
    if (cannot_call(E, E->fnmap[ni.fn], err, errlen)) return -1;
    if (tf_node_has_rank(nodes[i], E->rank) && ni.thread + 1 > *threads) *threads = ni.thread + 1;
  }
  return 0;
}

/* Threads of this rank in a flat trace (read through once). */
static int flat_threads(rp_engine *E, uint32_t *threads, char *err, size_t errlen) {
  tf_rank_cursor *c;
  tf_event ev;
  int rc;
  if (tf_rank_cursor_open(E->trace, E->rank, &c, err, errlen) != TF_OK) return -1;
  while ((rc = tf_rank_cursor_next(c, &ev)) == 1) {
    if (ev.thread + 1 > *threads) *threads = ev.thread + 1;
    if (ev.fn < E->info->nfuncs && cannot_call(E, E->fnmap[ev.fn], err, errlen)) {
      rc = -2;
      break;
    }
  }
  if (rc == -1) snprintf(err, errlen, "%s: rank %d: %s", E->opt.trace, E->rank, tf_rank_cursor_error(c));
  tf_rank_cursor_close(c);
  return rc < 0 ? -1 : rc;
}

static int checks(rp_engine *E, char *err, size_t errlen) {
  const tf_trace_info *in = E->info;
  if (in->partial || in->nranks_present != in->nranks)
    return snprintf(err, errlen, "%s: a partial trace (the run stopped before MPI_Finalize, or ranks are missing: "
                    "%d of %d present) cannot be replayed", E->opt.trace, in->nranks_present, in->nranks), -1;
  if (in->lost_events)
    return snprintf(err, errlen, "%s: a lossy trace (%llu calls were not recorded: the recorder stopped after an "
                    "internal failure) cannot be replayed: its ranks' calls would not match", E->opt.trace,
                    (unsigned long long)in->lost_events), -1;
  if (in->nranks != E->size)
    return snprintf(err, errlen, "%s was recorded with %d ranks; launched with %d (launch " RP_PROGRAM
                    " with -np %d)", E->opt.trace, in->nranks, E->size, in->nranks), -1;
  if (map_functions(E, err, errlen)) return -1;
  const char *why = rp_delay_check(&E->opt, in);
  if (why) return snprintf(err, errlen, "%s: %s", E->opt.trace, why), -1;
  uint32_t threads = 1;
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(E->trace, &top);
  if (in->source == TF_SOURCE_FLAT ? flat_threads(E, &threads, err, errlen)
                                   : check_nodes(E, top, ntop, &threads, err, errlen))
    return -1;
  E->nthreads = (int)threads;
  return 0;
}

/* ------------------------------------------------------------ threads of a rank
 * Each recorded thread replays its own events in order, as independently as
 * the recorded threads ran. What ties them is objects: one thread creates a
 * communicator another uses (a lookup waits until it exists, handles.c),
 * and one frees an object the others used before. A call that frees waits
 * until every other thread has completed its events recorded before it
 * (events are recorded in completion order). The events naming a
 * persistent request run in their recorded order (persist.c: one thread
 * starts it, another completes it). */

static void thread_at(rp_engine *E, rp_thread *T, uint64_t pos) {
  rp_sync_lock(E->seq);
  T->pos = pos;
  rp_sync_broadcast(E->seq);
  rp_sync_unlock(E->seq);
}

static int others_past(rp_engine *E, const rp_thread *T, uint64_t index) {
  for (int t = 0; t < E->nthreads; t++)
    if (E->threads[t] != T && E->threads[t]->pos < index) return 0;
  return 1;
}

static void wait_others_past(rp_engine *E, rp_thread *T, uint64_t index) {
  rp_sync_lock(E->seq);
  while (!others_past(E, T, index)) rp_sync_wait(E->seq, 3600.0);
  rp_sync_unlock(E->seq);
}

/* ------------------------------------------------------------ the engine's own calls */

static int engine_call(rp_thread *T) {
  switch (T->fn) {
  case TF_FN_MPI_Pcontrol:
    return MPI_Pcontrol(rp_int(T, 0));
  case TF_FN_MPI_Win_test:
    return rp_win_test(T);
  case TF_FN_MPI_Buffer_attach: {
    int size = rp_int(T, 0);
    void *b = malloc(size > 0 ? (size_t)size : 1);
    if (!b) rp_die(T, "out of memory (a %d-byte send buffer)", size);
    rp_lock(T->E);
    T->E->bsend_buf = b;
    rp_unlock(T->E);
    return MPI_Buffer_attach(b, size);
  }
  case TF_FN_MPI_Buffer_detach: {
    void *b = NULL;
    int size = 0;
    int rc = MPI_Buffer_detach(&b, &size);
    if (rc == MPI_SUCCESS) {
      rp_lock(T->E);
      if (b == T->E->bsend_buf) T->E->bsend_buf = NULL;
      rp_unlock(T->E);
      free(b);
    }
    return rc;
  }
  default:
    rp_die(T, "%s cannot be replayed here", tf_schema[T->fn].name);
  }
}

/* ------------------------------------------------------------ one thread */

typedef struct rp_run {
  rp_thread T;
  pthread_t tid;
  uint64_t next;        /* events of the rank the cursor has passed */
  int after_init;
  uint64_t recorded_ns; /* the trace's compute and call times after MPI_Init, summed */
  uint64_t recorded_compute_ns; /* the trace's compute deltas of the thread's events but MPI_Init */
  double started;       /* when the current call was issued (after its compute) */
} rp_run;

static int is_init(uint32_t fn) { return fn == TF_FN_MPI_Init || fn == TF_FN_MPI_Init_thread; }

/* The thread's next event into T->ev, T->fn, T->index: 1, or 0 at the
 * end. MPI_Init is taken here (the engine's own MPI_Init replays it). */
static int next_event(rp_run *R) {
  rp_thread *T = &R->T;
  rp_engine *E = T->E;
  for (;;) {
    int rc = tf_rank_cursor_next(T->cur, &T->ev);
    if (rc < 0) rp_die(T, "malformed trace: %s", tf_rank_cursor_error(T->cur));
    if (rc == 0) return 0;
    T->index = R->next++;
    if (T->ev.thread != T->thread) {
      uint32_t fn = T->ev.fn < E->info->nfuncs ? E->fnmap[T->ev.fn] : RP_FN_UNKNOWN;
      if (fn < TF_FN_COUNT) rp_persistent_pass(T, fn, &T->ev, 0); /* another thread's event: counted */
      continue;
    }
    T->fn = T->ev.fn < E->info->nfuncs ? E->fnmap[T->ev.fn] : RP_FN_UNKNOWN;
    if (T->fn < TF_FN_COUNT) rp_persistent_pass(T, T->fn, &T->ev, 1);
    if (T->fn >= TF_FN_COUNT) {
      char why[300];
      cannot_replay(E, T->ev.fn, why, sizeof why);
      rp_die(T, "%s", why);
    }
    if (E->threaded) thread_at(E, T, T->index);
    if (is_init(T->fn)) { /* what came before is start-up */
      R->after_init = 1;
      T->calls[T->fn]++;
      continue;
    }
    if (R->after_init) R->recorded_ns += T->ev.compute_ns + T->ev.duration_ns;
    R->recorded_compute_ns += T->ev.compute_ns;
    T->recorded_fn_ns[T->fn] += T->ev.duration_ns;
    return 1;
  }
}

/* The compute delay before the event, then its fields:
 * 1, or 0 for MPI_Finalize (main() calls it after the report). */
static int prepare_event(rp_run *R) {
  rp_thread *T = &R->T;
  int finalize = T->fn == TF_FN_MPI_Finalize;
  T->calls[T->fn]++;
  if (!finalize) {
    if (rp_fields(T)) rp_die(T, "malformed event: %s", T->error);
    rp_arena_reset(T);
    T->hidden = NULL;
    T->peer_null = 0;
    T->bytes[T->fn] += rp_event_bytes(T);
  }
  double c0 = rp_now();
  rp_compute(T, rp_delay(T), finalize || !rp_event_local(T));
  R->started = rp_now();
  T->compute_s += R->started - c0;
  return !finalize;
}

static void call_event(rp_run *R) {
  rp_thread *T = &R->T;
  rp_engine *E = T->E;
  if (E->threaded && rp_info[T->fn].frees) wait_others_past(E, T, T->index);
  rp_persistent_before(T);
  rp_call_fn call = rp_calls[T->fn];
  T->status.MPI_SOURCE = MPI_ANY_SOURCE;
  int rc;
  if (rp_win_epoch_skip(T)) { /* an exposure epoch that ended earlier than recorded */
    rc = MPI_SUCCESS;
    T->last_return = rp_now();
  } else if (call && rp_io[T->fn]) {
    rc = rp_io_call(T, call); /* in the scratch directory, or timed from the trace (--io skip) */
  } else if (call) {
    rc = call(T); /* which sets T->last_return when the MPI call returns */
  } else {
    rc = engine_call(T);
    T->last_return = rp_now();
  }
  if (rc != MPI_SUCCESS) rp_die(T, "the call failed (MPI error %d)", rc);
  rp_persistent_after(T);
  T->mpi_s += T->last_return - R->started;
  T->fn_s[T->fn] += T->last_return - R->started;
  if (T->status.MPI_SOURCE != MPI_ANY_SOURCE) T->last_status = T->status;
}

/* Replay the thread's events up to MPI_Finalize (thread 0) or the end. */
static void *run_thread(void *arg) {
  rp_run *R = arg;
  rp_thread *T = &R->T;
  T->last_return = rp_now();
  while (next_event(R) && prepare_event(R)) call_event(R);
  if (T->E->threaded) thread_at(T->E, T, UINT64_MAX);
  return NULL;
}

#ifdef TF_SIMGRID
/* ------------------------------------------------------------ threads as lanes of one actor
 * SMPI 3.32 matches a message by the actor that posts it, and a second
 * actor of a rank is not the rank: the recorded threads of a rank are
 * replayed by its one actor, as lanes. A lane runs its thread's events in
 * order; a blocking call that has a nonblocking form (rp_starts) is started
 * and the lane waits for it while the others go on, as the threads did.
 * Any other call (object constructors, frees, MPI_Finalize) waits until
 * every other lane is past the events recorded before it; an event whose
 * communicator, datatype, op or group another lane has yet to create waits
 * for it. When no lane can go on, the actor waits for the started call
 * recorded first.
 * The lanes' compute is spent one after another by the one actor. */

enum { LANE_READY, LANE_STARTED, LANE_DONE };

/* Every other lane is past lane l's event. */
static int first_of_all(const rp_run *runs, const uint8_t *state, int n, int l) {
  for (int m = 0; m < n; m++)
    if (m != l && state[m] != LANE_DONE && runs[m].T.index < runs[l].T.index) return 0;
  return 1;
}

/* The lane's started call has completed: on to its next event. */
static void lane_done(rp_run *R, uint8_t *state) {
  R->T.last_return = rp_now();
  R->T.mpi_s += R->T.last_return - R->started;
  R->T.fn_s[R->T.fn] += R->T.last_return - R->started;
  *state = next_event(R) ? LANE_READY : LANE_DONE;
}

static void run_lanes(rp_engine *E, rp_run *runs) {
  int n = E->nthreads;
  uint8_t *state = calloc((size_t)n, 1);
  MPI_Request *reqs = malloc(2 * (size_t)n * sizeof *reqs);
  if (!state || !reqs) rp_die(&runs[0].T, "out of memory (%d lanes)", n);
  for (int l = 0; l < n; l++) {
    runs[l].T.last_return = rp_now();
    reqs[2 * l] = reqs[2 * l + 1] = MPI_REQUEST_NULL;
    state[l] = next_event(&runs[l]) ? LANE_READY : LANE_DONE;
  }
  for (;;) {
    int pick = -1;
    for (int l = 0; l < n; l++) { /* the ready lane with the earliest event that may go */
      rp_thread *T = &runs[l].T;
      if (state[l] != LANE_READY || (pick >= 0 && T->index > runs[pick].T.index)) continue;
      int startable = rp_starts[T->fn] != NULL;
      if (!rp_objects_ready(T) || (!startable && !first_of_all(runs, state, n, l))) continue;
      pick = l;
    }
    if (pick >= 0) {
      rp_run *R = &runs[pick];
      rp_thread *T = &R->T;
      if (!prepare_event(R)) {
        state[pick] = LANE_DONE; /* MPI_Finalize */
      } else if (rp_starts[T->fn]) {
        if (rp_starts[T->fn](T, &reqs[2 * pick]) != MPI_SUCCESS) rp_die(T, "the call (started) failed");
        state[pick] = LANE_STARTED;
        if (reqs[2 * pick] == MPI_REQUEST_NULL && reqs[2 * pick + 1] == MPI_REQUEST_NULL) /* done at once */
          lane_done(&runs[pick], &state[pick]);
      } else {
        call_event(R);
        state[pick] = next_event(R) ? LANE_READY : LANE_DONE;
      }
      continue;
    }
    int started = 0, ready = 0;
    for (int l = 0; l < n; l++) started += state[l] == LANE_STARTED, ready += state[l] == LANE_READY;
    if (!started) {
      if (ready) rp_die(&runs[0].T, "the rank's %d threads cannot go on in the recorded order", n);
      break;
    }
    /* wait for the started call recorded first: what the lanes held back
     * by the recorded order wait for (MPI_Waitany and MPI_Waitsome over
     * nonblocking collectives can miss their completion in SMPI 3.32) */
    int first = -1;
    for (int l = 0; l < n; l++)
      if (state[l] == LANE_STARTED && (first < 0 || runs[l].T.index < runs[first].T.index)) first = l;
    PMPI_Waitall(2, &reqs[2 * first], MPI_STATUSES_IGNORE);
    lane_done(&runs[first], &state[first]);
  }
  free(state);
  free(reqs);
}
#endif

static void thread_free(rp_thread *T) {
  tf_rank_cursor_close(T->cur);
  tf_rank_cursor_close(T->peek);
  rp_arena_free(T);
  rp_buffers_free(T);
  rp_draws_free(T);
  free(T->seen);
  free(T->held);
  free(T->turns);
  free(T->need);
}

/* ------------------------------------------------------------ report */

#define RP_RANK_COLS 4
/* Each rank's wall, compute and MPI seconds, and the compute the trace
 * keeps for it (its events' compute deltas, MPI_Init's aside), on rank 0
 * (NULL elsewhere or out of memory). */
static double *gather_ranks(rp_engine *E, rp_run *runs, double replay_s) {
  double mine[RP_RANK_COLS] = {replay_s, 0, 0, 0};
  for (int t = 0; t < E->nthreads; t++) {
    mine[1] += runs[t].T.compute_s;
    mine[2] += runs[t].T.mpi_s;
    mine[3] += (double)runs[t].recorded_compute_ns * 1e-9;
  }
  double *all = E->rank == 0 ? malloc(RP_RANK_COLS * (size_t)E->size * sizeof *all) : NULL;
  int ok = E->rank != 0 || all, all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    free(all);
    return NULL;
  }
  PMPI_Gather(mine, RP_RANK_COLS, MPI_DOUBLE, all, RP_RANK_COLS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

/* Per rank: every rank up to 16, else the spread of each column. The
 * recorded compute is the trace's: what the replay aims at with --compute
 * mean (with --scale 1), per rank (doc/TIMING.md "Rank groups"). */
static void print_ranks(const rp_engine *E, const double *r) {
  static const char *cols[] = {"wall", "compute", "MPI", "recorded compute"};
  const int k = RP_RANK_COLS;
  if (E->size <= 16) {
    printf("  %-8s %12s %12s %12s %17s  (seconds)\n", "rank", cols[0], cols[1], cols[2], cols[3]);
    for (int i = 0; i < E->size; i++)
      printf("  %-8d %12.6f %12.6f %12.6f %17.6f\n", i, r[k * i], r[k * i + 1], r[k * i + 2], r[k * i + 3]);
    return;
  }
  printf("  %-16s %12s %12s %12s  (seconds over %d ranks)\n", "", "min", "mean", "max", E->size);
  for (int c = 0; c < k; c++) {
    double lo = r[c], hi = r[c], sum = 0;
    int lo_at = 0, hi_at = 0;
    for (int i = 0; i < E->size; i++) {
      double v = r[k * i + c];
      sum += v;
      if (v < lo) lo = v, lo_at = i;
      if (v > hi) hi = v, hi_at = i;
    }
    printf("  %-16s %12.6f %12.6f %12.6f  (min at rank %d, max at rank %d)\n", cols[c], lo, sum / E->size, hi, lo_at,
           hi_at);
  }
}

static void write_report_file(const rp_engine *E, double most_s, double recorded_s, int has_recorded,
                              const double *ranks, const uint64_t *calls, const uint64_t *bytes, const double *fn_s) {
  FILE *f = fopen(E->opt.report, "w");
  if (!f) {
    fprintf(stderr, RP_PROGRAM ": cannot write the report to %s\n", E->opt.report);
    return;
  }
  fprintf(f, "program %s\nranks %d\ntime_s %.9f\n", RP_PROGRAM, E->size, most_s);
  if (has_recorded) fprintf(f, "recorded_s %.9f\n", recorded_s);
  for (int i = 0; ranks && i < E->size; i++)
    fprintf(f, "rank %d %.9f %.9f %.9f %.9f\n", i, ranks[RP_RANK_COLS * i], ranks[RP_RANK_COLS * i + 1],
            ranks[RP_RANK_COLS * i + 2], ranks[RP_RANK_COLS * i + 3]);
  for (int k = 0; k < TF_FN_COUNT; k++)
    if (calls[k])
      fprintf(f, "fn %s %llu %llu %.9f %.9f\n", tf_schema[k].name, (unsigned long long)calls[k],
              (unsigned long long)bytes[k], fn_s[2 * k], fn_s[2 * k + 1]);
  if (fclose(f) != 0) fprintf(stderr, RP_PROGRAM ": cannot write the report to %s\n", E->opt.report);
}

static void report(rp_engine *E, rp_run *runs, double replay_s) {
  uint64_t calls[TF_FN_COUNT] = {0}, bytes[TF_FN_COUNT] = {0}, all_calls[TF_FN_COUNT], all_bytes[TF_FN_COUNT];
  double fn_s[2 * TF_FN_COUNT] = {0}, all_fn_s[2 * TF_FN_COUNT]; /* per function: replayed, recorded seconds */
  for (int t = 0; t < E->nthreads; t++)
    for (int k = 0; k < TF_FN_COUNT; k++) {
      calls[k] += runs[t].T.calls[k];
      bytes[k] += runs[t].T.bytes[k];
      fn_s[2 * k] += runs[t].T.fn_s[k];
      fn_s[2 * k + 1] += (double)runs[t].T.recorded_fn_ns[k] * 1e-9;
    }
  double mine[2] = {replay_s, (double)runs[0].recorded_ns * 1e-9}, most[2];
  PMPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(calls, all_calls, TF_FN_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(bytes, all_bytes, TF_FN_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(fn_s, all_fn_s, 2 * TF_FN_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double *ranks = gather_ranks(E, runs, replay_s);
  if (E->rank != 0) return;
  static const char *modes[] = {"none", "mean", "histogram"};
  const rp_options *o = &E->opt;
#ifdef TF_SIMGRID
  printf(RP_PROGRAM ": %s on %d ranks (compute %s, scale %g, recording host %g flop/s)\n", o->trace, E->size,
         modes[o->compute], o->scale, o->ref_speed);
  printf("  simulated time      %.6f s (MPI_Init to MPI_Finalize, slowest rank)\n", most[0]);
#else
  printf(RP_PROGRAM ": %s on %d ranks (compute %s, %s, scale %g)\n", o->trace, E->size, modes[o->compute],
         o->sleep ? "sleep" : "busy-wait", o->scale);
  printf("  replay wall time    %.6f s (MPI_Init to MPI_Finalize, slowest rank)\n", most[0]);
#endif
  int has_recorded = E->info->unit == TF_UNIT_NS && (E->info->timing != TF_TIMING_NONE || E->info->source == TF_SOURCE_FLAT);
  if (has_recorded) {
    printf("  recorded wall time  %.6f s (the trace's times, slowest rank)\n", most[1]);
    if (most[1] > 0) printf("  difference          %+.2f %%\n", 100.0 * (most[0] - most[1]) / most[1]);
  } else {
    printf("  recorded wall time  not in the trace (%s)\n",
           E->info->unit != TF_UNIT_NS ? "time-independent: compute in other units" : "recorded without times");
  }
  if (ranks) print_ranks(E, ranks);
  if (o->report) write_report_file(E, most[0], most[1], has_recorded, ranks, all_calls, all_bytes, all_fn_s);
  free(ranks);
  if (!o->quiet) {
    printf("  %-28s %14s %18s\n", "function", "calls", "bytes");
    for (int k = 0; k < TF_FN_COUNT; k++)
      if (all_calls[k])
        printf("  %-28s %14llu %18llu\n", tf_schema[k].name, (unsigned long long)all_calls[k],
               (unsigned long long)all_bytes[k]);
  }
  fflush(stdout);
}

/* ------------------------------------------------------------ main */

/* Initialise MPI as the trace's first event did (MPI_Init_thread with its
 * required level, else MPI_Init). */
static void init_mpi(int *argc, char ***argv, tf_trace *t) {
  int required = -1;
  if (t) {
    const tf_trace_info *in = tf_trace_get_info(t);
    for (int32_t r = 0; r < in->nranks && required < 0; r++) {
      tf_rank_cursor *c;
      tf_event ev;
      if (!tf_trace_rank(t, r, NULL, NULL) || tf_rank_cursor_open(t, r, &c, NULL, 0) != TF_OK) continue;
      if (tf_rank_cursor_next(c, &ev) == 1 && ev.fn < in->nfuncs &&
          strcmp(in->funcs[ev.fn].name, "MPI_Init_thread") == 0 && ev.nvals >= 1)
        required = rp_mpi_thread(ev.vals[0]); /* the trace keeps the portable level (gen/portable.table) */
      tf_rank_cursor_close(c);
      break;
    }
  }
  if (required >= 0) {
    int provided;
    MPI_Init_thread(argc, argv, required, &provided);
  } else {
    MPI_Init(argc, argv);
  }
}

int main(int argc, char **argv) {
  rp_engine E = {0};
  char err[2048] = "";
  int bad = parse_options(argc, argv, &E.opt, err, sizeof err);
  if (!bad && rp_trace_open(E.opt.trace, E.opt.flat ? TF_OPEN_PREFER_FLAT : 0, &E.trace, err, sizeof err) != TF_OK) bad = 1;
  init_mpi(&argc, &argv, bad ? NULL : E.trace);
  PMPI_Comm_rank(MPI_COMM_WORLD, &E.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &E.size);
  if (!bad) {
    E.info = tf_trace_get_info(E.trace);
    if (E.info->unit == TF_UNIT_CPU_NS && E.opt.rate <= 0) E.opt.rate = 1e9;
#ifdef TF_SIMGRID
    if (E.info->unit == TF_UNIT_INSTRUCTIONS && E.opt.rate <= 0) E.opt.rate = E.opt.ref_speed; /* as many flops */
#endif
    bad = checks(&E, err, sizeof err);
  }
  rp_fninfo_init();
  if (!bad && rp_handles_init(&E)) bad = snprintf(err, sizeof err, "out of memory") > 0;
  /* the lowest rank that cannot go on says why (most reasons hold on every rank) */
  int mine = bad ? E.rank : E.size, first = E.size;
  PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < E.size) {
    if (E.rank == first) fprintf(stderr, RP_PROGRAM ": %s\n", err);
    MPI_Finalize();
    return 2;
  }
  /* MPI-IO's scratch directory (collective: every rank is here) */
  mine = rp_io_init(&E, err, sizeof err) ? E.rank : E.size;
  PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < E.size) {
    if (E.rank == first) fprintf(stderr, RP_PROGRAM ": %s\n", err);
    rp_io_finish(&E);
    MPI_Finalize();
    return 2;
  }
  int lanes = 0;
#ifdef TF_SIMGRID
  lanes = E.nthreads > 1; /* the threads are lanes of the rank's one actor (run_lanes) */
#endif
  E.threaded = E.nthreads > 1 && !lanes;
  E.seq = rp_sync_new();
  rp_run *runs = calloc((size_t)E.nthreads, sizeof *runs);
  if (!runs || !E.seq) {
    fprintf(stderr, RP_PROGRAM ": rank %d: out of memory\n", E.rank);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  E.threads = calloc((size_t)E.nthreads, sizeof *E.threads);
  if (!E.threads) {
    fprintf(stderr, RP_PROGRAM ": rank %d: out of memory\n", E.rank);
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int t = 0; t < E.nthreads; t++) { /* cursors open before the clock starts (a projection each) */
    runs[t].T = (rp_thread){.E = &E, .thread = (uint32_t)t};
    E.threads[t] = &runs[t].T;
    if (tf_rank_cursor_open(E.trace, E.rank, &runs[t].T.cur, err, sizeof err) != TF_OK) rp_die(&runs[t].T, "%s", err);
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  double t0 = rp_now();
#ifdef TF_SIMGRID
  if (lanes) run_lanes(&E, runs);
#endif
  for (int t = 1; t < E.nthreads && !lanes; t++)
    if (pthread_create(&runs[t].tid, NULL, run_thread, &runs[t])) {
      fprintf(stderr, RP_PROGRAM ": rank %d: cannot start thread %d\n", E.rank, t);
      PMPI_Abort(MPI_COMM_WORLD, 2);
    }
  if (!lanes) run_thread(&runs[0]);
  for (int t = 1; t < E.nthreads && !lanes; t++) pthread_join(runs[t].tid, NULL);
  double replay_s = rp_now() - t0;
  report(&E, runs, replay_s);
  rp_io_finish(&E);
  for (int t = 0; t < E.nthreads; t++) thread_free(&runs[t].T);
  free(runs);
  free(E.threads);
  rp_sync_free(E.seq);
  MPI_Finalize();
  free(E.bsend_buf);
  rp_handles_free(&E);
  free(E.fnmap);
  rp_trace_close(E.trace);
  return 0;
}
