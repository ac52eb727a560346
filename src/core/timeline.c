/* timeline.c — search in time on one rank of a trace without unrolling it
 * (tracefold.h "tf_timeline"; doc/TIMING.md "Search in time").
 *
 * The rank's timeline is its events in order: each call starts its compute
 * delta after the previous call ended and lasts its duration, the deltas
 * being what the trace keeps (tf_timing_estimate: in path mode the path
 * taken depends on the previous call of the thread). The search walks the
 * rank's folded loops as a timing tree:
 *   - the top level is cut once into prefix sums (time, events, and the
 *     previous call of each thread at every node), searched by bisection;
 *   - a loop whose iteration counts are constant, and so are those of every
 *     loop inside it (a *regular* loop), has a first iteration that depends
 *     on the calls before it and later iterations that are all alike: the
 *     search skips to the iteration holding t with one division;
 *   - other loops are stepped one iteration at a time (their counts read in
 *     order), still without expanding the regular loops inside them.
 * The spans of regular subtrees are memoised per entry state, so a search
 * costs about the loop depth times the body lengths, independent of how
 * many events the rank made. Flat traces are read linearly: they are the
 * reference the search is tested against; so are ranks whose threads
 * folded apart (streams.h): their timeline interleaves the threads' loops
 * event by event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_io.h"
#include "util/hash.h"
#include "merge/mtrace.h"
#include "time/prev_event.h"
#include "fold/unroll.h"

#define MEMO 4 /* spans remembered per regular node (by entry state) */

typedef struct span {
  uint64_t ns, events;
} span;

typedef struct tnode {
  const tf_fnode *x;
  struct tnode *body;
  uint32_t nbody;
  int regular;      /* loop: it and every loop inside it have one iteration count */
  uint64_t count;   /* regular loop: that count */
  /* sequential reading of a loop's iteration counts (irregular loops) */
  tf_vseq_iter *it;
  uint64_t it_next; /* occurrence the iterator reads next */
  uint64_t it_sum;  /* iterations of the occurrences before it_next */
  /* memo of whole-occurrence spans by entry-state key */
  uint64_t memo_key[MEMO];
  span memo[MEMO];
  uint32_t nmemo, memo_next;
} tnode;

struct tf_timeline {
  tf_trace *trace;
  int32_t rank;
  /* folded input */
  tf_fnode **nodes;
  uint32_t n;
  tf_mem mem;
  tnode *top;           /* n nodes */
  uint64_t *top_ns;     /* [i]: time when top-level node i starts (n + 1 entries) */
  uint64_t *top_events; /* [i]: events before node i */
  tf_prev_events *top_state; /* [i]: previous call of each thread when node i starts */
  /* flat input */
  tf_rank_cursor *cursor;
  uint64_t end_ns;
  char error[300];
};

static int fail(tf_timeline *tl, const char *why) {
  if (!tl->error[0]) snprintf(tl->error, sizeof tl->error, "rank %d: %.200s", tl->rank, why);
  return -1;
}

/* ------------------------------------------------------------ state */

static uint64_t state_key(const tf_prev_events *s) {
  uint64_t h = tf_mix(0x5354, s->n);
  for (uint32_t t = 0; t < s->n; t++) h = tf_mix(tf_mix(h, s->fn[t]), s->site[t]);
  return h;
}

static int state_copy(tf_prev_events *dst, const tf_prev_events *src) {
  *dst = (tf_prev_events){0};
  for (uint32_t t = 0; t < src->n; t++)
    if (src->fn[t] != TF_PREV_NONE && tf_prev_set(dst, t, src->fn[t], src->site[t])) return -1;
  return 0;
}

/* ------------------------------------------------------------ tree */

static int build(tf_timeline *tl, tnode *n, const tf_fnode *x) {
  n->x = x;
  if (!x->is_loop) {
    n->regular = 1;
    return 0;
  }
  int64_t c;
  n->regular = tf_vseq_is_constant(&x->iters, &c);
  n->count = n->regular ? (uint64_t)c : 0;
  n->body = calloc(x->nbody, sizeof *n->body);
  if (!n->body) return fail(tl, "out of memory");
  n->nbody = x->nbody;
  for (uint32_t i = 0; i < x->nbody; i++) {
    if (build(tl, &n->body[i], x->body[i])) return -1;
    n->regular &= n->body[i].regular;
  }
  return 0;
}

static void drop(tnode *n) {
  for (uint32_t i = 0; i < n->nbody; i++) drop(&n->body[i]);
  free(n->body);
  free(n->it);
}

