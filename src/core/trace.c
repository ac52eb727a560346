/* trace.c — the public trace API (tracefold.h "traces"): open a merged
 * file, a per-rank file or a trace directory; per-rank cursors; the loop
 * structure.
 *
 * Compressed per-rank files (a run stopped before MPI_Finalize, or a
 * single rank's file) are merged when opened, so that every reader sees
 * one structure. Flat files are read as they are.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/file_io.h"
#include "format/rank_reader.h"
#include "merge/mtrace.h"
#include "merge/rank_runs.h"
#include "merge/validate.h"
#include "merge/ranklist.h"
#include "fold/unroll.h"

struct tf_trace {
  tf_trace_info info;
  tf_mtrace mt;              /* merged structure; for flat input only the tables and rank counts */
  char **flat_paths;         /* flat input: the file of each present rank, in rank order (each
                                cursor reads it with a reader of its own) */
  int nflat;
};

struct tf_rank_cursor {
  tf_trace *t;
  tf_file_reader *flat;
  tf_fnode **nodes;
  uint32_t n;
  tf_order order; /* of the rank's streams (threads) */
  tf_mem mem;
  tf_unroll u;
  int unrolling;
  uint64_t left; /* events still expected */
  tf_unroll_event last;      /* the event returned last (its node and path) */
  struct times_memo *times;  /* tf_rank_cursor_times: one summary per (node, path) */
  uint32_t ntimes, times_cap;
  char error[600];
};

struct times_memo {
  const void *key; /* the path, or the node when the means are over all its paths */
  tf_time_path out;
};

/* Sum of a per-rank count from its items (not its values). */
static uint64_t vseq_sum(const tf_vseq *s) { return (uint64_t)tf_vseq_sum(s); }

static void fill_info(tf_trace *t, int32_t source, uint64_t bytes) {
  tf_mtrace *m = &t->mt;
  t->info = (tf_trace_info){.source = source,
                            .nranks = m->nranks,
                            .nranks_present = (int32_t)m->present.nvalues,
                            .partial = m->partial,
                            .thread_level = m->thread_level,
                            .timing = source == TF_SOURCE_FLAT ? TF_TIMING_NONE : m->timing,
                            .bins = m->bins,
                            .unit = m->unit,
                            .start_unix_ns = m->start_unix_ns,
                            .exe = m->exe,
                            .mpi = m->mpi,
                            .nevents = vseq_sum(&m->nevents),
                            .lost_events = vseq_sum(&m->lost),
                            .bytes = bytes,
                            .merge_ns = m->merge_ns,
                            .nfuncs = m->ft.n,
                            .funcs = m->ft.funcs,
                            .ncallsites = m->ncallsites,
                            .callsites = m->callsites,
                            .run_id = m->run_id,
                            .run_start_unix_ns = m->run_start_unix_ns};
}

tf_status tf_trace_open_mem(const void *data, size_t len, const char *name, tf_trace **out, char *err,
                            size_t errlen) {
  *out = NULL;
  tf_trace *t = calloc(1, sizeof *t);
  if (!t) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  tf_status st = tf_mtrace_decode(data, len, name, &t->mt, err, errlen);
  if (st) {
    free(t);
    return st;
  }
  fill_info(t, TF_SOURCE_MERGED, len);
  *out = t;
  return TF_OK;
}

