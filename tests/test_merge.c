/* test_merge.c — unit tests of the cross-rank merge (mtrace.h) and of the
 * trace reader over merged traces (tracefold.h: tf_trace_*, cursors,
 * nodes). Every check compares against an independent oracle: the event
 * streams the test generated itself, rank by rank, or a bitmap of ranks.
 *
 *   1. lossless merge: P synthetic "ranks" of one random program template
 *      (test_gen.h) with per-rank variation — identical ranks, stencil
 *      boundary ranks that skip calls, rank-dependent values, rank-dependent
 *      iteration counts, a master rank with extra events or another
 *      program, noise on some ranks — written as per-rank compressed files
 *      (sometimes under a tiny memory cap: several segments), merged in
 *      binomial-tree, sequential, random-split or "over the wire" (encoded
 *      and decoded before each merge) order, encoded (zstd level 0 and 3),
 *      opened from memory: every rank's cursor gives back exactly its
 *      generated stream (times: the constant, or within the deltas of the
 *      events of that shape); decode + encode gives the same bytes; a
 *      third of the seeds also merged again in rank order
 *      (tf_mtrace_remerge) and read back the same way;
 *   2. tf_trace_open on the directory of per-rank files (merged when
 *      opened), on a merged file, on a single per-rank file, and on a
 *      directory with a rank missing: the same events, info and counts;
 *      merges that must be refused (ranks out of order or twice, other
 *      run sizes or function tables) leave the destination unchanged; a
 *      sparse partial run (ranks 0, 5, 70000, 99999 of 100000);
 *   3. size: a regular 2-D stencil merged at 16, 64 and 256 ranks stays
 *      about the same size, far below the per-rank files; the node API
 *      (tf_trace_top, tf_node_get/ranks/values) agrees with the streams;
 *   4. rank lists (ranklist.h): membership, ends and text form of sorted
 *      random sets and strided blocks, against a bitmap;
 *   6. rank groups (tgroups.h): per-rank time summaries merged in
 *      binomial order keep ranks whose compute differs apart (slow odd
 *      ranks, boundary and interior of a 16x16 grid: exactly those groups,
 *      their rank lists strided blocks), pool ranks that agree or differ
 *      only by noise, never exceed the caps (groups, rank-list items) on
 *      ranks that all differ, and keep every count and sum exact; each
 *      rank's projection takes its own group;
 *   5. hostile merged files: truncations, byte flips (also with the CRCs
 *      made valid again), and structural edits of a decoded tf_mtrace,
 *      re-encoded: refused at open (always, for what FORMAT.md 3.9 says
 *      must be), or every cursor ends (0 after the declared number of
 *      events, or -1 with a message), never a crash or a hang.
 *
 * Usage: test_merge              all tests (fixed seeds)
 *        test_merge CASE...      only those: ranklists, lossless, refusals, stencil_size, rank_groups, hostile
 *                                (--list, --help: tests/check.h; --part CASE is the same)
 *        test_merge SEED [P]     only the merge round trip of SEED (verbose)
 *        test_merge --seeds N [FIRST]  only the merge round trips, N seeds from FIRST (5000)
 *        test_merge --hostile R  part 5 on 3 x R sample traces
 * A failing check prints its seed and the first mismatch.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/bytes.h"
#include "check.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "merge/mtrace.h"
#include "merge/ranklist.h"
#include "test_gen.h"
#include "tracefold.h"
#include "fold/cst_guide.h"
#include "fold/vseq.h"

static uint64_t mix(uint64_t a, uint64_t b) { /* splitmix64 of a combination */
  uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ------------------------------------------------------------ watchdog */
/* A hang is a failure: the case being run is printed and the test stops.
 * The limit is on cpu time (ITIMER_PROF), so a loaded machine does not
 * make a slow case look like a hang. */
static char current_case[256];
static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "\ntest_merge: TIMEOUT (a hang) in: ";
  if (write(2, msg, sizeof msg - 1) < 0 || write(2, current_case, strnlen(current_case, sizeof current_case)) < 0 ||
      write(2, "\n", 1) < 0) {
  }
  _exit(3);
}
static void watchdog(unsigned seconds) {
  struct itimerval it = {{0, 0}, {(time_t)seconds, 0}};
  setitimer(ITIMER_PROF, &it, NULL);
}

/* ------------------------------------------------------- temp directory */
static char workdir[64]; /* merge_tmp_XXXXXX in the working directory */

static void rank_path(char *buf, size_t len, const char *dir, int r) { snprintf(buf, len, "%s/rank-%d.tfc", dir, r); }

static void clear_dir(const char *dir, int P) {
  char p[256];
  for (int r = 0; r < P; r++) {
    rank_path(p, sizeof p, dir, r);
    remove(p);
  }
  snprintf(p, sizeof p, "%s/%s", dir, TF_TRACE_FILE);
  remove(p);
}

/* =============================================== per-rank files, merging */

/* Start time of rank r: the merged trace keeps the earliest. */
static uint64_t start_ns(int r) { return 1234567 + (uint64_t)((r * 7919 + 5) % 13); }

/* Write rank `rank`'s stream as a compressed per-rank file; its size. */
static const tf_func_desc *write_funcs = funcs; /* another function table: another tracefold version */

static long write_rank(const char *path, const stream *s, int rank, int P, size_t cap, uint64_t lost, uint32_t partial,
                       uint32_t *nsegments) {
  tf_file_info info = {.rank = rank, .nranks = P, .thread_level = 2, .start_unix_ns = start_ns(rank), .exe = "synthetic",
                       .mpi = "none", .timing = TF_TIMING_DEFAULT, .bins = TF_BINS_DEFAULT,
                       .nfuncs = NFUNCS, .funcs = write_funcs};
  char err[512];
  fresh(path);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return -1;
  stream_compress(s, w, write_funcs, NFUNCS, cap, rank);
  if (lost) tf_file_writer_lost(w, lost);
  if (partial) tf_file_writer_partial(w, partial);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
  tf_file_reader *r;
  if (tf_file_open(path, &r, err, sizeof err) == TF_OK) {
    *nsegments = tf_file_get_info(r)->nsegments;
    tf_file_close(r);
  }
  return file_size(path);
}

/* One run: P ranks' streams and what was written for them. */
typedef struct run {
  int P;
  stream *s;
  uint64_t *lost;
  uint32_t partial; /* given to the last rank */
  int const_times;
  long *fsize;
  long fsum;
  uint32_t maxseg;
  char dir[128];
} run;

static void run_free(run *R) {
  for (int r = 0; r < R->P; r++) stream_free(&R->s[r]);
  free(R->s);
  free(R->lost);
  free(R->fsize);
  *R = (run){0};
}

static uint64_t run_nevents(const run *R) {
  uint64_t n = 0;
  for (int r = 0; r < R->P; r++) n += R->s[r].n;
  return n;
}

/* Write every rank's file; with mixed_caps, odd ranks get 4 times the memory
 * cap (their segments end elsewhere). */
static int write_run(run *R, size_t cap, int mixed_caps) {
  R->fsum = 0;
  R->maxseg = 0;
  for (int r = 0; r < R->P; r++) {
    char p[256];
    rank_path(p, sizeof p, R->dir, r);
    uint32_t nseg = 0;
    size_t c = mixed_caps && r % 2 ? 4 * cap : cap;
    R->fsize[r] = write_rank(p, &R->s[r], r, R->P, c, R->lost[r], r == R->P - 1 ? R->partial : 0, &nseg);
    if (R->fsize[r] < 0) return -1;
    R->fsum += R->fsize[r];
    if (nseg > R->maxseg) R->maxseg = nseg;
  }
  return 0;
}

/* 1: the files are loaded as the recorder's merge loads them, flat runs
 * kept as runs (tf_file_open_mem_runs), and sent over the wire with them
 * (tf_mtrace_decode_runs); set with stream_flat_window (merge_round_trip). */
static int keep_runs;

/* The files loaded with keep_runs: their flat runs' bytes are read in
 * place by the merged traces made from them (TF_SEGMENT_BORROW_RUNS), as
 * the recorder's merge keeps the rank's file until its trace is freed;
 * here they are kept to the end of the test. */
static unsigned char **loaded;
static size_t nloaded;

static void free_loaded(void) {
  for (size_t i = 0; i < nloaded; i++) free(loaded[i]);
  free(loaded);
  loaded = NULL;
  nloaded = 0;
}

static void keep_loaded(unsigned char *bytes) {
  if (!nloaded) atexit(free_loaded);
  unsigned char **l = realloc(loaded, (nloaded + 1) * sizeof *l);
  if (!l) abort();
  loaded = l;
  loaded[nloaded++] = bytes;
}

/* t[r] from rank r's file (the reader is closed at once: the merged trace
 * must own everything it holds but the runs' bytes, above). */