/* Iterations of occurrence `occ` of loop n, and the iterations of all its
 * occurrences before it (*before). */
static int iterations(tf_timeline *tl, tnode *n, uint64_t occ, uint64_t *count, uint64_t *before) {
  if (n->regular) {
    *count = n->count;
    *before = occ * n->count;
    return 0;
  }
  if (!n->it || occ < n->it_next) {
    free(n->it);
    if (!(n->it = malloc(tf_vseq_iter_size(&n->x->iters)))) return fail(tl, "out of memory");
    tf_vseq_iter_init(n->it, &n->x->iters);
    n->it_next = n->it_sum = 0;
  }
  int64_t v;
  for (;;) {
    if (!tf_vseq_iter_next(n->it, &v) || v < 1) return fail(tl, "loop iteration counts run out");
    if (n->it_next++ == occ) break;
    n->it_sum += (uint64_t)v;
  }
  *count = (uint64_t)v;
  *before = n->it_sum;
  n->it_sum += (uint64_t)v; /* the iterator is past occ now */
  return 0;
}

/* The call of event x after state s: its compute and duration. */
static void event_times(const tf_fnode *x, const tf_prev_events *s, uint64_t *compute, uint64_t *duration) {
  uint32_t pf, ps;
  tf_prev_get(s, x->thread, &pf, &ps);
  tf_timing_estimate(&x->timing, pf, ps, compute, duration);
}

static int span_of(tf_timeline *tl, tnode *n, uint64_t occ, tf_prev_events *s, span *out);

/* One iteration of loop n (global iteration g: the occurrence of each body node). */
static int iteration_span(tf_timeline *tl, tnode *n, uint64_t g, tf_prev_events *s, span *out) {
  *out = (span){0};
  for (uint32_t i = 0; i < n->nbody; i++) {
    span b;
    if (span_of(tl, &n->body[i], g, s, &b)) return -1;
    out->ns += b.ns;
    out->events += b.events;
  }
  return 0;
}

/* Apply to s the previous-call changes one occurrence of n makes: the last
 * call of each thread in it (a regular node ends the same way whatever its
 * occurrence). */
static int exit_state(tf_timeline *tl, const tf_fnode *x, tf_prev_events *s) {
  if (!x->is_loop) return tf_prev_set(s, x->thread, x->fn, x->site) ? fail(tl, "out of memory") : 0;
  for (uint32_t i = 0; i < x->nbody; i++)
    if (exit_state(tl, x->body[i], s)) return -1;
  return 0;
}

/* Span of occurrence `occ` of node n entered with state s; s is updated. */
static int span_of(tf_timeline *tl, tnode *n, uint64_t occ, tf_prev_events *s, span *out) {
  const tf_fnode *x = n->x;
  if (!x->is_loop) {
    uint64_t c, d;
    event_times(x, s, &c, &d);
    *out = (span){c + d, 1};
    return tf_prev_set(s, x->thread, x->fn, x->site) ? fail(tl, "out of memory") : 0;
  }
  uint64_t key = 0;
  if (n->regular) {
    key = state_key(s);
    for (uint32_t k = 0; k < n->nmemo; k++)
      if (n->memo_key[k] == key) {
        *out = n->memo[k];
        return exit_state(tl, x, s);
      }
  }
  uint64_t count, before;
  if (iterations(tl, n, occ, &count, &before)) return -1;
  span first;
  if (iteration_span(tl, n, before, s, &first)) return -1;
  *out = first;
  if (count > 1 && n->regular) { /* iterations after the first are alike */
    span rest;
    if (iteration_span(tl, n, before + 1, s, &rest)) return -1;
    out->ns += rest.ns * (count - 1);
    out->events += rest.events * (count - 1);
  } else {
    for (uint64_t i = 1; i < count; i++) {
      span it;
      if (iteration_span(tl, n, before + i, s, &it)) return -1;
      out->ns += it.ns;
      out->events += it.events;
    }
  }
  if (n->regular) {
    uint32_t k = n->nmemo < MEMO ? n->nmemo++ : n->memo_next++ % MEMO;
    n->memo_key[k] = key;
    n->memo[k] = *out;
  }
  return 0;
}

/* ------------------------------------------------------------ search */