/* Per-rank files, sorted by rank: merged (compressed) or kept (flat). */
static tf_status open_rank_files(char **paths, int n, unsigned flags, tf_open_progress progress, void *arg, tf_trace **out,
                                 char *err, size_t errlen) {
  tf_trace *t = calloc(1, sizeof *t);
  if (!t || !(t->flat_paths = calloc((size_t)n, sizeof *t->flat_paths))) {
    free(t);
    return tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
  }
  tf_status st = TF_OK;
  uint64_t bytes = 0;
  int source = TF_SOURCE_COMPRESSED;
  for (int i = 0; i < n && st == TF_OK; i++) {
    tf_file_reader *r;
    if ((st = tf_file_open(paths[i], &r, err, errlen)) != TF_OK) break;
    const tf_file_info *fi = tf_file_get_info(r);
    struct stat sb;
    if (stat(paths[i], &sb) == 0) bytes += (uint64_t)sb.st_size;
    if (i == 0) source = fi->kind == TF_FILE_FLAT ? TF_SOURCE_FLAT : TF_SOURCE_COMPRESSED;
    if ((fi->kind == TF_FILE_FLAT) != (source == TF_SOURCE_FLAT)) {
      tf_file_close(r);
      st = tf_failf(err, errlen, TF_ERR_ARG, "%s: flat and compressed per-rank files cannot be read together", paths[i]);
      break;
    }
    tf_mtrace one;
    if (tf_mtrace_from_file(&one, r)) {
      tf_file_close(r);
      st = tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", paths[i]);
      break;
    }
    tf_file_close(r);
    if (flags & TF_OPEN_MERGE_BY_KEYS) tf_mtrace_drop_cst(&one);
    if (source == TF_SOURCE_FLAT && !(t->flat_paths[t->nflat++] = strdup(paths[i]))) {
      tf_mtrace_free(&one);
      st = tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
      break;
    }
    if (i == 0) {
      t->mt = one;
    } else if (source == TF_SOURCE_FLAT && !tf_functable_same(t->mt.ft.funcs, t->mt.ft.n, one.ft.funcs, one.ft.n)) {
      /* flat events are read from their files as they are: their indices must mean the same everywhere */
      tf_mtrace_free(&one);
      st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: cannot be read with the files before it: another function table",
                    paths[i]);
    } else {
      char why[300];
      if (tf_mtrace_merge(&t->mt, &one, why, sizeof why))
        st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: cannot be read with the files before it: %s", paths[i], why);
    }
    if (progress && st == TF_OK) progress((uint64_t)i + 1, (uint64_t)n, arg);
  }
  if (st != TF_OK) {
    tf_trace_close(t);
    return st;
  }
  tf_mtrace_seal(&t->mt); /* as a merged file would have them */
  fill_info(t, source, bytes);
  *out = t;
  return TF_OK;
}

/* ------------------------------------------------------------ one run per trace */

static tf_status peek_file(const char *path, tf_run_peek *out) {
  *out = (tf_run_peek){.rank = -1};
  FILE *f = fopen(path, "rb");
  if (!f) return TF_ERR_IO;
  size_t cap = (size_t)1 << 20; /* a header, or a merged file's INFO, is far shorter */
  uint8_t *d = malloc(cap);
  size_t n = d ? fread(d, 1, cap, f) : 0;
  fclose(f);
  if (!d) return TF_ERR_NOMEM;
  tf_status st = n >= 8 && memcmp(d, TF_TRACE_MAGIC, 8) == 0 ? tf_mtrace_peek_run(d, n, out) : tf_file_peek_run(d, n, out);
  free(d);
  return st;
}

typedef struct run_file {
  const char *path;
  tf_run_peek p;
  int group;
} run_file;

static int same_run(const tf_run_peek *a, const tf_run_peek *b) {
  return a->run_id == b->run_id && a->run_start_unix_ns == b->run_start_unix_ns;
}

static void describe_run(const tf_run_peek *p, char *buf, size_t len) {
  if (!p->run_id && !p->run_start_unix_ns) {
    snprintf(buf, len, "no run id (format version 2), %s", p->exe[0] ? p->exe : "?");
    return;
  }
  time_t secs = (time_t)(p->run_start_unix_ns / 1000000000u);
  struct tm tm;
  char when[64] = "?", day[48];
  if (gmtime_r(&secs, &tm) && strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm))
    snprintf(when, sizeof when, "%s.%03u UTC", day, (unsigned)(p->run_start_unix_ns / 1000000u % 1000u));
  snprintf(buf, len, "run %016llx, %s started %s", (unsigned long long)p->run_id, p->exe[0] ? p->exe : "?", when);
}

/* Every trace file of a directory comes from one run: the merged file (or
 * NULL) and the per-rank files of both kinds. Files whose first bytes do
 * not read are left to their full open, which says why. */