static int load_rank(const run *R, int r, tf_mtrace *t) {
  char p[256], err[512];
  rank_path(p, sizeof p, R->dir, r);
  tf_file_reader *fr;
  long n = 0;
  unsigned char *bytes = keep_runs ? file_bytes(p, &n) : NULL;
  tf_status st = keep_runs ? tf_file_open_mem_runs(bytes, (size_t)n, p, &fr, err, sizeof err)
                           : tf_file_open(p, &fr, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  if (st != TF_OK) {
    free(bytes);
    return -1;
  }
  int rc = tf_mtrace_from_file(t, fr);
  tf_file_close(fr);
  if (bytes) keep_loaded(bytes);
  CHECKF(rc == 0, "tf_mtrace_from_file(%s) failed", p);
  return rc;
}

/* encode t (level), free it, decode the bytes into t: a merged trace sent to another process */
static int over_the_wire(tf_mtrace *t, int level, const char *what) {
  tf_buf b = {0};
  int rc = tf_mtrace_encode(t, &b, level);
  CHECKF(rc == 0 && !b.failed, "%s: encode", what);
  tf_mtrace_free(t);
  char err[512] = "";
  tf_status st = keep_runs ? tf_mtrace_decode_runs(b.data, b.len, what, t, err, sizeof err)
                           : tf_mtrace_decode(b.data, b.len, what, t, err, sizeof err);
  CHECKF(st == TF_OK, "%s: decoding an encoded merged trace: %s", what, err);
  tf_buf_free(&b);
  return st == TF_OK ? 0 : -1;
}

enum { ORD_BINOMIAL, ORD_SEQUENTIAL, ORD_SPLIT, ORD_WIRE, ORD_N };
static const char *const ord_names[] = {"binomial", "sequential", "random split", "binomial over the wire"};

/* Merge t[mid] (ranks mid..) into t[lo]; t[mid] is freed either way (mtrace.h). */
static int merge2(tf_mtrace *t, int *live, int lo, int mid, int wire, uint64_t seed) {
  char err[512] = "", what[96];
  snprintf(what, sizeof what, "seed %" PRIu64 " ranks %d..", seed, mid);
  live[mid] = 0;
  if (wire && over_the_wire(&t[mid], (int)((seed + (uint64_t)mid) % 2) * 3, what)) return -1;
  int rc = tf_mtrace_merge(&t[lo], &t[mid], err, sizeof err);
  CHECKF(rc == 0, "seed %" PRIu64 ": merging ranks from %d into ranks from %d: %s", seed, mid, lo, err);
  return rc;
}

static int merge_split(tf_mtrace *t, int *live, int lo, int hi, uint64_t seed) {
  if (hi - lo < 2) return 0;
  int mid = lo + 1 + (int)(mix(seed, (uint64_t)(lo * 7919 + hi)) % (uint64_t)(hi - lo - 1));
  if (merge_split(t, live, lo, mid, seed) || merge_split(t, live, mid, hi, seed)) return -1;
  return merge2(t, live, lo, mid, 0, seed);
}

/* All ranks' files merged into *out in the given order. */
static int build_merged(const run *R, int order, tf_mtrace *out, uint64_t seed) {
  int P = R->P, rc = 0;
  tf_mtrace *t = calloc((size_t)P, sizeof *t);
  int *live = calloc((size_t)P, sizeof *live);
  if (!t || !live) abort();
  for (int r = 0; r < P && !rc; r++)
    if (!(rc = load_rank(R, r, &t[r]))) live[r] = 1;
  if (!rc) switch (order) {
    case ORD_SEQUENTIAL:
      for (int r = 1; r < P && !rc; r++) rc = merge2(t, live, 0, r, 0, seed);
      break;
    case ORD_SPLIT:
      rc = merge_split(t, live, 0, P, seed);
      break;
    default: /* round k: rank r with r % 2^(k+1) == 0 merges r + 2^k */
      for (int step = 1; step < P && !rc; step *= 2)
        for (int r = 0; r + step < P && !rc; r += 2 * step) rc = merge2(t, live, r, r + step, order == ORD_WIRE, seed);
    }
  if (!rc && order == ORD_WIRE) rc = over_the_wire(&t[0], 0, "the final merged trace");
  for (int r = rc ? 0 : 1; r < P; r++) /* on failure, whatever is left */
    if (live[r]) tf_mtrace_free(&t[r]);
  *out = t[0];
  free(t);
  free(live);
  return rc;
}

/* ================================================= reading back, oracle */

static void print_event_diff(const oev *o, const stream *s, const tf_event *ev) {
  fprintf(stderr, "  expected fn %u thread %u site %u (sig %" PRIx64 ") nvals %u:", o->fn, o->thread, o->site,
          site_sig(o->site), o->nvals);
  for (uint32_t j = 0; j < o->nvals && j < 24; j++) fprintf(stderr, " %" PRId64, s->v[o->off + j]);
  fprintf(stderr, "\n  got      fn %u thread %u sig %" PRIx64 " nvals %u:", ev->fn, ev->thread, ev->callsite,
          ev->nvals);
  for (uint32_t j = 0; j < ev->nvals && j < 24; j++) fprintf(stderr, " %" PRId64, ev->vals[j]);
  fprintf(stderr, "\n");
}

/* Times: a cursor reports the mean over a merged event's occurrences
 * (FORMAT.md 3.6), so it lies between the least and the largest delta of
 * the events of the same shape on all ranks. */
enum { TB_KEYS = 1024 * 8 * 3 };
typedef struct tbounds {
  uint64_t cmin[TB_KEYS], cmax[TB_KEYS], dmin[TB_KEYS], dmax[TB_KEYS];
} tbounds;
static tbounds *tb; /* of the run being checked, or NULL */
static size_t tb_key(const oev *o) { return ((size_t)(o->site % 1024) * 8 + o->fn % 8) * 3 + o->thread % 3; }

static void tb_fill(const run *R) {
  if (!tb && !(tb = malloc(sizeof *tb))) abort();
  for (size_t k = 0; k < TB_KEYS; k++) {
    tb->cmin[k] = tb->dmin[k] = UINT64_MAX;
    tb->cmax[k] = tb->dmax[k] = 0;
  }
  for (int r = 0; r < R->P; r++)
    for (size_t i = 0; i < R->s[r].n; i++) {
      const oev *o = &R->s[r].e[i];
      size_t k = tb_key(o);
      if (o->compute < tb->cmin[k]) tb->cmin[k] = o->compute;
      if (o->compute > tb->cmax[k]) tb->cmax[k] = o->compute;
      if (o->duration < tb->dmin[k]) tb->dmin[k] = o->duration;
      if (o->duration > tb->dmax[k]) tb->dmax[k] = o->duration;
    }
}

/* Index of the first function of the trace's table named as function f. */
static uint32_t first_named(const tf_trace_info *in, uint32_t f) {
  uint32_t i = 0;
  while (i < f && strcmp(in->funcs[i].name, in->funcs[f].name) != 0) i++;
  return i;
}

/* Event i of s, as the cursor gave it; 1 if equal. */
static int event_equal(const tf_trace_info *in, const tf_event *ev, const stream *s, size_t i, int const_times) {
  const oev *o = &s->e[i];
  int ok = same_fn(in->funcs, in->nfuncs, ev->fn, o->fn) && ev->thread == o->thread && ev->callsite == site_sig(o->site) && ev->nvals == o->nvals;
  for (uint32_t j = 0; ok && j < o->nvals; j++) ok = ev->vals[j] == s->v[o->off + j];
  if (ok && const_times) ok = ev->compute_ns == 1000 && ev->duration_ns == 7;
  if (ok && !const_times && tb) {
    size_t k = tb_key(o);
    ok = ev->compute_ns >= tb->cmin[k] && ev->compute_ns <= tb->cmax[k] && ev->duration_ns >= tb->dmin[k] &&
         ev->duration_ns <= tb->dmax[k];
  }
  return ok;
}

/* Rank `rank`'s cursor gives exactly s, then 0 (twice). */
static int compare_cursor(tf_trace *tr, int rank, const stream *s, int const_times, const char *what, uint64_t seed) {
  tf_rank_cursor *c = NULL;
  char err[512] = "";
  tf_status st = tf_rank_cursor_open(tr, rank, &c, err, sizeof err);
  if (st != TF_OK || !c) {
    CHECKF(0, "seed %" PRIu64 " %s rank %d: tf_rank_cursor_open: %s: %s", seed, what, rank, tf_status_name(st), err);
    return 0;
  }
  tf_event ev;
  int ok = 1;
  for (size_t i = 0; i < s->n && ok; i++) {
    int rc = tf_rank_cursor_next(c, &ev);
    if (rc != 1) {
      CHECKF(0, "seed %" PRIu64 " %s rank %d: event %zu of %zu: cursor gives %d (%s)", seed, what, rank, i, s->n, rc,
             tf_rank_cursor_error(c) ? tf_rank_cursor_error(c) : "");
      ok = 0;
    } else if (!event_equal(tf_trace_get_info(tr), &ev, s, i, const_times)) {
      fprintf(stderr, "seed %" PRIu64 " %s rank %d: event %zu differs:\n", seed, what, rank, i);
      print_event_diff(&s->e[i], s, &ev);
      if (const_times)
        fprintf(stderr, "  times: compute %" PRIu64 " duration %" PRIu64 " (expected 1000, 7)\n", ev.compute_ns,
                ev.duration_ns);
      else if (tb) {
        size_t k = tb_key(&s->e[i]);
        fprintf(stderr, "  times: compute %" PRIu64 " (events of this shape: %" PRIu64 "..%" PRIu64 "), duration %" PRIu64
                " (%" PRIu64 "..%" PRIu64 ")\n", ev.compute_ns, tb->cmin[k], tb->cmax[k], ev.duration_ns, tb->dmin[k],
                tb->dmax[k]);
      }
      CHECKF(0, "seed %" PRIu64 " %s rank %d: event %zu", seed, what, rank, i);
      ok = 0;
    }
  }
  if (ok) {
    int rc = tf_rank_cursor_next(c, &ev);
    CHECKF(rc == 0, "seed %" PRIu64 " %s rank %d: %d after the last of %zu events (%s)", seed, what, rank, rc, s->n,
           rc < 0 && tf_rank_cursor_error(c) ? tf_rank_cursor_error(c) : "");
    CHECKF(rc != 0 || tf_rank_cursor_next(c, &ev) == 0, "seed %" PRIu64 " %s rank %d: end not stable", seed, what,
           rank);
    ok = rc == 0;
  }
  tf_rank_cursor_close(c);
  return ok;
}

/* All cursors open at once (and a second one on the last rank), read
 * round-robin one event at a time: the lazy unrolling of one cursor must
 * not disturb another's. */
static int compare_interleaved(tf_trace *tr, const run *R, const char *what, uint64_t seed) {
  int P = R->P, ok = 1;
  tf_rank_cursor **c = calloc((size_t)P + 1, sizeof *c);
  char err[512];
  for (int k = 0; k <= P; k++) {
    int r = k < P ? k : P - 1;
    if (tf_rank_cursor_open(tr, r, &c[k], err, sizeof err) != TF_OK) {
      CHECKF(0, "seed %" PRIu64 " %s rank %d: %s", seed, what, r, err);
      ok = 0;
    }
  }
  size_t maxn = 0;
  for (int r = 0; r < P; r++)
    if (R->s[r].n > maxn) maxn = R->s[r].n;
  for (size_t i = 0; i <= maxn && ok; i++)
    for (int k = 0; k <= P && ok; k++) {
      int r = k < P ? k : P - 1;
      tf_event ev;
      int rc = tf_rank_cursor_next(c[k], &ev);
      if (i < R->s[r].n) {
        ok = rc == 1 && event_equal(tf_trace_get_info(tr), &ev, &R->s[r], i, R->const_times);
        CHECKF(ok, "seed %" PRIu64 " %s (interleaved): rank %d event %zu: rc %d", seed, what, r, i, rc);
      } else if (i == R->s[r].n) {
        ok = rc == 0;
        CHECKF(ok, "seed %" PRIu64 " %s (interleaved): rank %d: %d after the last event", seed, what, r, rc);
      }
    }
  for (int k = 0; k <= P; k++)
    if (c[k]) tf_rank_cursor_close(c[k]);
  free(c);
  return ok;
}

/* Info, per-rank counts and every rank's events of an opened trace.
 * present: ranks whose files are in (NULL: all). */
static int check_trace(tf_trace *tr, const run *R, const int *present, int source, uint64_t bytes, const char *what,
                       uint64_t seed) {
  const tf_trace_info *in = tf_trace_get_info(tr);
  int P = R->P, ok = 1, npresent = 0, nwith = 0;
  uint64_t nev = 0, lost = 0, start = UINT64_MAX;
  for (int r = 0; r < P; r++)
    if (!present || present[r]) {
      if (start_ns(r) < start) start = start_ns(r);
      npresent++;
      nwith += R->s[r].n > 0;
      nev += R->s[r].n;
      lost += R->lost[r];
    }
  uint32_t partial = R->partial && (!present || present[P - 1]) ? R->partial : 0;
  CHECKF(in->source == source, "seed %" PRIu64 " %s: source %d, expected %d", seed, what, in->source, source);
  CHECKF(in->nranks == P, "seed %" PRIu64 " %s: nranks %d, expected %d", seed, what, in->nranks, P);
  CHECKF(in->nevents == nev, "seed %" PRIu64 " %s: nevents %" PRIu64 ", expected %" PRIu64, seed, what, in->nevents,
         nev);
  CHECKF(in->lost_events == lost, "seed %" PRIu64 " %s: lost_events %" PRIu64 ", expected %" PRIu64, seed, what,
         in->lost_events, lost);
  CHECKF(in->partial == partial, "seed %" PRIu64 " %s: partial %u, expected %u", seed, what, in->partial, partial);
  CHECKF(bytes == 0 || in->bytes == bytes, "seed %" PRIu64 " %s: bytes %" PRIu64 ", expected %" PRIu64, seed, what,
         in->bytes, bytes);
  CHECKF(in->exe && strcmp(in->exe, "synthetic") == 0 && in->mpi && strcmp(in->mpi, "none") == 0 &&
             in->thread_level == 2 && in->start_unix_ns == start,
         "seed %" PRIu64 " %s: exe '%s', thread level %d, start %" PRIu64 " (expected the earliest, %" PRIu64 ")",
         seed, what, in->exe ? in->exe : "(null)", in->thread_level, in->start_unix_ns, start);
  /* functions: only those some rank uses, each once, as funcs[] describes it */
  CHECKF(in->nfuncs <= NFUNCS, "seed %" PRIu64 " %s: %u functions", seed, what, in->nfuncs);
  for (uint32_t f = 0; f < in->nfuncs; f++) {
    uint32_t k = 0, used = 0;
    while (k < NFUNCS && !same_fn(in->funcs, in->nfuncs, f, k)) k++;
    for (int r = 0; k < NFUNCS && r < R->P && !used; r++)
      for (size_t e = 0; e < R->s[r].n && !used; e++) used = R->s[r].e[e].fn == k;
    CHECKF(k < NFUNCS && in->funcs[f].nfields == funcs[k].nfields && used && first_named(in, f) == f,
           "seed %" PRIu64 " %s: function %u (%s) is not one the ranks use, once", seed, what, f, in->funcs[f].name);
  }
  /* call sites: every signature used by a present rank, once, with its module and offset */
  {
    static uint8_t used[4096];
    memset(used, 0, sizeof used);
    uint32_t nsites = 0;
    for (int r = 0; r < P; r++)
      if (!present || present[r])
        for (size_t i = 0; i < R->s[r].n; i++)
          if (!used[R->s[r].e[i].site]) {
            used[R->s[r].e[i].site] = 1;
            nsites++;
          }
    CHECKF(in->ncallsites == nsites, "seed %" PRIu64 " %s: %u call sites, the ranks use %u", seed, what,
           in->ncallsites, nsites);
    for (uint32_t k = 0; k < in->ncallsites; k++) {
      const tf_callsite *cs = &in->callsites[k];
      uint32_t site = (uint32_t)(cs->offset / 16);
      CHECKF(site < 4096 && cs->offset % 16 == 0 && used[site] == 1 && cs->sig == site_sig(site) && cs->module &&
                 strcmp(cs->module, "m") == 0,
             "seed %" PRIu64 " %s: call site %u: sig %" PRIx64 " offset %" PRIu64, seed, what, k, cs->sig, cs->offset);
      if (site < 4096) used[site] = 2;
    }
  }
  /* tf_trace_rank: a rank without events may or may not count as present,
   * but nranks_present must agree with tf_trace_rank */
  int counted = 0;
  for (int r = 0; r < P; r++) {
    uint64_t n = 99, l = 99;
    int has = tf_trace_rank(tr, r, &n, &l);
    counted += has == 1;
    if (!present || present[r]) {
      if (R->s[r].n > 0)
        CHECKF(has == 1 && n == R->s[r].n && l == R->lost[r],
               "seed %" PRIu64 " %s: tf_trace_rank(%d) = %d, %" PRIu64 " events (expected %zu), %" PRIu64
               " lost (expected %" PRIu64 ")",
               seed, what, r, has, n, R->s[r].n, l, R->lost[r]);
      else
        CHECKF(has == 0 || (n == 0 && l == R->lost[r]), "seed %" PRIu64 " %s: empty rank %d: %" PRIu64 " events",
               seed, what, r, n);
    } else
      CHECKF(has == 0, "seed %" PRIu64 " %s: tf_trace_rank(%d) = %d for a rank whose file is missing", seed, what, r,
             has);
  }
  CHECKF(tf_trace_rank(tr, -1, NULL, NULL) == 0 && tf_trace_rank(tr, P, NULL, NULL) == 0,
         "seed %" PRIu64 " %s: tf_trace_rank out of range", seed, what);
  CHECKF(in->nranks_present == counted && counted >= nwith && counted <= npresent,
         "seed %" PRIu64 " %s: nranks_present %d; tf_trace_rank says %d; %d ranks have events, %d files", seed, what,
         in->nranks_present, counted, nwith, npresent);
  /* cursors outside the run are refused */
  tf_rank_cursor *c = NULL;
  char err[256];
  CHECKF(tf_rank_cursor_open(tr, -1, &c, err, sizeof err) != TF_OK && tf_rank_cursor_open(tr, P, &c, err, sizeof err)
         != TF_OK, "seed %" PRIu64 " %s: cursor of rank -1 or %d opened", seed, what, P);

  for (int r = 0; r < P; r++) {
    if (present && !present[r]) {
      tf_rank_cursor *m = NULL;
      if (tf_rank_cursor_open(tr, r, &m, err, sizeof err) == TF_OK) {
        tf_event ev;
        CHECKF(tf_rank_cursor_next(m, &ev) == 0, "seed %" PRIu64 " %s: events for missing rank %d", seed, what, r);
        tf_rank_cursor_close(m);
      }
      continue;
    }
    ok &= compare_cursor(tr, r, &R->s[r], R->const_times, what, seed);
  }
  return ok;
}

/* ============================================ 1. synthetic multi-rank runs */

enum { V_STENCIL = 1, V_VALUES = 2, V_ITERS = 4, V_MASTER = 8, V_NOISE = 16, V_EMPTY = 32 };

/* One rank's variation of the template. */
typedef struct rankvar {
  int rank, P, px, py;
  unsigned bits;
  uint64_t salt;
} rankvar;

static unsigned hsel(const rankvar *v, uint32_t id, unsigned what, unsigned n) {
  return (unsigned)(mix(v->salt, ((uint64_t)id << 8) | what) % n);
}

/* stencil neighbours on a px x py grid: left, right, up, down */
static int has_neighbour(const rankvar *v, unsigned dir) {
  int cx = v->rank % v->px, cy = v->rank / v->px;
  switch (dir) {
  case 0: return cx > 0;
  case 1: return cx < v->px - 1;
  case 2: return cy > 0;
  default: return cy < v->py - 1;
  }
}

/* (b) an event (or, rarely, a whole loop) talks to one neighbour: boundary ranks skip it */
static int hook_skip(void *ctx, const pnode *x) {
  const rankvar *v = ctx;
  if (v->bits & V_EMPTY) return 1;
  if (!(v->bits & V_STENCIL)) return 0;
  unsigned d = hsel(v, x->id, 1, x->is_loop ? 12 : 7);
  return d < 4 && !has_neighbour(v, d);
}

/* (d) iteration counts that depend on the rank */
static int64_t hook_iters(void *ctx, const pnode *x, int64_t it) {
  const rankvar *v = ctx;
  if (!(v->bits & V_ITERS)) return it;
  switch (hsel(v, x->id, 2, 6)) {
  case 0: return it + v->rank % 3;
  case 1: return v->rank == v->P - 1 ? it + 2 : it;
  case 2: return (v->rank & 1) && it > 0 ? it - 1 : it; /* may be 0: the loop vanishes there */
  case 3: return it + (v->rank / 2) % 4;
  default: return it;
  }
}

/* (c) values that depend on the rank (request ids and array lengths stay) */
static void hook_values(void *ctx, const pnode *x, int64_t *vals, uint32_t n) {
  const rankvar *v = ctx;
  if (!(v->bits & V_VALUES)) return;
  const tf_func_desc *fd = &funcs[x->fn];
  uint32_t at = 0;
  for (uint32_t k = 0; k < fd->nfields && at < n; k++) {
    const tf_field_desc *f = &fd->fields[k];
    int64_t len = f->is_array ? vals[at++] : 1;
    int req = f->kind == TF_FIELD_REQ || f->kind == TF_FIELD_REQ_NEW;
    unsigned mode = hsel(v, x->id, 10 + k, 8);
    for (int64_t j = 0; j < len && at < n; j++, at++) {
      if (req) continue;
      int64_t *p = &vals[at];
      switch (mode) {
      case 0: *p = v->rank; break;                       /* root = the absolute rank */
      case 1: *p = wadd(*p, wmul(v->rank, 3)); break;    /* a value that grows with the rank */
      case 2: if (v->rank % 3 == 0) *p = wadd(*p, 5); break; /* counts that differ on some ranks */
      case 3: if (v->rank == 0) *p = 77; break;
      case 4: *p = wadd(*p, v->rank % v->px); break;     /* depends on the grid column */
      default: break;
      }
    }
  }
}

/* (e) the master does extra work between iterations: sends to workers in turn */
static void hook_main_iter(void *ctx, gen *g, int64_t k) {
  const rankvar *v = ctx;
  if (!(v->bits & V_MASTER) || v->rank != 0 || (v->bits & V_EMPTY)) return;
  int n = 1 + (int)(k % 3);
  for (int i = 0; i < n; i++) {
    int64_t w = v->P > 1 ? 1 + (k * 3 + i) % (v->P - 1) : 0;
    int64_t vals[4] = {k + i, w, 100 + i, 1}; /* MPI_Send count, dest, tag, comm */
    emit(g, 1, 0, 60 + (uint32_t)i, vals, 4);
  }
  if (k % 4 == 0) emit(g, 0, 0, 63, NULL, 0);
}

static const gen_hooks hooks_proto = {NULL, hook_skip, hook_iters, hook_values, hook_main_iter};

static int grid_px(int P) {
  int px = 1;
  for (int d = 1; d * d <= P; d++)
    if (P % d == 0) px = d;
  return px;
}

typedef struct merge_case {
  uint64_t seed;
  int P, order, kind, same_rng, other_master;
  unsigned bits;
  size_t cap;
  size_t budget; /* per rank */
} merge_case;

static const char *const kind_names[] = {"identical", "stencil", "values", "iterations", "master", "noise",
                                         "all", "mixed"};

/* Generate the P streams of a case. */
static void gen_run(const merge_case *mc, run *R) {
  int P = mc->P;
  R->P = P;
  R->s = calloc((size_t)P, sizeof *R->s);
  R->lost = calloc((size_t)P, sizeof *R->lost);
  R->fsize = calloc((size_t)P, sizeof *R->fsize);
  if (!R->s || !R->lost || !R->fsize) abort();
  program prog, master;
  if (mc->other_master) gen_program(&master, mc->seed ^ 0x5a5a5a);
  gen_program(&prog, mc->seed);
  R->const_times = prog.const_times;
  /* the number of main-loop iterations every rank runs: what the budget allows the plain template */
  gen g;
  gen_init(&g, &prog);
  g.budget = mc->budget;
  rng = mix(mc->seed, 0);
  run_program(&g, &prog);
  int64_t M = g.main_done;
  stream_free(&g.s);
  int px = grid_px(P), empty_rank = (mc->bits & V_EMPTY) ? P / 2 : -1;
  for (int r = 0; r < P; r++) {
    rankvar v = {.rank = r, .P = P, .px = px, .py = P / px, .bits = mc->bits, .salt = mix(mc->seed, 77)};
    if (r != empty_rank) v.bits &= ~(unsigned)V_EMPTY;
    gen_hooks h = hooks_proto;
    h.ctx = &v;
    const program *p = r == 0 && mc->other_master ? &master : &prog;
    gen_init(&g, p);
    g.const_times = prog.const_times;
    if (!(r == 0 && mc->other_master)) {
      g.hooks = &h;
      g.main_iters = M + ((v.bits & V_ITERS) && hsel(&v, 9999, 3, 3) == 0 ? r % 2 : 0);
      g.budget = 3 * mc->budget + 50;
    } else
      g.budget = mc->budget;
    if ((v.bits & V_NOISE) && mix(mc->seed, (uint64_t)r + 5000) % 3 == 0) {
      static const unsigned nz[] = {1, 10, 100};
      g.noise = nz[mix(mc->seed, (uint64_t)r) % 3];
    }
    rng = mix(mc->seed, mc->same_rng ? 1 : (uint64_t)r + 2);
    run_program(&g, p);
    R->s[r] = g.s;
  }
  free_program(&prog);
  if (mc->other_master) free_program(&master);
  if (mix(mc->seed, 6) % 6 == 1)
    for (int r = 0; r < P; r++) R->lost[r] = r % 3 ? 0 : (uint64_t)r + 1;
  R->partial = mix(mc->seed, 7) % 11 == 5 ? TF_PARTIAL_SIGNAL : 0;
}

static const int Ps[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 64};
#define NPS ((int)(sizeof Ps / sizeof Ps[0]))

/* The rank count of a seed: every P in turn, 32 and 64 a third as often (time) */
static int seed_P(uint64_t i) {
  int P = Ps[i % NPS];
  if (P >= 32 && (i / NPS) % 3 != 0) P = Ps[(i / NPS) % (NPS - 2)];
  return P;
}

static merge_case make_case(uint64_t seed, int P) {
  merge_case mc = {.seed = seed, .P = P};
  rng = mix(seed, 12345);
  mc.kind = (int)(seed % 8);
  static const unsigned kb[] = {0, V_STENCIL, V_VALUES, V_ITERS, V_MASTER, V_NOISE,
                                V_STENCIL | V_VALUES | V_ITERS | V_MASTER | V_NOISE, 0};
  mc.bits = kb[mc.kind];
  if (mc.kind == 7) mc.bits = (unsigned)rndn(32);
  if (mc.kind != 0 && P >= 3 && seed % 13 == 6) mc.bits |= V_EMPTY;
  mc.other_master = (mc.bits & V_MASTER) && (seed / 8) % 2 == 1;
  mc.same_rng = mc.kind == 0 || permille(400);
  static const size_t totals[] = {100, 500, 1500, 4000};
  size_t total = totals[rndn(4)];
  mc.budget = total / (size_t)P < 20 ? 20 : total / (size_t)P;
  mc.cap = seed % 5 == 2 ? 16 << 10 : seed % 5 == 4 ? 4 << 10 : (size_t)64 << 20;
  mc.order = (int)(mix(seed, 2) % ORD_N);
  return mc;
}

typedef struct part1_stats {
  int seeds, failed;
  uint64_t events, ranks_checked, merged_bytes, file_bytes;
  int dir_opens, multi_segment;
  uint64_t flat_runs, flat_run_events; /* kept as runs through the merge (keep_runs) */
  double t_gen, t_write, t_merge, t_encode, t_read, t_dir; /* cpu seconds by phase */
  double ident_worst; /* identical ranks: merged bytes / one rank's file */
  int remerged; /* seeds whose trace was merged again in rank order, and read back */
} part1_stats;

/* One case: generate, write, merge, encode, read back every rank. */
static void merge_round_trip(const merge_case *mc, int verbose, part1_stats *st) {
  run R = {0};
  double t0 = cpu_seconds();
  gen_run(mc, &R);
  st->t_gen += cpu_seconds() - t0;
  uint64_t seed = mc->seed;
  snprintf(R.dir, sizeof R.dir, "%s/run", workdir);
  mkdir(R.dir, 0700);
  snprintf(current_case, sizeof current_case, "merge seed %" PRIu64 " P %d", seed, mc->P);
  int before = failures;
  if (!R.const_times) tb_fill(&R);
  t0 = cpu_seconds();
  int mixed_caps = mc->cap < (1 << 20) && mix(seed, 5) % 2;
  /* a third of the seeds with flat runs (not identical ranks: each rank's run is a node of its own) */
  keep_runs = mc->kind != 0 && mix(seed, 11) % 3 == 0;
  stream_flat_window = keep_runs ? 64 : 0;
  if (write_run(&R, mc->cap, mixed_caps)) {
    run_free(&R);
    return;
  }
  st->t_write += cpu_seconds() - t0;
  if (R.maxseg > 1) st->multi_segment++;
  tf_mtrace t;
  t0 = cpu_seconds();
  int brc = build_merged(&R, mc->order, &t, seed);
  st->t_merge += cpu_seconds() - t0;
  for (uint32_t i = 0; brc == 0 && i < t.ntop; i++)
    if (t.top[i]->run) st->flat_runs++, st->flat_run_events += t.top[i]->run->nevents;
  if (brc == 0) {
    t0 = cpu_seconds();
    tf_buf b[2] = {{0}, {0}};
    for (int l = 0; l < 2; l++) CHECK(tf_mtrace_encode(&t, &b[l], l * 3) == 0 && !b[l].failed);
    /* decode + encode gives the same bytes */
    tf_mtrace d;
    char err[512] = "";
    tf_status ds = mix(seed, 4) % 2 ? TF_OK : tf_mtrace_decode_runs(b[0].data, b[0].len, "merged", &d, err, sizeof err);
    CHECKF(ds == TF_OK, "seed %" PRIu64 ": tf_mtrace_decode: %s", seed, err);
    if (ds == TF_OK && mix(seed, 4) % 2 == 0) {
      tf_buf b2 = {0};
      CHECK(tf_mtrace_encode(&d, &b2, 0) == 0);
      CHECKF(b2.len == b[0].len && memcmp(b2.data, b[0].data, b2.len) == 0,
             "seed %" PRIu64 ": decoded and encoded again: %zu bytes, was %zu", seed, b2.len, b[0].len);
      tf_buf_free(&b2);
      tf_mtrace_free(&d);
    }
    tf_mtrace_free(&t);
    st->t_encode += cpu_seconds() - t0;
    t0 = cpu_seconds();
    for (int l = 0; l < 2; l++) {
      tf_trace *tr = NULL;
      char name[64];
      snprintf(name, sizeof name, "merged-seed-%" PRIu64 "-z%d", seed, l * 3);
      tf_status os = tf_trace_open_mem(b[l].data, b[l].len, name, &tr, err, sizeof err);
      CHECKF(os == TF_OK, "seed %" PRIu64 ": tf_trace_open_mem (zstd %d): %s", seed, l * 3, err);
      if (os != TF_OK) continue;
      check_trace(tr, &R, NULL, TF_SOURCE_MERGED, b[l].len, l ? "merged, zstd 3" : "merged, zstd 0", seed);
      if (l == 1 && mc->P <= 17 && mix(seed, 8) % 4 == 1) compare_interleaved(tr, &R, "merged", seed);
      tf_trace_close(tr);
    }
    if (mix(seed, 12) % 3 == 0) { /* merged again in rank order (tf_mtrace_remerge): still every rank's stream */
      tf_mtrace again;
      tf_buf b3 = {0};
      tf_status as = tf_mtrace_decode_runs(b[0].data, b[0].len, "merged", &again, err, sizeof err);
      CHECKF(as == TF_OK, "seed %" PRIu64 ": tf_mtrace_decode_runs: %s", seed, err);
      if (as == TF_OK) {
        int rr = tf_mtrace_remerge(&again, err, sizeof err);
        CHECKF(rr == 0, "seed %" PRIu64 ": tf_mtrace_remerge: %s", seed, err);
        if (rr == 0) CHECK(tf_mtrace_encode(&again, &b3, 0) == 0 && !b3.failed);
        tf_mtrace_free(&again);
        tf_trace *tr = NULL;
        tf_status os = rr ? TF_ERR_ARG : tf_trace_open_mem(b3.data, b3.len, "merged-again", &tr, err, sizeof err);
        CHECKF(rr || os == TF_OK, "seed %" PRIu64 ": the trace merged again does not open: %s", seed, err);
        if (os == TF_OK) {
          check_trace(tr, &R, NULL, TF_SOURCE_MERGED, b3.len, "merged again in rank order", seed);
          tf_trace_close(tr);
          st->remerged++;
        }
      }
      tf_buf_free(&b3);
    }
    st->merged_bytes += b[0].len;
    if (mc->kind == 0 && !mixed_caps && mc->P > 1) { /* identical ranks: about one rank's file */
      double ratio = (double)b[0].len / (double)R.fsize[0];
      if (ratio > st->ident_worst) st->ident_worst = ratio;
      CHECKF(b[0].len <= 2 * (uint64_t)R.fsize[0] + 512, "seed %" PRIu64 ": %d identical ranks merge into %zu bytes, "
             "one rank's file has %ld", seed, mc->P, b[0].len, R.fsize[0]);
    }
    st->file_bytes += (uint64_t)R.fsum;
    st->t_read += cpu_seconds() - t0;
    t0 = cpu_seconds();

    /* 2. the same files through tf_trace_open */
    if (mix(seed, 3) % 6 == 0) {
      tf_trace *tr = NULL;
      tf_status os = tf_trace_open(R.dir, 0, &tr, err, sizeof err);
      CHECKF(os == TF_OK, "seed %" PRIu64 ": tf_trace_open(%s): %s", seed, R.dir, err);
      if (os == TF_OK) {
        check_trace(tr, &R, NULL, TF_SOURCE_COMPRESSED, (uint64_t)R.fsum, "directory", seed);
        tf_trace_close(tr);
        st->dir_opens++;
      }
    }
    if (seed % 9 == 3 && mc->P >= 2) { /* the merged file alone in a directory, and by its path */
      char d2[160], fp[192];
      snprintf(d2, sizeof d2, "%s/merged", workdir);
      mkdir(d2, 0700);
      snprintf(fp, sizeof fp, "%s/%s", d2, TF_TRACE_FILE);
      put_bytes(fp, b[1].data, (long)b[1].len);
      for (int k = 0; k < 2; k++) {
        tf_trace *tr = NULL;
        tf_status os = tf_trace_open(k ? fp : d2, 0, &tr, err, sizeof err);
        CHECKF(os == TF_OK, "seed %" PRIu64 ": tf_trace_open(%s): %s", seed, k ? fp : d2, err);
        if (os == TF_OK) {
          check_trace(tr, &R, NULL, TF_SOURCE_MERGED, b[1].len, k ? "merged file" : "directory with the merged file",
                      seed);
          tf_trace_close(tr);
        }
      }
      remove(fp);
      rmdir(d2);
    }
    tf_buf_free(&b[0]);
    tf_buf_free(&b[1]);
    if (seed % 9 == 6 && mc->P >= 2) { /* one per-rank file, by its path */
      int k = (int)(seed % (uint64_t)mc->P);
      int *present = calloc((size_t)mc->P, sizeof *present);
      present[k] = 1;
      char p[256];
      rank_path(p, sizeof p, R.dir, k);
      tf_trace *tr = NULL;
      tf_status os = tf_trace_open(p, 0, &tr, err, sizeof err);
      CHECKF(os == TF_OK, "seed %" PRIu64 ": tf_trace_open(%s): %s", seed, p, err);
      if (os == TF_OK) {
        check_trace(tr, &R, present, TF_SOURCE_COMPRESSED, (uint64_t)R.fsize[k], "one per-rank file", seed);
        tf_trace_close(tr);
      }
      free(present);
    }
    if (seed % 9 == 0 && mc->P >= 3) { /* a directory with one rank's file missing (a partial run) */
      int k = 1 + (int)(seed % (uint64_t)(mc->P - 1));
      int *present = calloc((size_t)mc->P, sizeof *present);
      for (int r = 0; r < mc->P; r++) present[r] = r != k;
      char p[256];
      rank_path(p, sizeof p, R.dir, k);
      remove(p);
      tf_trace *tr = NULL;
      tf_status os = tf_trace_open(R.dir, 0, &tr, err, sizeof err);
      CHECKF(os == TF_OK, "seed %" PRIu64 ": tf_trace_open(%s) without rank %d: %s", seed, R.dir, k, err);
      if (os == TF_OK) {
        check_trace(tr, &R, present, TF_SOURCE_COMPRESSED, (uint64_t)(R.fsum - R.fsize[k]), "directory, a rank missing",
                    seed);
        tf_trace_close(tr);
      }
      free(present);
    }
    st->t_dir += cpu_seconds() - t0;
  }
  st->seeds++;
  st->events += run_nevents(&R);
  st->ranks_checked += (uint64_t)mc->P;
  if (failures != before) {
    st->failed++;
    fprintf(stderr, "merge: seed %" PRIu64 " FAILED (P %d, %s, order %s, bits %#x, cap %zu, budget %zu, %" PRIu64
                    " events)\n",
            seed, mc->P, kind_names[mc->kind], ord_names[mc->order], mc->bits, mc->cap, mc->budget, run_nevents(&R));
  }
  if (verbose)
    printf("seed %" PRIu64 ": P %d, %s, order %s, bits %#x, cap %zu, %" PRIu64 " events, files %ld bytes (up to %u "
           "segments)\n",
           seed, mc->P, kind_names[mc->kind], ord_names[mc->order], mc->bits, mc->cap, run_nevents(&R), R.fsum,
           R.maxseg);
  clear_dir(R.dir, mc->P);
  run_free(&R);
  free(tb);
  tb = NULL;
}

static void test_merge_seeds(uint64_t first, int nseeds, int verbose) {
  part1_stats st = {0};
  for (int i = 0; i < nseeds; i++) {
    uint64_t seed = first + (uint64_t)i;
    merge_case mc = make_case(seed, seed_P(seed));
    watchdog(60);
    merge_round_trip(&mc, verbose, &st);
    watchdog(0);
  }
  printf("part 1-2, lossless merge: %d seeds (P from 1 to 64), %d failed; %" PRIu64 " events on %" PRIu64
         " ranks read back through every cursor; %d runs with multi-segment files; %d read as a directory; "
         "merged %" PRIu64 " bytes (zstd 0) vs %" PRIu64 " bytes of per-rank files\n",
         st.seeds, st.failed, st.events, st.ranks_checked, st.multi_segment, st.dir_opens, st.merged_bytes,
         st.file_bytes);
  keep_runs = 0; /* the other cases load files as before */
  stream_flat_window = 0;
  printf("part 1-2, flat runs kept through the merge: %" PRIu64 " runs, %" PRIu64 " events\n", st.flat_runs,
         st.flat_run_events);
  CHECKF(nseeds < 50 || st.flat_runs > 0, "%d seeds and no flat run reached a merged trace", nseeds);
  printf("part 1-2, identical ranks: merged trace at most %.2fx one rank's file\n", st.ident_worst);
  printf("part 1-2, merged again in rank order (tf_mtrace_remerge): %d seeds, every rank read back\n", st.remerged);
  CHECKF(nseeds < 30 || st.remerged > 0, "%d seeds and none merged again in rank order", nseeds);
  printf("part 1-2, cpu: generate %.2f s, write files %.2f s, load+merge %.2f s, encode+decode %.2f s, read merged "
         "%.2f s, open directories %.2f s\n",
         st.t_gen, st.t_write, st.t_merge, st.t_encode, st.t_read, st.t_dir);
}

/* Merges that must be refused (mtrace.h: -1 with a message, src freed, dst
 * unchanged): ranks out of order or twice, runs of different sizes,
 * different function tables. The refused merges leave a trace that still
 * merges on and reads back exactly. */
static int same_encoding(tf_mtrace *t, const tf_buf *ref) {
  tf_buf b = {0};
  int same = tf_mtrace_encode(t, &b, 0) == 0 && b.len == ref->len && memcmp(b.data, ref->data, b.len) == 0;
  tf_buf_free(&b);
  return same;
}

static void refuse(tf_mtrace *dst, tf_mtrace *src, const char *what) {
  tf_buf before = {0};
  CHECK(tf_mtrace_encode(dst, &before, 0) == 0);
  char err[512] = "";
  int rc = tf_mtrace_merge(dst, src, err, sizeof err);
  CHECKF(rc == -1 && err[0], "%s: tf_mtrace_merge gives %d ('%s')", what, rc, err);
  CHECKF(same_encoding(dst, &before), "%s: the refused merge changed the destination", what);
  printf("refused merge, %s: %s\n", what, err);
  tf_buf_free(&before);
}

static void stencil_stream(stream *s, int r, int px, int py, int iters);
static long parse_rank_text(const char *text, int64_t *out, long max);

static void test_refusals(void) {
  run R = {.P = 4, .const_times = 1};
  R.s = calloc(4, sizeof *R.s);
  R.lost = calloc(4, sizeof *R.lost);
  R.fsize = calloc(4, sizeof *R.fsize);
  for (int r = 0; r < 4; r++) stencil_stream(&R.s[r], r, 2, 2, 7);
  snprintf(R.dir, sizeof R.dir, "%s/refuse", workdir);
  mkdir(R.dir, 0700);
  snprintf(current_case, sizeof current_case, "refused merges");
  watchdog(60);
  tf_mtrace t[4], x;
  if (write_run(&R, (size_t)1 << 20, 0) || load_rank(&R, 0, &t[0]) || load_rank(&R, 1, &t[1])) goto out;
  refuse(&t[1], &t[0], "rank 0 into rank 1 (out of order)");
  CHECK(load_rank(&R, 0, &t[0]) == 0);
  char err[512];
  CHECK(tf_mtrace_merge(&t[0], &t[1], err, sizeof err) == 0); /* t[0]: ranks 0, 1 */
  CHECK(load_rank(&R, 1, &x) == 0);
  refuse(&t[0], &x, "rank 1 twice");
  CHECK(load_rank(&R, 0, &x) == 0);
  refuse(&t[0], &x, "rank 0 into ranks 0 and 1");
  { /* rank 2 of a run of 5 ranks */
    char p[256];
    snprintf(p, sizeof p, "%s/other.tfc", R.dir);
    uint32_t ns;
    write_rank(p, &R.s[2], 2, 5, (size_t)1 << 20, 0, 0, &ns);
    tf_file_reader *fr;
    if (tf_file_open(p, &fr, err, sizeof err) == TF_OK) {
      CHECK(tf_mtrace_from_file(&x, fr) == 0);
      tf_file_close(fr);
      refuse(&t[0], &x, "a rank of a run of 5 ranks into a run of 4");
    }
    /* the same functions, their first fields named otherwise */
    static tf_func_desc other[NFUNCS];
    static tf_field_desc other_fields[NFUNCS][8];
    for (uint32_t f = 0; f < NFUNCS; f++) {
      other[f] = funcs[f];
      for (uint32_t k = 0; k < funcs[f].nfields && k < 8; k++) other_fields[f][k] = funcs[f].fields[k];
      if (funcs[f].nfields) {
        other_fields[f][0].name = "renamed";
        other[f].fields = other_fields[f];
      }
    }
    write_funcs = other;
    write_rank(p, &R.s[2], 2, 4, (size_t)1 << 20, 0, 0, &ns);
    write_funcs = funcs;
    if (tf_file_open(p, &fr, err, sizeof err) == TF_OK) {
      CHECK(tf_mtrace_from_file(&x, fr) == 0);
      tf_file_close(fr);
      refuse(&t[0], &x, "another function table");
    }
    remove(p);
  }
  /* and the trace merges on, exactly */
  CHECK(load_rank(&R, 2, &t[2]) == 0 && load_rank(&R, 3, &t[3]) == 0);
  CHECK(tf_mtrace_merge(&t[2], &t[3], err, sizeof err) == 0);
  CHECK(tf_mtrace_merge(&t[0], &t[2], err, sizeof err) == 0);
  tf_buf b = {0};
  CHECK(tf_mtrace_encode(&t[0], &b, 0) == 0);
  tf_mtrace_free(&t[0]);
  tf_trace *tr;
  if (tf_trace_open_mem(b.data, b.len, "after refusals", &tr, err, sizeof err) == TF_OK) {
    check_trace(tr, &R, NULL, TF_SOURCE_MERGED, b.len, "after refused merges", 0);
    tf_trace_close(tr);
  } else
    CHECKF(0, "after refused merges: %s", err);
  tf_buf_free(&b);

  /* a directory of files from two runs (4 and 5 ranks) is refused with a message */
  {
    char p[256];
    uint32_t ns;
    rank_path(p, sizeof p, R.dir, 3);
    write_rank(p, &R.s[3], 3, 5, (size_t)1 << 20, 0, 0, &ns);
    err[0] = 0;
    tf_status st = tf_trace_open(R.dir, 0, &tr, err, sizeof err);
    CHECKF(st != TF_OK && err[0], "a directory with files of runs of 4 and 5 ranks: %s, '%s'", tf_status_name(st), err);
    if (st == TF_OK) tf_trace_close(tr);
    else
      printf("directory of two runs: %s\n", err);
  }
  clear_dir(R.dir, 4);

  /* a sparse partial run: ranks 0, 5, 70000 and 99999 of 100000 (large, far apart rank numbers) */
  {
    static const int ranks[4] = {0, 5, 70000, 99999};
    for (int k = 0; k < 4; k++) {
      char p[256];
      uint32_t ns;
      rank_path(p, sizeof p, R.dir, ranks[k]);
      write_rank(p, &R.s[k], ranks[k], 100000, (size_t)1 << 20, 0, 0, &ns);
    }
    tf_status st = tf_trace_open(R.dir, 0, &tr, err, sizeof err);
    CHECKF(st == TF_OK, "sparse ranks: %s", err);
    if (st == TF_OK) {
      const tf_trace_info *in = tf_trace_get_info(tr);
      CHECKF(in->nranks == 100000 && in->nranks_present == 4, "sparse ranks: nranks %d, present %d", in->nranks,
             in->nranks_present);
      for (int k = 0; k < 4; k++) {
        uint64_t n = 0;
        CHECKF(tf_trace_rank(tr, ranks[k], &n, NULL) == 1 && n == R.s[k].n, "sparse ranks: rank %d", ranks[k]);
        CHECK(tf_trace_rank(tr, ranks[k] + 1, NULL, NULL) == 0);
        compare_cursor(tr, ranks[k], &R.s[k], 1, "sparse ranks", 0);
      }
      const tf_node *const *top;
      char text[256];
      if (tf_trace_top(tr, &top) > 0) {
        tf_node_ranks(top[0], text, sizeof text);
        int64_t got[8];
        long nr = parse_rank_text(text, got, 8);
        CHECKF(nr >= 1 && nr <= 4, "sparse ranks: top node on '%s'", text);
        for (long i = 0; i < nr; i++) CHECKF(got[i] == 0 || got[i] == 5 || got[i] == 70000 || got[i] == 99999,
                                           "sparse ranks: top node on '%s'", text);
        printf("sparse ranks 0, 5, 70000, 99999 of 100000: top node on %s\n", text);
      }
      tf_trace_close(tr);
    }
    for (int k = 0; k < 4; k++) {
      char p[256];
      rank_path(p, sizeof p, R.dir, ranks[k]);
      remove(p);
    }
  }
out:
  watchdog(0);
  clear_dir(R.dir, 4);
  rmdir(R.dir);
  run_free(&R);
}

static void test_lossless(void) {
  test_merge_seeds(5000, 310, 0);
}

/* ===================================================== CST ids */

/* Rank `rank`'s file in dir: guided loops, each loops[k] = {CST id, iterations, functions of
 * its body (MPI_Barrier at these call sites, -1 ends)}. */
typedef struct cst_loop {
  uint32_t id, iters;
  int body[4];
} cst_loop;

static void write_guided_rank(const char *dir, int rank, int P, const cst_loop *loops, int nloops) {
  char path[256], err[512];
  rank_path(path, sizeof path, dir, rank);
  tf_file_info info = {.rank = rank, .nranks = P, .thread_level = 0, .start_unix_ns = start_ns(rank), .exe = "synthetic",
                       .mpi = "none", .timing = TF_TIMING_DEFAULT, .bins = TF_BINS_DEFAULT, .nfuncs = NFUNCS,
                       .funcs = funcs};
  fresh(path);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return;
  for (uint32_t site = 0; site < 4; site++) CHECK(tf_file_writer_callsite(w, site, site_sig(site), "m", site) == 0);
  tf_compressor c;
  CHECK(tf_compressor_init(&c, funcs, NFUNCS, (size_t)64 << 20) == 0);
  c.cst_guided = 1;
  for (int k = 0; k < nloops; k++) {
    tf_cst_marker enter = tf_cst_pack(TF_CST_ENTER, loops[k].id), iter = tf_cst_pack(TF_CST_ITER, loops[k].id),
                  exit_ = tf_cst_pack(TF_CST_EXIT, loops[k].id);
    CHECK(tf_compressor_cst_markers(&c, 0, &enter, 1) == 0);
    for (uint32_t i = 0; i < loops[k].iters; i++) {
      CHECK(tf_compressor_cst_markers(&c, 0, &iter, 1) == 0);
      for (int j = 0; j < 4 && loops[k].body[j] >= 0; j++)
        CHECK(tf_compressor_event(&c, w, 0, 0, (uint32_t)loops[k].body[j], 1000, 7, 0, NULL) >= 0);
    }
    CHECK(tf_compressor_cst_markers(&c, 0, &exit_, 1) == 0);
  }
  CHECK(tf_compressor_event(&c, w, 0, 0, 3, 1000, 7, 0, NULL) >= 0); /* the last markers go in with it */
  CHECK(tf_compressor_finish(&c, w) == 0);
  tf_compressor_free(&c);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
}

/* The top-level loops of dir's per-rank files merged (flags: tf_trace_open), each as
 * "cstID:nranks" or "-:nranks" (no id), in order, into buf. */
static void merged_loops(const char *dir, unsigned flags, char *buf, size_t len) {
  tf_trace *t;
  char err[512];
  buf[0] = 0;
  CHECKF(tf_trace_open(dir, flags, &t, err, sizeof err) == TF_OK, "%s", err);
  if (!t) return;
  CHECKF(tf_trace_validate(t, err, sizeof err) == TF_OK, "%s", err);
  const tf_node *const *top;
  uint32_t n = tf_trace_top(t, &top);
  size_t at = 0;
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(top[i], &ni);
    if (!ni.is_loop) continue;
    if (ni.cst >= 0) at += (size_t)snprintf(buf + at, len - at, "%scst%lld:%u", at ? " " : "", (long long)ni.cst, ni.nranks);
    else at += (size_t)snprintf(buf + at, len - at, "%s-:%u", at ? " " : "", ni.nranks);
  }
  tf_trace_close(t);
}