/* t lies in occurrence `occ` of n, which starts at t0 after e0 events with state s. */
static int descend(tf_timeline *tl, tnode *n, uint64_t occ, uint64_t t, uint64_t t0, uint64_t e0,
                   tf_prev_events *s, tf_time_point *p) {
  const tf_fnode *x = n->x;
  if (!x->is_loop) {
    uint64_t c, d;
    event_times(x, s, &c, &d);
    p->index = e0;
    p->fn = x->fn;
    p->thread = x->thread;
    p->callsite = tl->trace ? tf_trace_mtrace(tl->trace)->callsites[x->site].sig : 0;
    p->start_ns = t0 + c;
    p->end_ns = t0 + c + d;
    p->in_call = t >= p->start_ns;
    return 0;
  }
  if (p->depth >= TF_TIME_MAXDEPTH) return fail(tl, "loops nested too deep");
  uint64_t count, before;
  if (iterations(tl, n, occ, &count, &before)) return -1;
  uint64_t i = 0;
  tf_prev_events entry;
  if (state_copy(&entry, s)) return fail(tl, "out of memory");
  span it;
  for (;;) { /* find the iteration i holding t; entry: the state at its start */
    tf_prev_events after;
    if (state_copy(&after, &entry)) return fail(tl, "out of memory");
    if (iteration_span(tl, n, before + i, &after, &it)) {
      tf_prev_free(&after);
      tf_prev_free(&entry);
      return -1;
    }
    if (t < t0 + it.ns || i + 1 == count) {
      tf_prev_free(&after);
      break;
    }
    t0 += it.ns;
    e0 += it.events;
    tf_prev_free(&entry);
    entry = after;
    i++;
    if (i == 1 && n->regular && count > 2) { /* iterations 1.. are alike: skip to t's */
      span rest;
      tf_prev_events probe;
      if (state_copy(&probe, &entry) || iteration_span(tl, n, before + 1, &probe, &rest)) {
        tf_prev_free(&probe);
        tf_prev_free(&entry);
        return fail(tl, "out of memory");
      }
      tf_prev_free(&probe);
      uint64_t skip = rest.ns ? (t - t0) / rest.ns : count - 2;
      if (skip > count - 2) skip = count - 2;
      i += skip;
      t0 += skip * rest.ns;
      e0 += skip * rest.events; /* the entry state of every later iteration is the same */
    }
  }
  p->iteration[p->depth++] = i;
  for (uint32_t b = 0; b < n->nbody; b++) {
    tf_prev_events probe;
    span bs;
    if (state_copy(&probe, &entry) || span_of(tl, &n->body[b], before + i, &probe, &bs)) {
      tf_prev_free(&probe);
      tf_prev_free(&entry);
      return fail(tl, "out of memory");
    }
    if (t < t0 + bs.ns || b + 1 == n->nbody) {
      tf_prev_free(&probe);
      int rc = descend(tl, &n->body[b], before + i, t, t0, e0, &entry, p);
      tf_prev_free(&entry);
      return rc;
    }
    t0 += bs.ns;
    e0 += bs.events;
    tf_prev_free(&entry);
    entry = probe;
  }
  tf_prev_free(&entry);
  return fail(tl, "empty loop body");
}

/* ------------------------------------------------------------ API */