static tf_status check_one_run(const char *dir, const char *merged, char **a, int na, char **b, int nb, char *err,
                               size_t errlen) {
  int n = (merged ? 1 : 0) + na + nb, k = 0, ngroups = 0;
  if (n < 2) return TF_OK;
  run_file *f = calloc((size_t)n, sizeof *f);
  if (!f) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", dir);
  for (int i = 0; i < n; i++) {
    const char *path = i == 0 && merged ? merged : i - (merged ? 1 : 0) < na ? a[i - (merged ? 1 : 0)]
                                                                              : b[i - (merged ? 1 : 0) - na];
    if (peek_file(path, &f[k].p) != TF_OK) continue;
    f[k].path = path;
    f[k].group = -1;
    for (int j = 0; j < k && f[k].group < 0; j++)
      if (same_run(&f[j].p, &f[k].p)) f[k].group = f[j].group;
    if (f[k].group < 0) f[k].group = ngroups++;
    k++;
  }
  tf_status st = TF_OK;
  if (ngroups > 1) {
    size_t used = (size_t)snprintf(err, err ? errlen : 0, "%s: its trace files come from %d different runs (a trace is one run's files; "
                                   "move the others away):",
                                   dir, ngroups);
    for (int g = 0; g < ngroups && g < 4; g++) {
      int shown = 0, count = 0;
      const tf_run_peek *p = NULL;
      for (int i = 0; i < k; i++) {
        if (f[i].group != g) continue;
        count++;
        p = &f[i].p;
        if (shown < 4 && err && used < errlen) {
          const char *base = strrchr(f[i].path, '/');
          used += (size_t)snprintf(err + used, errlen - used, "%s %s", shown ? "," : g ? ";" : "", base ? base + 1 : f[i].path);
          shown++;
        }
      }
      char what[400], more[32] = "";
      describe_run(p, what, sizeof what);
      if (count > shown) snprintf(more, sizeof more, " and %d more", count - shown);
      if (err && used < errlen) used += (size_t)snprintf(err + used, errlen - used, "%s (%s)", more, what);
    }
    if (ngroups > 4 && err && used < errlen) snprintf(err + used, errlen - used, "; and %d more runs", ngroups - 4);
    st = TF_ERR_FORMAT;
  }
  free(f);
  return st;
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

tf_status tf_trace_open(const char *path, unsigned flags, tf_trace **out, char *err, size_t errlen) {
  return tf_trace_open_progress(path, flags, NULL, NULL, out, err, errlen);
}

tf_status tf_trace_open_progress(const char *path, unsigned flags, tf_open_progress progress, void *arg,
                                 tf_trace **out, char *err, size_t errlen) {
  *out = NULL;
  struct stat sb;
  if (stat(path, &sb) != 0) return tf_failf(err, errlen, TF_ERR_IO, "%s: no such file or directory", path);
  if (!S_ISDIR(sb.st_mode)) {
    uint8_t *data;
    size_t len;
    tf_status st = tf_load_file(path, &data, &len, err, errlen);
    if (st) return st;
    int merged = len >= 8 && memcmp(data, TF_TRACE_MAGIC, 8) == 0;
    if (merged) st = tf_trace_open_mem(data, len, path, out, err, errlen);
    free(data);
    if (merged) return st;
    char *one[1] = {(char *)path};
    return open_rank_files(one, 1, flags, progress, arg, out, err, errlen);
  }
  char file[4096];
  snprintf(file, sizeof file, "%s/%s", path, TF_TRACE_FILE);
  char **flat = NULL, **comp = NULL;
  int nflat = 0, ncomp = 0, merged = exists(file);
  if (tf_list_dir(path, TF_FILE_FLAT, &flat, &nflat, NULL, 0) != TF_OK) nflat = 0;
  if (tf_list_dir(path, TF_FILE_COMPRESSED, &comp, &ncomp, NULL, 0) != TF_OK) ncomp = 0;
  tf_status st = check_one_run(path, merged ? file : NULL, comp, ncomp, flat, nflat, err, errlen);
  if (st != TF_OK) {
  } else if ((flags & TF_OPEN_PREFER_FLAT) && nflat) {
    st = open_rank_files(flat, nflat, flags, progress, arg, out, err, errlen);
  } else if (merged) {
    st = tf_trace_open(file, flags, out, err, errlen);
  } else if (ncomp || nflat) {
    st = ncomp ? open_rank_files(comp, ncomp, flags, progress, arg, out, err, errlen)
               : open_rank_files(flat, nflat, flags, progress, arg, out, err, errlen);
  } else {
    st = tf_list_dir(path, TF_FILE_COMPRESSED, &comp, &ncomp, err, errlen); /* why the directory cannot be read */
    if (st == TF_OK || st == TF_ERR_FORMAT)
      st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: no trace in this directory (no %s, rank-<R>.tfc or rank-<R>.flat)",
                    path, TF_TRACE_FILE);
  }
  for (int i = 0; i < nflat; i++) free(flat[i]);
  free(flat);
  for (int i = 0; i < ncomp; i++) free(comp[i]);
  free(comp);
  return st;
}