/* Loops of one CST id align across ranks whatever their bodies (a branch taken differently);
 * loops of different ids never do, even with equal bodies; merged by keys (ids dropped), the
 * alignment is the one by bodies. */
static void test_cst_ids(void) {
  char dir[128], got[256];
  snprintf(dir, sizeof dir, "%s/cst", workdir);
  mkdir(dir, 0700);
  static const cst_loop rank0[] = {{7, 3, {0, 1, -1}}, {9, 2, {0, -1}}};
  static const cst_loop rank1[] = {{7, 3, {0, 2, -1}}, {11, 2, {0, -1}}};
  write_guided_rank(dir, 0, 2, rank0, 2);
  write_guided_rank(dir, 1, 2, rank1, 2);
  merged_loops(dir, 0, got, sizeof got);
  CHECKF(strcmp(got, "cst7:2 cst9:1 cst11:1") == 0, "merged by CST ids: %s", got);
  merged_loops(dir, TF_OPEN_MERGE_BY_KEYS, got, sizeof got);
  CHECKF(strcmp(got, "-:2 -:2") == 0, "merged by keys: %s", got);
  clear_dir(dir, 2);
  rmdir(dir);
}

/* ===================================================== 3. stencil, size */

/* Rank r of a px x py grid: per iteration, Irecv and Isend with each
 * neighbour (left, right, up, down: one call site each), Waitall, and an
 * Alltoallv every 10th iteration. Request ids count from 0. */