tf_status tf_timeline_open(tf_trace *t, int32_t rank, tf_timeline **out, char *err, size_t errlen) {
  *out = NULL;
  if (!tf_trace_rank(t, rank, NULL, NULL)) return tf_failf(err, errlen, TF_ERR_ARG, "rank %d is not in this trace", rank);
  tf_timeline *tl = calloc(1, sizeof *tl);
  if (!tl) return tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
  tl->trace = t;
  tl->rank = rank;
  tf_status st = TF_OK;
  const char *why = NULL;
  uint64_t nevents = 0;
  int linear = tf_trace_get_info(t)->source == TF_SOURCE_FLAT;
  if (!linear) {
    tf_order order;
    if (tf_mtrace_project(tf_trace_mtrace(t), rank, &tl->nodes, &tl->n, &order, &nevents, &tl->mem, &why)) {
      st = tf_failf(err, errlen, TF_ERR_FORMAT, "rank %d: malformed content: %s", rank, why ? why : "?");
      goto out;
    }
    linear = !tf_order_single(&order); /* threads folded apart: their events interleave one by one */
    tf_order_free(&order, &tl->mem);
  }
  if (linear) {
    if ((st = tf_rank_cursor_open(t, rank, &tl->cursor, err, errlen)) != TF_OK) goto out;
    tf_event ev;
    int rc;
    while ((rc = tf_rank_cursor_next(tl->cursor, &ev)) == 1) tl->end_ns += ev.compute_ns + ev.duration_ns;
    if (rc < 0) st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s", tf_rank_cursor_error(tl->cursor));
    goto out;
  }
  tl->top = calloc(tl->n + 1, sizeof *tl->top);
  tl->top_ns = calloc(tl->n + 1, sizeof *tl->top_ns);
  tl->top_events = calloc(tl->n + 1, sizeof *tl->top_events);
  tl->top_state = calloc(tl->n + 1, sizeof *tl->top_state);
  if (!tl->top || !tl->top_ns || !tl->top_events || !tl->top_state) {
    st = tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
    goto out;
  }
  tf_prev_events s = {0};
  for (uint32_t i = 0; i < tl->n && st == TF_OK; i++) {
    span sp;
    if (build(tl, &tl->top[i], tl->nodes[i]) || state_copy(&tl->top_state[i], &s) ||
        span_of(tl, &tl->top[i], 0, &s, &sp))
      st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s", tl->error[0] ? tl->error : "out of memory");
    else {
      tl->top_ns[i + 1] = tl->top_ns[i] + sp.ns;
      tl->top_events[i + 1] = tl->top_events[i] + sp.events;
    }
  }
  tf_prev_free(&s);
  if (st == TF_OK && tl->top_events[tl->n] != nevents)
    st = tf_failf(err, errlen, TF_ERR_FORMAT, "rank %d: malformed content: the loops hold %llu events, the rank declares %llu",
                  rank, (unsigned long long)tl->top_events[tl->n], (unsigned long long)nevents);
  tl->end_ns = tl->top_ns[tl->n];
out:
  if (st != TF_OK) {
    tf_timeline_close(tl);
    return st;
  }
  *out = tl;
  return TF_OK;
}

uint64_t tf_timeline_end(const tf_timeline *tl) { return tl->end_ns; }
const char *tf_timeline_error(const tf_timeline *tl) { return tl->error; }

static int find_flat(tf_timeline *tl, uint64_t t, tf_time_point *p) {
  tf_rank_cursor_close(tl->cursor);
  char err[300];
  if (tf_rank_cursor_open(tl->trace, tl->rank, &tl->cursor, err, sizeof err) != TF_OK) return fail(tl, err);
  tf_event ev;
  uint64_t end = 0, index = 0;
  int rc;
  while ((rc = tf_rank_cursor_next(tl->cursor, &ev)) == 1) {
    uint64_t start = end + ev.compute_ns;
    end = start + ev.duration_ns;
    if (t < end) {
      *p = (tf_time_point){.index = index, .fn = ev.fn, .thread = ev.thread, .callsite = ev.callsite,
                           .start_ns = start, .end_ns = end, .in_call = t >= start};
      return 1;
    }
    index++;
  }
  return rc < 0 ? fail(tl, tf_rank_cursor_error(tl->cursor)) : 0;
}

int tf_timeline_find(tf_timeline *tl, uint64_t t, tf_time_point *p) {
  *p = (tf_time_point){0};
  if (tl->error[0]) return -1;
  if (t >= tl->end_ns) return 0;
  if (tl->cursor) return find_flat(tl, t, p);
  uint32_t lo = 0, hi = tl->n; /* the last top-level node starting at or before t */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tl->top_ns[mid] <= t) lo = mid;
    else hi = mid;
  }
  while (lo + 1 < tl->n && tl->top_ns[lo + 1] <= t) lo++; /* zero-length nodes */
  tf_prev_events s;
  if (state_copy(&s, &tl->top_state[lo])) return fail(tl, "out of memory");
  int rc = descend(tl, &tl->top[lo], 0, t, tl->top_ns[lo], tl->top_events[lo], &s, p);
  tf_prev_free(&s);
  return rc < 0 ? -1 : 1;
}

void tf_timeline_close(tf_timeline *tl) {
  if (!tl) return;
  if (tl->top)
    for (uint32_t i = 0; i < tl->n; i++) drop(&tl->top[i]);
  free(tl->top);
  free(tl->top_ns);
  free(tl->top_events);
  if (tl->top_state)
    for (uint32_t i = 0; i <= tl->n; i++) tf_prev_free(&tl->top_state[i]);
  free(tl->top_state);
  for (uint32_t i = 0; i < tl->n; i++) tf_fnode_free(tl->nodes[i], &tl->mem);
  free(tl->nodes);
  tf_rank_cursor_close(tl->cursor);
  free(tl);
}