const tf_trace_info *tf_trace_get_info(const tf_trace *t) { return &t->info; }
tf_mtrace *tf_trace_mtrace(tf_trace *t) { return &t->mt; }

int tf_trace_rank(const tf_trace *t, int32_t rank, uint64_t *nevents, uint64_t *lost) {
  int64_t k = tf_mtrace_rank_index(&t->mt, rank);
  if (k < 0) return 0;
  if (nevents) *nevents = (uint64_t)tf_vseq_value_at(&t->mt.nevents, k);
  if (lost) *lost = (uint64_t)tf_vseq_value_at(&t->mt.lost, k);
  return 1;
}

uint32_t tf_trace_rank_partial(const tf_trace *t, int32_t rank) {
  int64_t k = tf_mtrace_rank_index(&t->mt, rank);
  return k < 0 ? 0 : (uint32_t)tf_vseq_value_at(&t->mt.why, k);
}

int tf_trace_rank_runs(tf_trace *t, tf_rank_run **runs, uint32_t *n) {
  if (!t->nflat) return tf_mtrace_rank_runs(&t->mt, runs, n);
  /* flat files: each rank reads its own file */
  *n = 0;
  *runs = malloc((t->mt.present.nvalues + 1) * sizeof **runs);
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(&t->mt.present));
  if (!*runs || !it) {
    free(*runs);
    free(it);
    *runs = NULL;
    return -1;
  }
  tf_vseq_iter_init(it, &t->mt.present);
  for (int64_t r; tf_vseq_iter_next(it, &r);) (*runs)[(*n)++] = (tf_rank_run){.first = (int32_t)r, .n = 1};
  free(it);
  return 0;
}

/* Every distinct rank projection decoded once (merge/validate.h). */
tf_status tf_trace_validate(tf_trace *t, char *err, size_t errlen) {
  if (t->nflat) return TF_OK; /* every flat file was validated whole when the trace was opened */
  return tf_mtrace_validate(&t->mt, UINT32_MAX, NULL, NULL, err, errlen);
}

void tf_trace_close(tf_trace *t) {
  if (!t) return;
  for (int i = 0; i < t->nflat; i++) free(t->flat_paths[i]);
  free(t->flat_paths);
  tf_mtrace_free(&t->mt);
  free(t);
}

/* ------------------------------------------------------------ cursors */

tf_status tf_rank_cursor_open(tf_trace *t, int32_t rank, tf_rank_cursor **out, char *err, size_t errlen) {
  *out = NULL;
  int64_t k = tf_mtrace_rank_index(&t->mt, rank);
  if (k < 0) return tf_failf(err, errlen, TF_ERR_ARG, "rank %d is not in this trace", rank);
  tf_rank_cursor *c = calloc(1, sizeof *c);
  if (!c) return tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
  c->t = t;
  if (t->nflat) { /* a reader of its own: cursors on one rank are independent */
    tf_status st = tf_file_open(t->flat_paths[k], &c->flat, err, errlen);
    if (st != TF_OK) {
      free(c);
      return st;
    }
    *out = c;
    return TF_OK;
  }
  const char *why = NULL;
  if (tf_mtrace_project(&t->mt, rank, &c->nodes, &c->n, &c->order, &c->left, &c->mem, &why)) {
    tf_rank_cursor_close(c);
    return tf_failf(err, errlen, why && strcmp(why, "out of memory") == 0 ? TF_ERR_NOMEM : TF_ERR_FORMAT,
                 "rank %d: malformed content: %s", rank, why ? why : "?");
  }
  if (tf_unroll_init(&c->u, (tf_fnode **const *)&c->nodes, &c->n, &c->order, c->n ? 1 : 0, t->mt.ft.funcs)) {
    tf_rank_cursor_close(c);
    return tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
  }
  c->unrolling = 1;
  *out = c;
  return TF_OK;
}