static void stencil_stream(stream *s, int r, int px, int py, int iters) {
  int cx = r % px, cy = r / px;
  int64_t peer[4] = {-1, 1, -px, px};
  int has[4] = {cx > 0, cx < px - 1, cy > 0, cy < py - 1};
  int64_t req = 0;
  for (int it = 0; it < iters; it++) {
    int64_t first = req;
    int n = 0;
    for (int d = 0; d < 4; d++)
      if (has[d]) {
        int64_t v[3] = {peer[d], 7, req++};
        stream_add(s, 3, 0, (uint32_t)d, 1000, 7, 3, v);
        n++;
      }
    for (int d = 0; d < 4; d++)
      if (has[d]) {
        int64_t v[4] = {128, peer[d], 7, req++};
        stream_add(s, 2, 0, 4 + (uint32_t)d, 1000, 7, 4, v);
        n++;
      }
    int64_t w[1 + 2 * 2 * 8 + 2];
    int k = 0;
    w[k++] = 2 * n;
    w[k++] = 2 * n;
    for (int j = 0; j < 2 * n; j++) w[k++] = first + j;
    w[k++] = 2 * n;
    for (int j = 0; j < 2 * n; j++) w[k++] = 7;
    stream_add(s, 5, 0, 8, 1000, 7, (uint32_t)k, w);
    if (it % 10 == 9) {
      int64_t a[7] = {2, 64, 64, 0, 2, 64, 64};
      stream_add(s, 6, 0, 9, 1000, 7, 7, a);
    }
  }
}

typedef struct walk_stats {
  uint64_t event_occ;
  uint32_t nodes, events, bad_sites;
  int bad;
} walk_stats;

/* Parse a rank-list text ("<d start c1 s1 ... cd sd>" blocks, "(...)xN+S"
 * repeats) into out (at most max ranks); number of ranks, or -1. */
static long parse_ranks(const char **p, int64_t *out, long n, long max, int64_t shift, int depth) {
  while (**p) {
    while (**p == ' ') (*p)++;
    if (**p == '<') {
      (*p)++;
      char *e;
      long d = strtol(*p, &e, 10);
      if (e == *p || d < 0 || d > 8) return -1;
      *p = e;
      int64_t start = strtoll(*p, &e, 10), c[8], s[8];
      if (e == *p) return -1;
      *p = e;
      for (long k = 0; k < d; k++) {
        c[k] = strtoll(*p, &e, 10);
        if (e == *p || c[k] < 1) return -1;
        *p = e;
        s[k] = strtoll(*p, &e, 10);
        if (e == *p) return -1;
        *p = e;
      }
      while (**p == ' ') (*p)++;
      if (**p != '>') return -1;
      (*p)++;
      int64_t idx[8] = {0};
      for (;;) { /* odometer over the d dimensions, innermost last */
        int64_t v = start + shift;
        for (long k = 0; k < d; k++) v += idx[k] * s[k];
        if (n >= max) return -1;
        out[n++] = v;
        long k = d - 1;
        while (k >= 0 && ++idx[k] == c[k]) idx[k--] = 0;
        if (k < 0) break;
      }
    } else if (**p == '(') {
      (*p)++;
      long from = n;
      n = parse_ranks(p, out, n, max, shift, depth + 1);
      if (n < 0 || **p != ')') return -1;
      (*p)++;
      if (**p != 'x') return -1;
      (*p)++;
      char *e;
      long cnt = strtol(*p, &e, 10);
      if (e == *p || cnt < 1) return -1;
      *p = e;
      int64_t sh = 0;
      if (**p == '+' || **p == '-') {
        sh = strtoll(*p, &e, 10);
        *p = e;
      }
      long len = n - from;
      for (long r = 1; r < cnt; r++)
        for (long i = 0; i < len; i++) {
          if (n >= max) return -1;
          out[n++] = out[from + i] + r * sh;
        }
    } else if (**p == ')' && depth > 0)
      return n;
    else if (**p)
      return -1;
  }
  return depth == 0 ? n : -1;
}

static long parse_rank_text(const char *text, int64_t *out, long max) {
  const char *p = text;
  return parse_ranks(&p, out, 0, max, 0, 0);
}

/* Walk the node tree: occurrences add up, every node's ranks are a subset
 * of its parent's, and an event node's ranks all use its call site. */
static void walk_nodes(const tf_node *const *nodes, uint32_t n, const int64_t *parent, long nparent, const run *R,
                       const tf_trace_info *in, walk_stats *ws) {
  enum { MAXR = 4096 };
  int64_t *mine = malloc(MAXR * sizeof *mine);
  char *text = malloc(1 << 16);
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    ws->nodes++;
    tf_node_ranks(nodes[i], text, 1 << 16);
    long nr = parse_rank_text(text, mine, MAXR);
    if (nr < 1) {
      CHECKF(0, "node ranks '%.200s' do not parse", text);
      ws->bad++;
      continue;
    }
    for (long k = 0; k < nr; k++) {
      int in = 0;
      for (long j = 0; j < nparent && !in; j++) in = parent[j] == mine[k];
      if (!in || mine[k] < 0 || mine[k] >= R->P) {
        CHECKF(0, "node ranks '%.200s': rank %" PRId64 " not among its parent's", text, mine[k]);
        ws->bad++;
        break;
      }
    }
    if (ni.is_loop) {
      walk_nodes(ni.body, ni.nbody, mine, nr, R, in, ws);
      uint32_t np = tf_node_values(nodes[i], -1, 0, NULL, 0, NULL, 0);
      CHECKF(np >= 1 && np <= (uint32_t)nr, "loop with %u iteration-count pairs on %ld ranks", np, nr);
      continue;
    }
    ws->events++;
    ws->event_occ += ni.occurrences;
    int known = 0;
    for (uint32_t k = 0; k < in->ncallsites && !known; k++) known = in->callsites[k].sig == ni.callsite;
    if (!known) {
      ws->bad_sites++;
      continue;
    }
    for (long k = 0; k < nr; k++) { /* the rank has an event of this shape */
      const stream *s = &R->s[mine[k]];
      int found = 0;
      for (size_t e = 0; e < s->n && !found; e++)
        found = site_sig(s->e[e].site) == ni.callsite && same_fn(in->funcs, in->nfuncs, ni.fn, s->e[e].fn) &&
                s->e[e].thread == ni.thread;
      if (!found) {
        CHECKF(0, "event node fn %u site %" PRIx64 " holds rank %" PRId64 ", which has no such event", ni.fn,
               ni.callsite, mine[k]);
        ws->bad++;
        break;
      }
    }
    CHECKF(ni.compute_min == 1000 && ni.compute_max == 1000 && ni.compute_mean == 1000 && ni.duration_mean == 7,
           "event node times %" PRIu64 "/%" PRIu64 "/%" PRIu64, ni.compute_min, ni.compute_max, ni.compute_mean);
    for (int j = -1; j < (int)ni.nslots; j++) {
      char vt[256], rt[256];
      uint32_t np = tf_node_values(nodes[i], j, 0, vt, sizeof vt, rt, sizeof rt);
      CHECKF(np >= 1 && np <= (uint32_t)nr && vt[0] && rt[0], "event node slot %d: %u pairs", j, np);
    }
  }
  free(mine);
  free(text);
}

/* The stencil's point-to-point events (call sites 0-3: Irecv from left,
 * right, up, down; 4-7: Isend to them) are on exactly the ranks that have
 * that neighbour, and their peer slot holds the neighbour's offset on all
 * of them (one value pair). */
static void stencil_nodes(const tf_node *const *nodes, uint32_t n, int px, int py, uint8_t (*seen)[256], int *bad,
                          int verbose) {
  int64_t ranks[256];
  char text[4096], vt[64], rt[4096];
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      stencil_nodes(ni.body, ni.nbody, px, py, seen, bad, verbose);
      continue;
    }
    int d = -1;
    for (int k = 0; k < 8; k++)
      if (ni.callsite == site_sig((uint32_t)k)) d = k;
    if (d < 0) continue;
    tf_node_ranks(nodes[i], text, sizeof text);
    long nr = parse_rank_text(text, ranks, 256);
    int64_t peer = d % 4 == 0 ? -1 : d % 4 == 1 ? 1 : d % 4 == 2 ? -px : px;
    for (long k = 0; k < nr; k++) {
      int r = (int)ranks[k], cx = r % px, cy = r / px;
      int has = d % 4 == 0 ? cx > 0 : d % 4 == 1 ? cx < px - 1 : d % 4 == 2 ? cy > 0 : cy < py - 1;
      if (r < 0 || r >= px * py || !has) {
        CHECKF(0, "stencil %dx%d: the node of call site %d holds rank %d, which has no such neighbour (ranks %s)", px,
               py, d, r, text);
        ++*bad;
      } else
        seen[d][r] = 1;
    }
    char want[32];
    snprintf(want, sizeof want, "%" PRId64, peer);
    if (verbose) { /* 4x4: the classes are strided blocks, one each (ranklist.h, FORMAT.md 3.4) */
      static const char *const block[4] = {"<2 1 4 4 3 1>", "<2 0 4 4 3 1>", "<1 4 12 1>", "<1 0 12 1>"};
      printf("  %s %s on ranks %s\n", d < 4 ? "MPI_Irecv from" : "MPI_Isend to  ",
             (const char *[]){"left ", "right", "up   ", "down "}[d % 4], text);
      CHECKF(px != 4 || py != 4 || strcmp(text, block[d % 4]) == 0,
             "stencil 4x4: call site %d on ranks '%s', expected the one block '%s' (a merged rank list left unsealed?)",
             d, text, block[d % 4]);
    }
    uint32_t np = tf_node_values(nodes[i], d < 4 ? 0 : 1, 0, vt, sizeof vt, rt, sizeof rt);
    if (np != 1 || strcmp(vt, want) != 0 || strcmp(rt, text) != 0) {
      CHECKF(0, "stencil %dx%d: call site %d: %u peer pairs, first '%s' on %s (expected %s on %s)", px, py, d, np, vt,
             rt, want, text);
      ++*bad;
    }
  }
}

static void test_stencil_size(void) {
  static const int grids[3][2] = {{4, 4}, {8, 8}, {16, 16}};
  uint64_t merged[3][2] = {{0}};
  long files[3] = {0};
  for (int g = 0; g < 3; g++) {
    int px = grids[g][0], py = grids[g][1], P = px * py;
    run R = {.P = P, .const_times = 1};
    R.s = calloc((size_t)P, sizeof *R.s);
    R.lost = calloc((size_t)P, sizeof *R.lost);
    R.fsize = calloc((size_t)P, sizeof *R.fsize);
    for (int r = 0; r < P; r++) stencil_stream(&R.s[r], r, px, py, 50);
    snprintf(R.dir, sizeof R.dir, "%s/stencil", workdir);
    mkdir(R.dir, 0700);
    snprintf(current_case, sizeof current_case, "stencil %dx%d", px, py);
    watchdog(60);
    if (write_run(&R, (size_t)64 << 20, 0) == 0) {
      files[g] = R.fsum;
      tf_mtrace t;
      if (build_merged(&R, ORD_BINOMIAL, &t, 42) == 0) {
        tf_buf b[2] = {{0}, {0}};
        for (int l = 0; l < 2; l++) {
          CHECK(tf_mtrace_encode(&t, &b[l], 3 * l) == 0);
          merged[g][l] = b[l].len;
        }
        tf_mtrace_free(&t);
        tf_trace *tr = NULL;
        char err[512];
        tf_status os = tf_trace_open_mem(b[0].data, b[0].len, "stencil", &tr, err, sizeof err);
        CHECKF(os == TF_OK, "stencil %dx%d: %s", px, py, err);
        if (os == TF_OK) {
          check_trace(tr, &R, NULL, TF_SOURCE_MERGED, b[0].len, "stencil", (uint64_t)P);
          const tf_node *const *top;
          uint32_t ntop = tf_trace_top(tr, &top);
          int64_t all[256];
          for (int r = 0; r < P; r++) all[r] = r;
          walk_stats ws = {0};
          walk_nodes(top, ntop, all, P, &R, tf_trace_get_info(tr), &ws);
          CHECKF(ws.bad_sites == 0, "stencil %dx%d: tf_node_get gives %u of %u event nodes a call-site signature "
                 "that is not in the trace's call sites (tracefold.h: tf_node_info.callsite)", px, py, ws.bad_sites,
                 ws.events);
          CHECKF(ws.event_occ == run_nevents(&R), "stencil %dx%d: event nodes occur %" PRIu64 " times, %" PRIu64
                 " events", px, py, ws.event_occ, run_nevents(&R));
          static uint8_t seen[8][256];
          memset(seen, 0, sizeof seen);
          int bad = 0;
          stencil_nodes(top, ntop, px, py, seen, &bad, g == 0);
          for (int d = 0; d < 8 && !bad; d++)
            for (int r = 0; r < P; r++) {
              int cx = r % px, cy = r / px;
              int has = d % 4 == 0 ? cx > 0 : d % 4 == 1 ? cx < px - 1 : d % 4 == 2 ? cy > 0 : cy < py - 1;
              if (seen[d][r] != has) {
                CHECKF(0, "stencil %dx%d: rank %d %s an event of call site %d", px, py, r,
                       has ? "lacks" : "has", d);
                bad++;
                break;
              }
            }
          printf("stencil %dx%d: %u top-level nodes, %u nodes (%u events); merged %" PRIu64 " bytes (zstd 3: %" PRIu64
                 "), per-rank files %ld bytes in all\n",
                 px, py, ntop, ws.nodes, ws.events, merged[g][0], merged[g][1], files[g]);
          if (g == 0) { /* the structure, for the record */
            char text[256];
            for (uint32_t i = 0; i < ntop && i < 4; i++) {
              tf_node_ranks(top[i], text, sizeof text);
              tf_node_info ni;
              tf_node_get(top[i], &ni);
              printf("  top node %u: %s on ranks %s\n", i, ni.is_loop ? "loop" : "event", text);
            }
          }
          tf_trace_close(tr);
        }
        tf_buf_free(&b[0]);
        tf_buf_free(&b[1]);
      }
    }
    watchdog(0);
    clear_dir(R.dir, P);
    rmdir(R.dir);
    run_free(&R);
  }
  for (int l = 0; l < 2; l++)
    CHECKF(merged[2][l] > 0 && merged[2][l] * 10 <= merged[0][l] * 13,
           "stencil (zstd %d): merged %" PRIu64 " bytes at 256 ranks, %" PRIu64 " at 16 (> 1.3x)", 3 * l, merged[2][l],
           merged[0][l]);
  CHECKF(merged[1][0] > 0 && (long)merged[1][0] * 8 < files[1],
         "stencil: merged %" PRIu64 " bytes at 64 ranks, per-rank files %ld (not 8x smaller)", merged[1][0], files[1]);
  printf("part 3, size: merged stencil %" PRIu64 " / %" PRIu64 " / %" PRIu64 " bytes at 16 / 64 / 256 ranks (256 vs 16: "
         "%.2fx); at 64 ranks 1/%.0f of the per-rank files\n",
         merged[0][0], merged[1][0], merged[2][0], merged[0][0] ? (double)merged[2][0] / (double)merged[0][0] : 0.0,
         merged[1][0] ? (double)files[1] / (double)merged[1][0] : 0.0);
}