int tf_rank_cursor_next(tf_rank_cursor *c, tf_event *ev) {
  if (c->error[0]) return -1;
  if (c->flat) return tf_file_next(c->flat, ev);
  tf_unroll_event ue;
  int rc = tf_unroll_next(&c->u, &ue);
  if (rc < 0) {
    snprintf(c->error, sizeof c->error, "malformed content: %s", c->u.error);
    return -1;
  }
  if (rc == 0) return 0;
  c->last = ue;
  *ev = (tf_event){.fn = ue.fn,
                   .thread = ue.thread,
                   .callsite = c->t->mt.callsites[ue.site].sig,
                   .compute_ns = ue.compute_ns,
                   .duration_ns = ue.duration_ns,
                   .nvals = ue.nvals,
                   .vals = ue.vals};
  return 1;
}

const char *tf_rank_cursor_error(const tf_rank_cursor *c) {
  return c->flat && !c->error[0] ? tf_file_error(c->flat) : c->error;
}

static void path_out(const tf_trace *t, const tf_tpath *p, tf_time_path *out);

const tf_time_path *tf_rank_cursor_times(tf_rank_cursor *c) {
  const tf_fnode *x = c->last.node;
  if (c->flat || !x || !x->timing.npaths) return NULL;
  const void *key = c->last.path ? (const void *)c->last.path : (const void *)x;
  for (uint32_t i = 0; i < c->ntimes; i++) /* few (event, path) pairs per rank */
    if (c->times[i].key == key) return &c->times[i].out;
  if (c->ntimes == c->times_cap) {
    uint32_t cap = c->times_cap ? 2 * c->times_cap : 16;
    struct times_memo *nt = realloc(c->times, cap * sizeof *nt);
    if (!nt) return NULL;
    c->times = nt;
    c->times_cap = cap;
  }
  struct times_memo *e = &c->times[c->ntimes];
  if (c->last.path) {
    path_out(c->t, c->last.path, &e->out);
  } else {
    tf_tpath all;
    tf_mem m = {0};
    if (tf_timing_total(&x->timing, c->t->mt.bins, &all, &m)) return NULL;
    path_out(c->t, &all, &e->out);
    tf_dstat_free(&all.compute, &m);
    tf_dstat_free(&all.duration, &m);
  }
  e->key = key;
  return &c->times[c->ntimes++].out;
}

void tf_rank_cursor_close(tf_rank_cursor *c) {
  if (!c) return;
  free(c->times);
  tf_file_close(c->flat);
  if (c->unrolling) tf_unroll_free(&c->u);
  for (uint32_t i = 0; i < c->n; i++) tf_fnode_free(c->nodes[i], &c->mem);
  free(c->nodes);
  tf_order_free(&c->order, &c->mem);
  free(c);
}

/* ------------------------------------------------------------ loop structure */

struct tf_node {
  tf_mnode m; /* never instantiated: tf_node pointers are tf_mnode pointers */
};

static const tf_mnode *M(const tf_node *n) { return (const tf_mnode *)n; }

uint32_t tf_trace_top(const tf_trace *t, const tf_node *const **nodes) {
  *nodes = (const tf_node *const *)t->mt.top;
  return t->nflat ? 0 : t->mt.ntop;
}