/* ======================================================== 4. rank lists */

/* Check one list against the bitmap of [0, limit): membership around
 * every rank, ends, and the text read back. */
static int check_ranklist(const tf_vseq *s, const uint8_t *bit, int64_t limit, int64_t base, const char *what) {
  int ok = 1;
  int64_t first = -1, last = -1, n = 0;
  for (int64_t r = 0; r < limit; r++)
    if (bit[r]) {
      if (first < 0) first = r;
      last = r;
      n++;
    }
  for (int64_t r = -3, k = 0; r < limit + 3 && ok; r++) {
    int want = r >= 0 && r < limit && bit[r];
    if (tf_ranks_contains(s, base + r) != want) {
      CHECKF(0, "%s: tf_ranks_contains(%" PRId64 ") = %d", what, base + r, !want);
      ok = 0;
    }
    /* position and random access: the k-th rank held */
    int64_t at = tf_ranks_index(s, base + r);
    if (at != (want ? k : -1) || (want && tf_vseq_value_at(s, k) != base + r)) {
      CHECKF(0, "%s: rank %" PRId64 ": tf_ranks_index %" PRId64 ", tf_vseq_value_at(%" PRId64 ") %" PRId64
                ", expected position %" PRId64, what, base + r, at, k, tf_vseq_value_at(s, k), want ? k : -1);
      ok = 0;
    }
    k += want;
  }
  if (n > 0) {
    CHECKF(tf_ranks_first(s) == base + first && tf_ranks_last(s) == base + last,
           "%s: first %" PRId64 " last %" PRId64 ", expected %" PRId64 " %" PRId64, what, tf_ranks_first(s),
           tf_ranks_last(s), base + first, base + last);
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    int64_t *vals = malloc((size_t)(n + 1) * sizeof *vals);
    tf_ranks_format(s, text, cap);
    long got = strlen(text) + 1 < cap ? parse_rank_text(text, vals, n + 1) : -2;
    int same = got == n;
    for (long i = 0, k = 0; same && i < limit; i++)
      if (bit[i]) same = vals[k++] == base + i;
    CHECKF(same, "%s: text '%.300s' reads back as %ld ranks, expected %" PRId64, what, text, got, n);
    ok &= same;
    /* a small buffer: truncated, terminated */
    char small[9];
    memset(small, 'Z', sizeof small);
    tf_ranks_format(s, small, 8);
    CHECKF(memchr(small, 0, 8) != NULL && small[8] == 'Z', "%s: tf_ranks_format overran an 8-byte buffer", what);
    free(text);
    free(vals);
  }
  return ok;
}

static void test_ranklists(void) {
  tf_mem m = {0};
  tf_vseq s;
  char text[256];
  /* the 3x3 block from rank 6, strides 5 and 1 */
  tf_vseq_init(&s);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) tf_vseq_push(&s, 6 + 5 * i + j, &m);
  tf_vseq_seal(&s, &m);
  tf_ranks_format(&s, text, sizeof text);
  CHECKF(strcmp(text, "<2 6 3 5 3 1>") == 0, "3x3 block: '%s'", text);
  printf("rank lists: 6,7,8,11,12,13,16,17,18 -> %s\n", text);
  tf_vseq_free(&s, &m);
  /* unsealed, a single rank, a pair */
  tf_vseq_init(&s);
  tf_vseq_push(&s, 5, &m);
  tf_ranks_format(&s, text, sizeof text);
  CHECK(tf_ranks_contains(&s, 5) && !tf_ranks_contains(&s, 4) && !tf_ranks_contains(&s, 6) &&
        tf_ranks_first(&s) == 5 && tf_ranks_last(&s) == 5);
  printf("rank lists: 5 -> %s\n", text);
  tf_vseq_free(&s, &m);

  enum { LIMIT = 6000 };
  uint8_t *bit = malloc(LIMIT);
  int nlists = 0, nok = 0;
  size_t items = 0;
  for (uint64_t seed = 1; seed <= 600; seed++) {
    rng = mix(seed, 4444);
    memset(bit, 0, LIMIT);
    int kind = (int)(seed % 5);
    int64_t limit = 1 + (int64_t)rndn(seed % 3 ? 300 : LIMIT);
    int as_runs = seed % 4 == 1;
    tf_vseq_init(&s);
    if (kind == 0) { /* a random sorted set */
      unsigned dens = (unsigned)rnd_range(1, 999);
      for (int64_t r = 0; r < limit; r++) bit[r] = permille(dens);
    } else { /* strided blocks of 1 to 3 dimensions, at increasing offsets, sometimes a run of blocks */
      int64_t at = rnd_range(0, 5);
      while (at < limit) {
        int d = 1 + (int)rndn(3);
        int64_t c[3], st[3], span = 0;
        for (int k = d - 1; k >= 0; k--) { /* innermost first: stride above the inner span */
          c[k] = rnd_range(1, 5);
          st[k] = span + rnd_range(1, 4);
          span = st[k] * (c[k] - 1) + span;
        }
        int rep = kind >= 3 ? (int)rnd_range(1, 4) : 1;
        int64_t gap = span + rnd_range(1, 6);
        for (int q = 0; q < rep; q++)
          for (int64_t i = 0; i < c[0]; i++)
            for (int64_t j = 0; j < (d > 1 ? c[1] : 1); j++)
              for (int64_t k = 0; k < (d > 2 ? c[2] : 1); k++) {
                int64_t r = at + q * gap + i * st[0] + (d > 1 ? j * st[1] : 0) + (d > 2 ? k * st[2] : 0);
                if (r < limit) bit[r] = 1;
              }
        at += rep * gap + rnd_range(1, 20);
      }
    }
    int64_t base = seed % 7 == 3 ? (int64_t)1 << 30 : 0; /* ranks far from 0 */
    int64_t prev = -1, runlen = 0;
    for (int64_t r = 0; r <= limit; r++) { /* as values, or as maximal runs of step 1 */
      int in = r < limit && bit[r];
      if (!as_runs) {
        if (in) tf_vseq_push(&s, base + r, &m);
        continue;
      }
      if (in && runlen && r == prev + 1) {
        runlen++;
        prev = r;
        continue;
      }
      if (runlen) tf_vseq_push_run(&s, base + prev - runlen + 1, 1, (uint64_t)runlen, &m);
      runlen = in ? 1 : 0;
      prev = r;
    }
    if (mix(seed, 1) % 2) tf_vseq_seal(&s, &m);
    if (s.nvalues) {
      nlists++;
      char what[64];
      snprintf(what, sizeof what, "rank list seed %" PRIu64, seed);
      nok += check_ranklist(&s, bit, limit, base, what);
      items += s.n;
    }
    tf_vseq_free(&s, &m);
  }
  free(bit);
  CHECK(m.bytes == 0);
  printf("part 4, rank lists: %d lists (random sets, strided blocks of 1-3 dimensions, repeated blocks), %d exact "
         "against the bitmap (membership, ends, text read back); %zu items in all\n",
         nlists, nok, items);
}

/* ==================================================== 5. hostile traces */

typedef struct hostile_stats {
  long cases, refused, opened_clean, opened_error, cursor_refused;
} hostile_stats;

/* Open bytes that may be damaged: refused with a message naming the trace,
 * or every rank's cursor ends (0 with the declared count, or -1 with a
 * message) within 10x the expected events. */
static tf_status open_hostile(const uint8_t *d, size_t n, const uint64_t *expect, int P, const char *what,
                              hostile_stats *hs) {
  tf_trace *tr = NULL;
  char err[512] = "";
  const char *name = "hostile.tf";
  hs->cases++;
  snprintf(current_case, sizeof current_case, "%s", what);
  watchdog(20);
  tf_status st = tf_trace_open_mem(d, n, name, &tr, err, sizeof err);
  if (st != TF_OK) {
    CHECKF(tr == NULL && err[0] && strstr(err, name), "%s: refused (%s) with message '%s'", what, tf_status_name(st),
           err);
    hs->refused++;
    watchdog(0);
    return st;
  }
  const tf_trace_info *in = tf_trace_get_info(tr);
  int any_error = 0;
  int nr = in->nranks > 0 ? in->nranks : 0;
  if (nr > P + 8) nr = P + 8; /* a damaged nranks: the ranks around the real ones are enough */
  for (int r = 0; r < nr; r++) {
    tf_rank_cursor *c = NULL;
    err[0] = 0;
    tf_status cs = tf_rank_cursor_open(tr, r, &c, err, sizeof err);
    if (cs != TF_OK) {
      CHECKF(c == NULL && err[0], "%s: rank %d: cursor refused (%s) without a message", what, r, tf_status_name(cs));
      hs->cursor_refused++;
      any_error = 1;
      continue;
    }
    uint64_t limit = 10 * (r < P ? expect[r] : 0) + 1000, k = 0, declared = 0;
    int has = tf_trace_rank(tr, r, &declared, NULL);
    tf_event ev;
    int rc;
    while ((rc = tf_rank_cursor_next(c, &ev)) == 1 && k <= limit) {
      const tf_func_desc *fd = ev.fn < in->nfuncs ? &in->funcs[ev.fn] : NULL;
      CHECKF(fd != NULL, "%s: rank %d: event of function %u (of %u)", what, r, ev.fn, in->nfuncs);
      k++;
    }
    if (k > limit) {
      CHECKF(0, "%s: rank %d: more than %" PRIu64 " events (expected %" PRIu64 ") without an error", what, r, limit,
             r < P ? expect[r] : 0);
    } else if (rc == 0) {
      CHECKF(has ? k == declared : k == 0, "%s: rank %d ends after %" PRIu64 " events, declares %" PRIu64 " (%d)",
             what, r, k, declared, has);
    } else {
      const char *e = tf_rank_cursor_error(c);
      CHECKF(rc == -1 && e && e[0], "%s: rank %d: cursor gives %d, error '%s'", what, r, rc, e ? e : "(null)");
      any_error = 1;
      CHECKF(tf_rank_cursor_next(c, &ev) == -1, "%s: rank %d: the error does not stay", what, r);
    }
    tf_rank_cursor_close(c);
  }
  /* the node API must not crash either */
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(tr, &top);
  for (uint32_t i = 0; i < ntop && i < 64; i++) {
    tf_node_info ni;
    char t1[128], t2[128];
    tf_node_get(top[i], &ni);
    tf_node_ranks(top[i], t1, sizeof t1);
    tf_node_values(top[i], -1, 0, t1, sizeof t1, t2, sizeof t2);
  }
  tf_trace_close(tr);
  if (any_error)
    hs->opened_error++;
  else
    hs->opened_clean++;
  watchdog(0);
  return TF_OK;
}

/* ---- structural edits of a decoded merged trace */

typedef struct noderef {
  tf_mnode **slot; /* where the node pointer lives */
  tf_mnode ***list;
  uint32_t *nlist;
} noderef;

static void collect_nodes(tf_mnode **list, uint32_t *nlist, tf_mnode ***listp, noderef **out, size_t *n,
                          size_t *cap) {
  for (uint32_t i = 0; i < *nlist; i++) {
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 64;
      *out = realloc(*out, *cap * sizeof **out);
    }
    (*out)[(*n)++] = (noderef){&list[i], listp, nlist};
    if (list[i]->is_loop) collect_nodes(list[i]->body, &list[i]->nbody, &list[i]->body, out, n, cap);
  }
}

/* values of a sequence (at most max), into a malloc'ed array */
static int64_t *seq_values(const tf_vseq *s, size_t *n, size_t max) {
  *n = 0;
  if (s->nvalues > max) return NULL;
  int64_t *v = malloc((s->nvalues + 1) * sizeof *v);
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(s));
  tf_vseq_iter_init(it, s);
  while (*n < s->nvalues && tf_vseq_iter_next(it, &v[*n])) (*n)++;
  free(it);
  return v;
}

static void seq_rebuild(tf_vseq *s, const int64_t *v, size_t n, tf_mem *m) {
  tf_vseq_free(s, m);
  tf_vseq_init(s);
  for (size_t i = 0; i < n; i++) tf_vseq_push(s, v[i], m);
  tf_vseq_seal(s, m);
}

enum {
  E_DROP_PAIR, E_SWAP_PAIR_RANKS, E_SWAP_NODE_RANKS, E_SHORTEN_SEQ, E_LENGTHEN_SEQ, E_RANKS_OUTSIDE, E_RANKS_UNSORTED,
  E_ITERS, E_NVALS, E_FN, E_SITE, E_THREAD, E_DROP_NODE, E_DROP_SLOT, E_EMPTY_RANKS, E_PRESENT, E_NEVENTS, E_NRANKS,
  E_EMPTY_BODY, E_DUP_RANKS, E_HUGE_VALUE, E_N
};
static const char *const edit_names[] = {
    "drop a value-set pair", "swap the ranks of two pairs", "swap two nodes' ranks", "shorten a value sequence",
    "lengthen a value sequence", "a rank list outside [0,nranks)", "an unsorted rank list",
    "change an iteration count", "change a value count", "change a function", "call site out of range",
    "change a thread", "drop a node", "drop a slot", "an empty rank list", "change the present ranks",
    "change a rank's event count", "shrink nranks", "empty a loop body", "overlapping pair ranks",
    "a huge iteration count"};

/* A value set of node x: its counts, or one of its slots. */
static tf_vset *pick_vset(tf_mnode *x) {
  if (x->is_loop || !x->nslots || permille(300)) return &x->count;
  return &x->slots[rndn(x->nslots)];
}

/* Apply edit e to t: 0 if nothing could be changed, 1 if changed, 2 if
 * changed so that FORMAT.md 3.9 says the file MUST be rejected at open, 3
 * if some rank's events can no longer add up (3.7: rejected at open, or
 * that rank's cursor fails). */
static int apply_edit(tf_mtrace *t, int e) {
  tf_mem *m = &t->mem;
  noderef *nodes = NULL;
  size_t nn = 0, cap = 0;
  collect_nodes(t->top, &t->ntop, &t->top, &nodes, &nn, &cap);
  int done = 0;
  if (!nn) goto out;
  tf_mnode *x = *nodes[rndn(nn)].slot;
  size_t nv;
  int64_t *v;
  switch (e) {
  case E_DROP_PAIR: {
    tf_vset *s = pick_vset(x);
    if (!s->n) break;
    uint32_t i = (uint32_t)rndn(s->n);
    tf_vseq_free(&s->seq[i], m);
    tf_vseq_free(&s->ranks[i], m);
    memmove(s->seq + i, s->seq + i + 1, (s->n - i - 1) * sizeof *s->seq);
    memmove(s->ranks + i, s->ranks + i + 1, (s->n - i - 1) * sizeof *s->ranks);
    memmove(s->hash + i, s->hash + i + 1, (s->n - i - 1) * sizeof *s->hash);
    s->n--;
    done = s->n ? 3 : 2; /* the pair's ranks lose their values; a value set without pairs */
    break;
  }
  case E_SWAP_PAIR_RANKS: {
    tf_vset *s = pick_vset(x);
    if (s->n < 2) break;
    uint32_t i = (uint32_t)rndn(s->n), j = (i + 1 + (uint32_t)rndn(s->n - 1)) % s->n;
    tf_vseq tmp = s->ranks[i];
    s->ranks[i] = s->ranks[j];
    s->ranks[j] = tmp;
    done = 1;
    break;
  }
  case E_SWAP_NODE_RANKS: {
    tf_mnode *y = *nodes[rndn(nn)].slot;
    if (y == x || tf_vseq_equal(&x->ranks, &y->ranks)) break;
    tf_vseq tmp = x->ranks;
    x->ranks = y->ranks;
    y->ranks = tmp;
    done = 1;
    break;
  }
  case E_SHORTEN_SEQ:
  case E_LENGTHEN_SEQ:
  case E_ITERS:
  case E_NVALS:
  case E_HUGE_VALUE: {
    tf_vset *s = e == E_SHORTEN_SEQ || e == E_LENGTHEN_SEQ ? pick_vset(x) : &x->count;
    if (e == E_NVALS && x->is_loop) break;
    if ((e == E_ITERS || e == E_HUGE_VALUE) && !x->is_loop) break;
    if (!s->n) break;
    uint32_t i = (uint32_t)rndn(s->n);
    if (!(v = seq_values(&s->seq[i], &nv, 1 << 20))) break;
    if (e == E_SHORTEN_SEQ) {
      if (nv == 0) {
        free(v);
        break;
      }
      if (permille(500)) memmove(v, v + 1, (nv - 1) * sizeof *v);
      nv--;
    } else if (e == E_LENGTHEN_SEQ) {
      v[nv] = nv ? v[nv - 1] : 1;
      nv++;
    }
    done = 3; /* the ranks of the pair get more or fewer events or values than they declare */
    if ((e == E_ITERS || e == E_NVALS) && nv) {
      size_t k = rndn(nv);
      static const int64_t d[] = {1, -1, 2};
      int64_t was = v[k];
      v[k] = permille(200) ? 0 : permille(200) ? -1 : v[k] + d[rndn(3)];
      if (v[k] < 0 || (e == E_ITERS && v[k] < 1)) done = 2; /* an iteration count < 1, a negative value count */
      if (v[k] == was) v[k]++;
    } else if (e == E_HUGE_VALUE && nv)
      v[rndn(nv)] = permille(500) ? (int64_t)1 << 40 : INT64_MAX;
    seq_rebuild(&s->seq[i], v, nv, m);
    s->hash[i] = tf_vseq_hash(&s->seq[i]);
    free(v);
    break;
  }
  case E_RANKS_OUTSIDE:
  case E_RANKS_UNSORTED:
  case E_EMPTY_RANKS:
  case E_DUP_RANKS: {
    tf_vseq *rk = &x->ranks;
    if (permille(500)) {
      tf_vset *s = pick_vset(x);
      if (!s->n) break;
      rk = &s->ranks[rndn(s->n)];
    }
    if (!(v = seq_values(rk, &nv, 1 << 20))) break;
    int64_t *w = malloc((nv + 2) * sizeof *w);
    memcpy(w, v, nv * sizeof *v);
    if (e == E_RANKS_OUTSIDE)
      w[nv++] = permille(500) ? t->nranks : t->nranks + 1000;
    else if (e == E_RANKS_UNSORTED && nv >= 2) {
      int64_t tmp = w[0];
      w[0] = w[nv - 1];
      w[nv - 1] = tmp;
    } else if (e == E_RANKS_UNSORTED)
      w[nv++] = -1;
    else if (e == E_EMPTY_RANKS)
      nv = 0;
    else if (nv >= 1) { /* a repeated rank */
      w[nv] = w[nv - 1];
      nv++;
    }
    if (e == E_RANKS_OUTSIDE && permille(300) && nv) w[0] = -1 - (int64_t)rndn(3);
    seq_rebuild(rk, w, nv, m);
    free(w);
    free(v);
    done = 2; /* a rank list that is empty, not strictly increasing or outside 0 .. nranks-1 */
    break;
  }
  case E_FN:
    if (x->is_loop) break;
    x->fn = permille(500) ? t->ft.n + (uint32_t)rndn(3) : (uint32_t)rndn(t->ft.n);
    done = x->fn >= t->ft.n ? 2 : 1;
    break;
  case E_SITE:
    if (x->is_loop) break;
    x->site = t->ncallsites + (uint32_t)rndn(3);
    done = 2;
    break;
  case E_THREAD:
    if (x->is_loop) break;
    x->thread += 1 + (uint32_t)rndn(3);
    done = 1;
    break;
  case E_DROP_NODE: {
    noderef *nr = &nodes[rndn(nn)];
    uint32_t i = (uint32_t)(nr->slot - *nr->list);
    tf_mnode_free(*nr->slot, m);
    memmove(*nr->list + i, *nr->list + i + 1, (*nr->nlist - i - 1) * sizeof **nr->list);
    (*nr->nlist)--;
    done = 3; /* events lost */
    break;
  }
  case E_DROP_SLOT:
    if (x->is_loop || !x->nslots) break;
    tf_vset_free(&x->slots[x->nslots - 1], m);
    x->nslots--;
    done = 3; /* values lost */
    break;
  case E_PRESENT:
  case E_NEVENTS: {
    tf_vseq *s = e == E_PRESENT ? &t->present : &t->nevents;
    if (!(v = seq_values(s, &nv, 1 << 20)) || !nv) {
      free(v);
      break;
    }
    size_t k = rndn(nv);
    int64_t was = v[k];
    if (e == E_PRESENT)
      v[k] = permille(500) ? t->nranks + (int64_t)rndn(3) : v[k] + 1; /* every rank is present: outside, or twice */
    else
      v[k] = permille(300) ? v[k] + 1 : permille(300) ? 0 : permille(500) ? (int64_t)1 << 40 : v[k] - 1;
    seq_rebuild(s, v, nv, m);
    done = e == E_PRESENT ? 2 : v[k] != was ? 3 : 1; /* a rank's events no longer add up */
    free(v);
    break;
  }
  case E_NRANKS: /* the last rank is present: now outside */
    t->nranks = (int32_t)rndn((uint64_t)(t->nranks > 1 ? t->nranks : 2));
    done = 2;
    break;
  case E_EMPTY_BODY:
    if (!x->is_loop || !x->nbody) break;
    for (uint32_t i = 0; i < x->nbody; i++) tf_mnode_free(x->body[i], m);
    x->nbody = 0;
    done = 2; /* a loop without a body */
    break;
  }
out:
  free(nodes);
  return done;
}

/* ---- byte flips with the checksum made valid again (FORMAT.md 3.1,
 * version 6: the file's stored body, all sections in it, and one CRC of
 * every byte before it) */

typedef struct span {
  size_t at, len; /* the stored body */
} span;

static int read_uvar(const uint8_t *d, size_t n, size_t *pos, uint64_t *v) {
  *v = 0;
  for (unsigned shift = 0; shift < 64 && *pos < n; shift += 7) {
    uint8_t b = d[(*pos)++];
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 0;
  }
  return -1;
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* The stored body; -1 if the layout is not as specified. */
static int stored_body(const uint8_t *d, size_t n, span *out) {
  size_t pos = 13; /* magic, version, codec */
  uint64_t raw, stored;
  if (n < 13 || read_uvar(d, n, &pos, &raw) || read_uvar(d, n, &pos, &stored) || stored != n - pos - 4) return -1;
  *out = (span){pos, (size_t)stored};
  return 0;
}

/* Recompute the file's CRC. */
static void fix_crc(uint8_t *d, size_t n) { put_le32(d + n - 4, tf_crc32(0, d, n - 4)); }

/* Merged traces to attack: a small simple program on 4 ranks (every
 * truncation), a 3x3 stencil, and a larger random case; other programs
 * in later rounds (--hostile ROUNDS). */
static int hostile_rounds = 1;

static int hostile_sample(int which, int round, tf_buf *b, uint64_t **expect, int *P) {
  run R = {0};
  if (which == 1) {
    R.P = 9;
    R.s = calloc(9, sizeof *R.s);
    R.lost = calloc(9, sizeof *R.lost);
    R.fsize = calloc(9, sizeof *R.fsize);
    R.const_times = 1;
    for (int r = 0; r < 9; r++) stencil_stream(&R.s[r], r, 3, 3, 12 + round);
  } else {
    merge_case mc = which == 0 ? make_case(5002 + 22 * (uint64_t)round, 4) : make_case(5014 + 22 * (uint64_t)round, 16);
    mc.budget = which == 0 ? 40 : 80;
    mc.cap = which == 0 ? (size_t)1 << 20 : 8 << 10;
    gen_run(&mc, &R);
  }
  snprintf(R.dir, sizeof R.dir, "%s/hostile", workdir);
  mkdir(R.dir, 0700);
  keep_runs = which == 0; /* sample 0 holds flat runs (FORMAT.md 3.5 flags bit 5): forged runs are refused */
  stream_flat_window = keep_runs ? 8 : 0; /* a small sample: a small window */
  int rc = write_run(&R, which == 2 ? 8 << 10 : (size_t)1 << 20, which == 2);
  tf_mtrace t;
  if (!rc) rc = build_merged(&R, ORD_BINOMIAL, &t, 99);
  keep_runs = 0;
  stream_flat_window = 0;
  uint32_t runs = 0;
  for (uint32_t i = 0; !rc && i < t.ntop; i++) runs += t.top[i]->run != NULL;
  CHECKF(rc || which != 0 || runs > 0, "hostile sample 0 (round %d) has no flat run", round);
  if (!rc) {
    rc = tf_mtrace_encode(&t, b, which == 1 ? 3 : 0);
    tf_mtrace_free(&t);
  }
  *P = R.P;
  *expect = calloc((size_t)R.P, sizeof **expect);
  for (int r = 0; r < R.P; r++) (*expect)[r] = R.s[r].n;
  /* the sample itself is good */
  if (!rc) {
    tf_trace *tr;
    char err[512];
    tf_status st = tf_trace_open_mem(b->data, b->len, "sample", &tr, err, sizeof err);
    CHECKF(st == TF_OK, "hostile sample %d: %s", which, err);
    if (st == TF_OK) {
      for (int r = 0; r < R.P; r++) compare_cursor(tr, r, &R.s[r], R.const_times, "hostile sample", (uint64_t)which);
      tf_trace_close(tr);
    }
  }
  clear_dir(R.dir, R.P);
  rmdir(R.dir);
  run_free(&R);
  return rc;
}

static void test_hostile(void) {
  hostile_stats total = {0};
  long edits_done[E_N] = {0}, edits_refused[E_N] = {0}, edits_must[E_N] = {0};
  for (int which = 0; which < 3 * hostile_rounds; which++) {
    int round = which / 3;
    tf_buf b = {0};
    uint64_t *expect = NULL;
    int P = 0;
    if (hostile_sample(which % 3, round, &b, &expect, &P)) {
      CHECKF(0, "hostile sample %d could not be made", which);
      tf_buf_free(&b);
      free(expect);
      continue;
    }
    hostile_stats hs = {0};
    size_t n = b.len;
    char what[160];
    uint8_t *c = malloc(n + 1);
    rng = mix((uint64_t)which, 31337);
    /* truncations: every length of a small file; the ends and a sample of a big one */
    uint64_t keep = n > 3000 ? 400 * 1000 / (n - 400) : 1000; /* per mille: about 400 in the middle */
    for (size_t len = 0; len < n; len++) {
      if (n > 3000 && len > 200 && len + 200 < n && !permille((unsigned)keep)) continue;
      snprintf(what, sizeof what, "sample %d (%zu bytes) truncated to %zu", which, n, len);
      memcpy(c, b.data, len);
      tf_status ts = open_hostile(c, len, expect, P, what, &hs);
      /* FORMAT.md 3.9: the file ends before its end (once magic and version are whole) */
      CHECKF(len < 12 || ts == TF_ERR_TRUNCATED, "%s: %s, expected TF_ERR_TRUNCATED", what, tf_status_name(ts));
    }
    long after_trunc = hs.cases, trunc_opened = hs.opened_clean + hs.opened_error;
    CHECKF(trunc_opened == 0, "sample %d: %ld truncated copies opened", which, trunc_opened);
    /* single-byte flips */
    static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x10};
    uint64_t nflips = which % 3 == 2 ? 400 : 800, fkeep = n * 4 > nflips ? nflips * 1000 / (n * 4) : 1000;
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < sizeof masks; k++) {
        if (!permille((unsigned)fkeep)) continue;
        memcpy(c, b.data, n);
        c[i] ^= masks[k];
        snprintf(what, sizeof what, "sample %d: byte %zu ^ 0x%02x", which, i, masks[k]);
        open_hostile(c, n, expect, P, what, &hs);
      }
    long flip_opened = hs.opened_clean + hs.opened_error - trunc_opened;
    /* the same with valid checksums: the decoder's own checks */
    long before_crc = hs.cases, crc_opened0 = hs.opened_clean + hs.opened_error;
    span sp = {0, 0};
    CHECKF(stored_body(b.data, n, &sp) == 0, "sample %d: no stored body followed by a CRC (FORMAT.md 3.1)", which);
    uint64_t ncflips = which % 3 == 2 ? 500 : 1000, ckeep = sp.len * 3 > ncflips ? ncflips * 1000 / (sp.len * 3) : 1000;
    for (size_t i = sp.at; i < sp.at + sp.len; i++)
      for (size_t q = 0; q < 3; q++) {
        if (!permille((unsigned)ckeep)) continue;
        memcpy(c, b.data, n);
        c[i] ^= masks[q];
        fix_crc(c, n);
        snprintf(what, sizeof what, "sample %d: body byte %zu ^ 0x%02x, CRC valid", which, i - sp.at, masks[q]);
        open_hostile(c, n, expect, P, what, &hs);
      }
    long crc_cases = hs.cases - before_crc, crc_opened = hs.opened_clean + hs.opened_error - crc_opened0;
    /* CRC-valid structural edits */
    long before_edits = hs.cases;
    for (int trial = 0; trial < (which % 3 == 2 ? 100 : 220); trial++) {
      int e = trial % E_N;
      tf_mtrace t;
      char err[512];
      if (tf_mtrace_decode(b.data, n, "sample", &t, err, sizeof err) != TF_OK) {
        CHECKF(0, "sample %d does not decode: %s", which, err);
        break;
      }
      int nedits = 1 + (trial % 5 == 4);
      int done = 0;
      for (int k = 0; k < nedits; k++) {
        int d = apply_edit(&t, k ? (int)rndn(E_N) : e);
        done = d > done ? d : done;
      }
      if (!done) {
        tf_mtrace_free(&t);
        continue;
      }
      tf_buf eb = {0};
      snprintf(what, sizeof what, "sample %d: edit '%s'%s (trial %d)", which, edit_names[e],
               nedits > 1 ? " and another" : "", trial);
      snprintf(current_case, sizeof current_case, "%s: encoding", what);
      watchdog(20);
      int erc = tf_mtrace_encode(&t, &eb, trial % 2 ? 3 : 0);
      watchdog(0);
      tf_mtrace_free(&t);
      if (erc == 0) {
        long r0 = hs.refused + hs.cursor_refused + hs.opened_error;
        tf_status os = open_hostile(eb.data, eb.len, expect, P, what, &hs);
        edits_done[e]++;
        edits_refused[e] += hs.refused + hs.cursor_refused + hs.opened_error > r0;
        if (done == 2 && nedits == 1) {
          edits_must[e]++;
          CHECKF(os == TF_ERR_FORMAT, "%s: FORMAT.md 3.9 says refuse at open (TF_ERR_FORMAT), got %s", what,
                 tf_status_name(os));
        }
        if (done == 3 && nedits == 1)
          CHECKF(hs.refused + hs.cursor_refused + hs.opened_error > r0,
                 "%s: opened, and every rank read to its declared end", what);
      }
      tf_buf_free(&eb);
    }
    printf("hostile sample %d: %zu bytes (%s), %d ranks: %ld truncations (all refused), %ld flips (%ld opened), %ld "
           "flips with valid CRCs (%ld opened), %ld structural edits; in all %ld refused at open, %ld opened with a "
           "cursor error, %ld opened and read to the end\n",
           which, n, which % 3 == 1 ? "zstd 3" : "zstd 0", P, after_trunc, before_crc - after_trunc, flip_opened,
           crc_cases, crc_opened, hs.cases - before_edits, hs.refused, hs.opened_error, hs.opened_clean);
    total.cases += hs.cases;
    total.refused += hs.refused;
    total.opened_clean += hs.opened_clean;
    total.opened_error += hs.opened_error;
    free(c);
    free(expect);
    tf_buf_free(&b);
  }
  printf("structural edits (made / detected: refused or a cursor error / of which must be refused at open):");
  for (int e = 0; e < E_N; e++)
    printf("%s %s %ld/%ld/%ld", e ? ";" : "", edit_names[e], edits_done[e], edits_refused[e], edits_must[e]);
  printf("\npart 5, hostile: %ld damaged traces, %ld refused at open, %ld with a cursor error, %ld read to the end; no "
         "crash, no hang\n",
         total.cases, total.refused, total.opened_error, total.opened_clean);
}