void tf_node_get(const tf_node *n, tf_node_info *info) {
  const tf_mnode *x = M(n);
  *info = (tf_node_info){.is_loop = x->is_loop,
                         .fn = x->fn,
                         .thread = x->thread,
                         .callsite = x->site_sig,
                         .nslots = x->nslots,
                         .nbody = x->nbody,
                         .body = (const tf_node *const *)x->body,
                         .cst = x->cst ? (int64_t)x->cst - 1 : -1};
  uint64_t occ = 0;
  for (uint32_t i = 0; i < x->count.n; i++) occ += x->count.seq[i].nvalues * x->count.ranks[i].nvalues;
  info->occurrences = occ;
  info->nranks = (uint32_t)x->ranks.nvalues;
  if (!x->is_loop && x->timing.npaths) {
    tf_dstat c = {0}, d = {0};
    for (uint32_t i = 0; i < x->timing.npaths; i++)
      for (uint32_t g = 0; g < x->timing.paths[i].n; g++) {
        const tf_tpath *p = &x->timing.paths[i].g[g].t;
        if (p->compute.n && (!c.n || p->compute.min < c.min)) c.min = p->compute.min;
        if (p->duration.n && (!d.n || p->duration.min < d.min)) d.min = p->duration.min;
        if (p->compute.max > c.max) c.max = p->compute.max;
        if (p->duration.max > d.max) d.max = p->duration.max;
        c.n += p->compute.n, c.sum += p->compute.sum;
        d.n += p->duration.n, d.sum += p->duration.sum;
      }
    info->compute_min = c.min;
    info->compute_max = c.max;
    info->compute_mean = c.n ? c.sum / c.n : 0;
    info->duration_min = d.min;
    info->duration_max = d.max;
    info->duration_mean = d.n ? d.sum / d.n : 0;
  }
}

uint32_t tf_node_paths(const tf_node *n) { return M(n)->is_loop ? 0 : M(n)->timing.npaths; }

static void stat_out(const tf_dstat *d, tf_time_stat *o) {
  *o = (tf_time_stat){.n = d->n, .min = d->min, .max = d->max, .sum = d->sum, .mean = tf_dstat_mean(d),
                      .stddev = tf_dstat_stddev(d), .min_rank = d->min_rank, .max_rank = d->max_rank,
                      .rank_mean_lo = d->rmean_lo, .rank_mean_hi = d->rmean_hi,
                      .rank_mean_lo_rank = d->rmean_lo_rank, .rank_mean_hi_rank = d->rmean_hi_rank};
  /* the bins as people read them: cut to [min, max] (contiguous still), without the
   * empty ones at either end or of no width */
  uint32_t first = 0, last = d->nbins;
  while (first < last && !d->bins[first].n) first++;
  while (last > first && !d->bins[last - 1].n) last--;
  for (uint32_t b = first; b < last && o->nbins < TF_TIME_BINS_MAX; b++) {
    const tf_bin *x = &d->bins[b];
    uint64_t lo = b == first ? d->min : x->lo < d->min ? d->min : x->lo;
    uint64_t hi = b + 1 == last ? d->max : x->hi > d->max ? d->max : x->hi;
    if (hi < lo) hi = lo;
    if (!x->n && hi == lo) continue;
    uint64_t mean = (uint64_t)(x->mean + 0.5);
    o->bins[o->nbins++] = (tf_time_bin){.lo = lo, .hi = hi, .n = x->n, .mean = mean < lo ? lo : mean > hi ? hi : mean};
  }
}

static void path_out(const tf_trace *t, const tf_tpath *p, tf_time_path *out) {
  *out = (tf_time_path){.has_prev = p->prev_fn != TF_PREV_NONE};
  if (out->has_prev) {
    out->prev_fn = p->prev_fn;
    out->prev_callsite = t->mt.callsites[p->prev_site].sig;
  }
  stat_out(&p->compute, &out->compute);
  stat_out(&p->duration, &out->duration);
}

int tf_node_path(const tf_trace *t, const tf_node *n, uint32_t i, tf_time_path *out) {
  const tf_mnode *x = M(n);
  if (x->is_loop || !x->timing.npaths || (i != TF_PATHS_ALL && i >= x->timing.npaths)) return -1;
  tf_mem m = {0};
  tf_timing pooled; /* the path's groups pooled */
  if (tf_gtiming_pooled(&x->timing, t->mt.bins, &pooled, &m)) return -1;
  tf_tpath all, *p = i == TF_PATHS_ALL ? &all : &pooled.paths[i];
  int rc = 0;
  if (i == TF_PATHS_ALL && tf_timing_total(&pooled, t->mt.bins, &all, &m)) rc = -1;
  if (!rc) path_out(t, p, out);
  if (!rc && p == &all) tf_tpath_free(&all, &m);
  tf_timing_free(&pooled, &m);
  return rc;
}

uint32_t tf_node_path_groups(const tf_node *n, uint32_t i) {
  const tf_mnode *x = M(n);
  return x->is_loop || i >= x->timing.npaths ? 0 : x->timing.paths[i].n;
}

int tf_node_path_group(const tf_trace *t, const tf_node *n, uint32_t i, uint32_t g, tf_time_path *out, char *ranks,
                       size_t rlen) {
  const tf_mnode *x = M(n);
  if (ranks && rlen) ranks[0] = 0;
  if (x->is_loop || i >= x->timing.npaths || g >= x->timing.paths[i].n) return -1;
  const tf_tgroup *gr = &x->timing.paths[i].g[g];
  path_out(t, &gr->t, out);
  if (ranks) tf_ranks_format(&gr->ranks, ranks, rlen);
  return 0;
}

int tf_node_path_rank(const tf_trace *t, const tf_node *n, uint32_t i, int32_t rank, tf_time_path *out) {
  const tf_mnode *x = M(n);
  if (x->is_loop || i >= x->timing.npaths) return -1;
  for (uint32_t g = 0; g < x->timing.paths[i].n; g++)
    if (tf_ranks_contains(&x->timing.paths[i].g[g].ranks, rank)) {
      path_out(t, &x->timing.paths[i].g[g].t, out);
      return 0;
    }
  return -1;
}

void tf_node_ranks(const tf_node *n, char *buf, size_t len) { tf_ranks_format(&M(n)->ranks, buf, len); }

uint32_t tf_node_values(const tf_node *n, int which, uint32_t k, char *vals, size_t vlen, char *ranks,
                        size_t rlen) {
  const tf_mnode *x = M(n);
  const tf_vset *v = which < 0 ? &x->count : (uint32_t)which < x->nslots ? &x->slots[which] : NULL;
  if (vals && vlen) vals[0] = 0;
  if (ranks && rlen) ranks[0] = 0;
  if (!v) return 0;
  const tf_vrule *q = k < v->n ? tf_vset_pair_rule(v, k) : NULL;
  if (q && vals && vlen) { /* rank r's values: the rule at r plus these */
    tf_vrule_format(q, vals, vlen);
    size_t at = strlen(vals);
    if (at + 2 < vlen) {
      vals[at++] = '+';
      tf_vseq_format(&v->seq[k], vals + at, vlen - at);
    }
    if (ranks) tf_ranks_format(&v->ranks[k], ranks, rlen);
  } else if (k < v->n) {
    if (vals) tf_vseq_format(&v->seq[k], vals, vlen);
    if (ranks) tf_ranks_format(&v->ranks[k], ranks, rlen);
  }
  return v->n;
}

int tf_node_has_rank(const tf_node *n, int32_t rank) { return tf_ranks_contains(&M(n)->ranks, rank); }

int tf_node_values_of(const tf_node *n, int which, int32_t rank, char *vals, size_t vlen) {
  const tf_mnode *x = M(n);
  const tf_vset *v = which < 0 ? &x->count : (uint32_t)which < x->nslots ? &x->slots[which] : NULL;
  if (vals && vlen) vals[0] = 0;
  tf_vseq s;
  tf_mem m = {0};
  int found = v ? tf_vset_rank_seq(v, rank, &s, &m) : 0; /* a pair with a rule: shifted to the rank */
  if (found > 0 && vals) tf_vseq_format(&s, vals, vlen);
  if (v) tf_vseq_free(&s, &m);
  return found > 0;
}