/* ================================================================ 6. rank groups */

/* Rank `rank`'s timing of one event: n samples of compute (durations 100). */
static void rank_timing(tf_gtiming *g, int32_t rank, const uint64_t *c, int n, tf_mem *m) {
  tf_timing t = {0};
  for (int i = 0; i < n; i++) tf_timing_add(&t, TF_TIMING_PATH, TF_BINS_DEFAULT, TF_PREV_NONE, TF_PREV_NONE, c[i], 100, m);
  CHECK(tf_gtiming_from_rank(g, &t, rank, m) == 0);
  tf_timing_free(&t, m);
}

/* Ranks 0..P-1, n samples each from mean(r) with a noise of +-noise(r)
 * (uniform), merged over the binomial tree into g[0]. The exact count and
 * sum over all ranks in *count and *sum; each rank's own mean in mean[r]. */
static void groups_of(tf_gtiming *g, int P, int n, double (*mean)(int), double (*noise)(int), uint64_t *count,
                      uint64_t *sum, double *own, tf_mem *m) {
  uint64_t *c = malloc((size_t)n * sizeof *c);
  *count = *sum = 0;
  for (int r = 0; r < P; r++) {
    uint64_t s = 0;
    for (int i = 0; i < n; i++) {
      double v = mean(r) + noise(r) * (2.0 * (double)rndn(1000001) / 1e6 - 1.0);
      c[i] = (uint64_t)(v > 1 ? v : 1);
      s += c[i];
    }
    own[r] = (double)s / n;
    *count += (uint64_t)n;
    *sum += s;
    rank_timing(&g[r], r, c, n, m);
  }
  free(c);
  for (int k = 1; k < P; k *= 2)
    for (int r = 0; r + k < P; r += 2 * k) CHECK(tf_gtiming_merge(&g[r], &g[r + k], TF_BINS_DEFAULT, m) == 0);
}

/* Checks on g (one path): counts and sums exact, caps kept, every rank in
 * exactly one group, and its projection within `tol` of its own mean.
 * Returns the number of groups. */
static uint32_t check_groups(const char *what, const tf_gtiming *g, int P, uint64_t count, uint64_t sum,
                             const double *own, double tol) {
  CHECKF(g->npaths == 1, "%s: %u paths", what, g->npaths);
  if (g->npaths != 1) return 0;
  const tf_gpath *p = &g->paths[0];
  uint64_t n = 0, s = 0;
  uint32_t cost = 0;
  for (uint32_t x = 0; x < p->n; x++) {
    n += p->g[x].t.compute.n;
    s += p->g[x].t.compute.sum;
    cost += tf_ranks_cost(&p->g[x].ranks);
  }
  CHECKF(n == count && s == sum, "%s: groups hold %" PRIu64 " samples summing to %" PRIu64 ", expected %" PRIu64
         " and %" PRIu64, what, n, s, count, sum);
  CHECKF(p->n <= TF_GROUPS_MAX && (p->n == 1 || cost <= TF_GROUP_RANK_ITEMS), "%s: %u groups, %u rank-list items", what,
         p->n, cost);
  double worst = 0;
  for (int r = 0; r < P; r++) {
    int in = 0;
    for (uint32_t x = 0; x < p->n; x++) in += tf_ranks_contains(&p->g[x].ranks, r);
    CHECKF(in == 1, "%s: rank %d in %d groups", what, r, in);
    tf_timing shell;
    CHECK(tf_gtiming_project(g, r, &shell) == 0);
    CHECKF(shell.npaths == 1, "%s: rank %d projects to %u paths", what, r, shell.npaths);
    if (shell.npaths == 1) {
      double e = fabs(tf_dstat_mean(&shell.paths[0].compute) - own[r]) / own[r];
      if (e > worst) worst = e;
    }
    free(shell.paths);
  }
  CHECKF(worst <= tol, "%s: a rank's mean is %.4f off its own (at most %.4f)", what, worst, tol);
  printf("rank groups, %s: %d ranks -> %u groups, %u rank-list items, worst rank %.4f off its own mean\n", what, P, p->n,
         cost, worst);
  return p->n;
}

static double m_odd_slow(int r) { return r % 2 ? 6000 : 1000; }
static double n_tight(int r) { return r % 2 ? 6 : 1; }
static double m_flat(int r) { (void)r; return 1000; }
static double n_small(int r) { (void)r; return 3; }
static double n_large(int r) { (void)r; return 900; }
static double m_all_differ(int r) { return 1000.0 * (r + 1); }
static double m_boundary(int r) {
  int row = r / 16, col = r % 16;
  return row > 0 && row < 15 && col > 0 && col < 15 ? 3000 : 1000;
}
static double n_boundary(int r) { return m_boundary(r) / 1000; }

static void test_rank_groups(void) {
  tf_mem m = {0};
  enum { PMAX = 256 };
  static tf_gtiming g[PMAX];
  static double own[PMAX];
  uint64_t count, sum;
  char text[256];

  /* issue 17's program: odd ranks compute 6x as long; every rank keeps its own mean */
  groups_of(g, 16, 100, m_odd_slow, n_tight, &count, &sum, own, &m);
  CHECK(check_groups("odd ranks 6x slower", &g[0], 16, count, sum, own, 0.01) == 2);
  tf_gtiming_seal(&g[0], &m);
  if (g[0].npaths == 1 && g[0].paths[0].n == 2) {
    tf_ranks_format(&g[0].paths[0].g[0].ranks, text, sizeof text);
    CHECKF(strcmp(text, "<1 0 8 2>") == 0, "even ranks: %s", text);
    tf_ranks_format(&g[0].paths[0].g[1].ranks, text, sizeof text);
    CHECKF(strcmp(text, "<1 1 8 2>") == 0, "odd ranks: %s", text);
  }
  tf_gtiming_free(&g[0], &m);

  /* ranks that agree within the tolerance share one summary */
  groups_of(g, 64, 200, m_flat, n_small, &count, &sum, own, &m);
  CHECK(check_groups("all alike", &g[0], 64, count, sum, own, 0.01) == 1);
  tf_gtiming_free(&g[0], &m);

  /* noise only (+-90 % around one mean): the caps hold, the lists stay blocks */
  groups_of(g, 256, 20, m_flat, n_large, &count, &sum, own, &m);
  check_groups("noise", &g[0], 256, count, sum, own, 1.0);
  tf_gtiming_free(&g[0], &m);

  /* every rank different: the caps hold, the closest ranks pool */
  groups_of(g, 64, 50, m_all_differ, n_small, &count, &sum, own, &m);
  CHECK(check_groups("every rank different", &g[0], 64, count, sum, own, 10.0) <= TF_GROUPS_MAX);
  tf_gtiming_free(&g[0], &m);

  /* boundary and interior of a 16x16 grid: two groups, the interior one a 14x14 block */
  groups_of(g, 256, 50, m_boundary, n_boundary, &count, &sum, own, &m);
  CHECK(check_groups("16x16 boundary and interior", &g[0], 256, count, sum, own, 0.01) == 2);
  tf_gtiming_seal(&g[0], &m); /* as a merged trace is before it is written */
  for (uint32_t x = 0; g[0].npaths == 1 && x < g[0].paths[0].n; x++) {
    tf_ranks_format(&g[0].paths[0].g[x].ranks, text, sizeof text);
    if (tf_dstat_mean(&g[0].paths[0].g[x].t.compute) > 2000)
      CHECKF(strcmp(text, "<2 17 14 16 14 1>") == 0, "interior ranks: %s", text);
  }
  tf_gtiming_free(&g[0], &m);

  /* single samples: apart when they differ, pooled within the tolerance */
  static double two[2];
  uint64_t c1 = 1000, c2 = 5000, c3 = 1005;
  rank_timing(&g[0], 0, &c1, 1, &m);
  rank_timing(&g[1], 1, &c2, 1, &m);
  CHECK(tf_gtiming_merge(&g[0], &g[1], TF_BINS_DEFAULT, &m) == 0);
  two[0] = 1000, two[1] = 5000;
  CHECK(check_groups("two single samples apart", &g[0], 2, 2, 6000, two, 0) == 2);
  tf_gtiming_free(&g[0], &m);
  rank_timing(&g[0], 0, &c1, 1, &m);
  rank_timing(&g[1], 1, &c3, 1, &m);
  CHECK(tf_gtiming_merge(&g[0], &g[1], TF_BINS_DEFAULT, &m) == 0);
  two[1] = 1005;
  CHECK(check_groups("two single samples alike", &g[0], 2, 2, 2005, two, 0.01) == 1);
  tf_gtiming_free(&g[0], &m);
  CHECKF(m.bytes == 0 && !m.failed, "%zu bytes still accounted", m.bytes);
}

/* ================================================================ main */

int main(int argc, char **argv) {
  signal(SIGPROF, on_alarm);
  snprintf(workdir, sizeof workdir, "merge_tmp_XXXXXX");
  if (!mkdtemp(workdir)) {
    perror("mkdtemp");
    return 2;
  }
  static const test_case cases[] = {
      {"ranklists", test_ranklists},
      {"lossless", test_lossless},
      {"refusals", test_refusals},
      {"stencil_size", test_stencil_size},
      {"rank_groups", test_rank_groups},
      {"hostile", test_hostile},
      {"cst_ids", test_cst_ids},
  };
  int rc;
  if (argc > 2 && strcmp(argv[1], "--part") == 0) { /* the former spelling of `test_merge CASE` */
    rc = run_cases("test_merge", cases, TEST_NCASES(cases), argc - 1, argv + 1);
  } else if (argc > 2 && strcmp(argv[1], "--hostile") == 0) {
    hostile_rounds = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;
    static char hostile[] = "hostile";
    char *only[] = {argv[0], hostile};
    rc = run_cases("test_merge", cases, TEST_NCASES(cases), 2, only);
  } else if (argc > 2 && strcmp(argv[1], "--seeds") == 0) {
    test_merge_seeds(argc > 3 ? strtoull(argv[3], NULL, 10) : 5000, atoi(argv[2]), 0);
    rc = test_result("test_merge");
  } else if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') { /* a seed; case names start with a letter */
    uint64_t seed = strtoull(argv[1], NULL, 10);
    int P = argc > 2 ? atoi(argv[2]) : seed_P(seed);
    merge_case mc = make_case(seed, P);
    part1_stats st = {0};
    merge_round_trip(&mc, 1, &st);
    rc = test_result("test_merge");
  } else {
    rc = run_cases("test_merge", cases, TEST_NCASES(cases), argc, argv);
  }
  char p[256];
  snprintf(p, sizeof p, "%s/run", workdir);
  rmdir(p);
  rmdir(workdir);
  return rc;
}
