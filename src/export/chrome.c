/* chrome.c — a trace as one JSON file in the Trace Event Format that
 * chrome://tracing and Perfetto (ui.perfetto.dev) load (tf_export_chrome,
 * export.h; doc/EXPORT.md "Chrome").
 *
 *   {"displayTimeUnit": "ns", "otherData": {...}, "traceEvents": [
 *     {"ph":"M","name":"process_name","pid":R,"args":{"name":"rank R"}}, ...    a process per rank
 *     {"ph":"M","name":"thread_name","pid":R,"tid":T,"args":{"name":...}}      a thread per MPI thread
 *     {"ph":"X","name":"compute","cat":"compute","pid":R,"tid":T,"ts":..,"dur":..}   the compute before a call
 *     {"ph":"X","name":"MPI_Send","cat":"mpi","pid":R,"tid":T,"ts":..,"dur":..,"args":{fields}}
 *     {"ph":"s","name":"message","cat":"p2p","id":N,"pid":..,"tid":..,"ts":..}  a message leaves (its send call)
 *     {"ph":"f","bp":"e","name":"message","cat":"p2p","id":N,...}              and arrives (the call that received it)
 *   ]}
 *
 * Times in microseconds (ns precision), regenerated as clock.h says. The
 * k-th message of (sender, receiver, communicator, tag) leaves in the
 * sender's k-th send of that key and arrives in the receiver's k-th
 * receive of it (MPI's non-overtaking order): both sides compute the same
 * flow id without looking at each other. Flow arrows are written for
 * messages whose both ends are written (--ranks and --from/--to cut some).
 */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "comms.h"
#include "events.h"
#include "export.h"
#include "failure.h"
#include "grow.h"
#include "json.h"
#include "messages.h"
#include "outdir.h"

/* ------------------------------------------------------------ message keys, counted per rank */

typedef struct kslot {
  int64_t a, b, comm, tag; /* sender, receiver (world), communicator id, tag; a < 0: empty */
  uint64_t n;
} kslot;

typedef struct keys {
  kslot *s;
  size_t cap, used;
} keys;

static uint64_t mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

static uint64_t khash(int64_t a, int64_t b, int64_t comm, int64_t tag) {
  return mix(mix(mix(mix((uint64_t)a) ^ (uint64_t)b) ^ (uint64_t)comm) ^ (uint64_t)tag);
}

static void keys_clear(keys *k) {
  for (size_t i = 0; i < k->cap; i++) k->s[i].a = -1;
  k->used = 0;
}

/* the count of (a, b, comm, tag) so far, then one more: the message's index; UINT64_MAX when memory is short */
static uint64_t keys_next(keys *k, int64_t a, int64_t b, int64_t comm, int64_t tag) {
  if (2 * (k->used + 1) > k->cap) {
    size_t ncap = k->cap ? 2 * k->cap : 256;
    kslot *ns = malloc(ncap * sizeof *ns);
    if (!ns) return UINT64_MAX;
    for (size_t i = 0; i < ncap; i++) ns[i].a = -1;
    for (size_t i = 0; i < k->cap; i++)
      if (k->s[i].a >= 0) {
        size_t j = khash(k->s[i].a, k->s[i].b, k->s[i].comm, k->s[i].tag) & (ncap - 1);
        while (ns[j].a >= 0) j = (j + 1) & (ncap - 1);
        ns[j] = k->s[i];
      }
    free(k->s);
    k->s = ns;
    k->cap = ncap;
  }
  size_t j = khash(a, b, comm, tag) & (k->cap - 1);
  while (k->s[j].a >= 0 && !(k->s[j].a == a && k->s[j].b == b && k->s[j].comm == comm && k->s[j].tag == tag))
    j = (j + 1) & (k->cap - 1);
  if (k->s[j].a < 0) {
    k->s[j] = (kslot){a, b, comm, tag, 0};
    k->used++;
  }
  return k->s[j].n++;
}

/* ------------------------------------------------------------ the exporter */

typedef struct flow { /* one end of a message's arrow */
  uint64_t id;
  uint64_t ts; /* ns */
  int32_t pid;
  uint32_t tid;
  int end; /* 0 leaves, 1 arrives */
} flow;

typedef struct cx {
  tf_trace *t;
  const tf_trace_info *info;
  const tf_export_chrome_opts *o;
  xp_comms comms;
  xp_msgs msgs;
  xp_clock clk;
  keys k;
  flow *flows;
  size_t nflows, capflows;
  uint8_t *want; /* per rank: written */
  uint64_t from, to; /* the window, ns */
  FILE *f;
  uint64_t done, slices, calls, arrows;
  int first; /* no event written yet */
  xp_failure failure;
} cx;

static void sep(cx *x) {
  fputs(x->first ? "\n" : ",\n", x->f);
  x->first = 0;
}

static void us(FILE *f, const char *key, uint64_t ns) {
  fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void meta(cx *x, const char *what, int32_t pid, int64_t tid, const char *name, int64_t sort) {
  sep(x);
  fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d", what, pid);
  if (tid >= 0) fprintf(x->f, ",\"tid\":%" PRId64, tid);
  fputs(",\"args\":{", x->f);
  if (name) {
    fputs("\"name\":", x->f);
    xp_json_str(x->f, name);
  } else {
    fprintf(x->f, "\"sort_index\":%" PRId64, sort);
  }
  fputs("}}", x->f);
}

static int add_flow(cx *x, flow fl) {
  flow *nv = xp_grow(x->flows, x->nflows, &x->capflows, sizeof *nv);
  if (!nv) return xp_fail(&x->failure, 1, "out of memory");
  x->flows = nv;
  x->flows[x->nflows++] = fl;
  return 0;
}

/* The flow ends of the current event's messages (each counted, written or not). */
static int flows(cx *x, int32_t rank, uint32_t tid, uint64_t ts, int in_window) {
  for (size_t i = 0; i < x->msgs.n; i++) {
    const xp_msg *m = &x->msgs.out[i];
    int send = m->kind == XP_SEND || m->kind == XP_ISEND, recv = m->kind == XP_RECV || m->kind == XP_IRECV_DONE;
    if ((!send && !recv) || m->peer < 0 || m->tag < 0) continue;
    int64_t a = send ? rank : m->peer, b = send ? m->peer : rank;
    /* counted apart on each side (a message to itself is counted twice by its rank) */
    uint64_t n = keys_next(&x->k, 2 * a + recv, b, m->comm, m->tag);
    if (n == UINT64_MAX) return xp_fail(&x->failure, 1, "out of memory");
    if (!in_window || !x->want[m->peer]) continue;
    /* a 52-bit id (exact in JavaScript's numbers) of (key, n); both ends compute it alike */
    uint64_t id = mix(khash(a, b, m->comm, m->tag) ^ mix(n + 1)) & ((1ull << 52) - 1);
    if (add_flow(x, (flow){id, ts, rank, tid, recv})) return -1;
  }
  return 0;
}

static int event(cx *x, const xp_events *e, int32_t rank, uint8_t **seen, uint32_t *nseen) {
  uint64_t cs, s, end;
  if (xp_clock_event(&x->clk, e, &cs, &s, &end)) return xp_fail(&x->failure, 1, "out of memory");
  if (xp_msgs_event(&x->msgs, e)) return xp_fail(&x->failure, 1, "out of memory");
  int call_in = end >= x->from && s <= x->to;
  int comp_in = s > cs && s >= x->from && cs <= x->to;
  uint32_t tid = e->ev.thread;
  if ((call_in || comp_in) && (tid >= *nseen || !(*seen)[tid])) {
    if (tid >= *nseen) {
      uint8_t *ns = realloc(*seen, tid + 1);
      if (!ns) return xp_fail(&x->failure, 1, "out of memory");
      memset(ns + *nseen, 0, tid + 1 - *nseen);
      *seen = ns;
      *nseen = tid + 1;
    }
    (*seen)[tid] = 1;
    char name[64];
    snprintf(name, sizeof name, tid ? "thread %u" : "thread 0 (MPI_Init)", tid);
    meta(x, "thread_name", rank, tid, name, 0);
    meta(x, "thread_sort_index", rank, tid, NULL, tid);
  }
  if (comp_in) {
    sep(x);
    fprintf(x->f, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"compute\",\"pid\":%d,\"tid\":%u",
            e->seq == 0 ? "before MPI_Init" : "compute", rank, tid);
    us(x->f, "ts", cs);
    us(x->f, "dur", s - cs);
    fputs("}", x->f);
    x->slices++;
  }
  if (call_in) {
    sep(x);
    fputs("{\"ph\":\"X\",\"name\":", x->f);
    xp_json_str(x->f, e->fd->name);
    fprintf(x->f, ",\"cat\":\"mpi\",\"pid\":%d,\"tid\":%u", rank, tid);
    us(x->f, "ts", s);
    us(x->f, "dur", e->ev.duration_ns);
    fprintf(x->f, ",\"args\":{\"event\":%" PRIu64 ",\"callsite\":\"%016" PRIx64 "\"", e->seq, e->ev.callsite);
    if (e->fits) xp_json_fields(x->f, e->fd, e->fields);
    int np = 0;
    for (size_t i = 0; i < x->msgs.n; i++)
      if (x->msgs.out[i].peer >= 0 && x->msgs.out[i].kind != XP_ISEND_DONE && x->msgs.out[i].kind != XP_IRECV_POST)
        fprintf(x->f, "%s%d", np++ ? "," : ",\"peer_ranks\":[", x->msgs.out[i].peer);
    fputs(np ? "]}}" : "}}", x->f);
    x->slices++;
    x->calls++;
  }
  return flows(x, rank, tid, s, call_in);
}

static int export_rank(cx *x, int32_t rank) {
  xp_events e;
  char err[1024];
  tf_status st = xp_events_open(&e, x->t, rank, err, sizeof err);
  if (st != TF_OK) return xp_fail(&x->failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  char name[64];
  snprintf(name, sizeof name, "rank %d", rank);
  meta(x, "process_name", rank, -1, name, 0);
  meta(x, "process_sort_index", rank, -1, NULL, rank);
  xp_msgs_rank(&x->msgs, rank);
  xp_clock_rank(&x->clk, rank);
  keys_clear(&x->k);
  uint8_t *seen = NULL;
  uint32_t nseen = 0;
  int got, rc = 0;
  while (rc == 0 && (got = xp_events_next(&e)) == 1) {
    if (!e.fd) {
      rc = xp_fail(&x->failure, 2, "rank %d event %" PRIu64 ": function %u is not in the trace's function table", rank, e.seq,
                e.ev.fn);
      break;
    }
    rc = event(x, &e, rank, &seen, &nseen);
    if ((++x->done & 4095) == 0 && x->o->progress) x->o->progress(x->done, x->info->nevents, x->o->progress_arg);
  }
  if (rc == 0 && got < 0) rc = xp_fail(&x->failure, 2, "%s", xp_events_error(&e));
  free(seen);
  xp_events_close(&e);
  return rc;
}

static int by_id(const void *a, const void *b) {
  const flow *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->end - y->end;
}

/* the arrows whose both ends were written */
static void arrows(cx *x) {
  qsort(x->flows, x->nflows, sizeof *x->flows, by_id);
  for (size_t i = 0; i + 1 < x->nflows; i++) {
    const flow *a = &x->flows[i], *b = &x->flows[i + 1];
    if (a->id != b->id || a->end != 0 || b->end != 1) continue;
    for (int k = 0; k < 2; k++) {
      const flow *fl = k ? b : a;
      sep(x);
      fprintf(x->f, "{\"ph\":\"%s\",\"name\":\"message\",\"cat\":\"p2p\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u",
              k ? "f\",\"bp\":\"e" : "s", fl->id, fl->pid, fl->tid);
      us(x->f, "ts", fl->ts);
      fputs("}", x->f);
    }
    x->arrows++;
    i++;
  }
}

/* The window in ns: from o, seconds or percent of the trace's length. */
static int window(cx *x) {
  const tf_export_chrome_opts *o = x->o;
  uint64_t len = 0;
  if ((o->from.set && o->from.percent) || (o->to.set && o->to.percent)) {
    for (int32_t r = 0; r < x->info->nranks; r++) {
      if (!tf_trace_rank(x->t, r, NULL, NULL)) continue;
      tf_timeline *tl;
      char err[1024];
      if (tf_timeline_open(x->t, r, &tl, err, sizeof err) != TF_OK) return xp_fail(&x->failure, 2, "%s", err);
      uint64_t end = x->clk.offset[r] + tf_timeline_end(tl);
      if (end > len) len = end;
      tf_timeline_close(tl);
    }
  }
  x->from = 0;
  x->to = UINT64_MAX;
  if (o->from.set) x->from = (uint64_t)(o->from.percent ? o->from.value / 100 * (double)len : o->from.value * 1e9);
  if (o->to.set) x->to = (uint64_t)(o->to.percent ? o->to.value / 100 * (double)len : o->to.value * 1e9);
  if (x->to < x->from) return xp_fail(&x->failure, 2, "the window ends (--to) before it starts (--from)");
  return 0;
}

static void header(cx *x) {
  const tf_trace_info *info = x->info;
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tracefold " TF_VERSION_STRING "\",\"program\":",
        x->f);
  xp_json_str(x->f, info->exe);
  fputs(",\"mpi\":", x->f);
  xp_json_str(x->f, info->mpi);
  fprintf(x->f, ",\"ranks\":%d,\"timestamps\":\"%s\"", info->nranks,
          info->source == TF_SOURCE_FLAT ? "exact (flat trace)"
          : info->timing == TF_TIMING_NONE ? "none (the trace keeps no times)"
                                             : "regenerated from the trace's mean times per event (and path)");
  fputs("},\"traceEvents\":[", x->f);
  x->first = 1;
}

tf_export_status tf_export_chrome(const char *trace, const char *file, const tf_export_chrome_opts *o, char *msg,
                                  size_t msglen) {
  cx x = {.o = o};
  char err[1024];
  if (tf_trace_open(trace, o->flat ? TF_OPEN_PREFER_FLAT : 0, &x.t, err, sizeof err) != TF_OK) {
    snprintf(msg, msglen, "%s", err);
    return TF_EXPORT_REFUSED;
  }
  x.info = tf_trace_get_info(x.t);
  int rc = 0;
  tf_status st;
  x.want = calloc((size_t)x.info->nranks + 1, 1);
  if (!x.want) rc = xp_fail(&x.failure, 1, "out of memory");
  for (int32_t r = 0; rc == 0 && r < x.info->nranks; r++) x.want[r] = !o->ranks && tf_trace_rank(x.t, r, NULL, NULL);
  for (size_t i = 0; rc == 0 && o->ranks && i < o->nranks; i++) {
    if (o->ranks[i] < 0 || o->ranks[i] >= x.info->nranks || !tf_trace_rank(x.t, o->ranks[i], NULL, NULL))
      rc = xp_fail(&x.failure, 2, "rank %d is not in the trace (%d ranks)", o->ranks[i], x.info->nranks);
    else
      x.want[o->ranks[i]] = 1;
  }
  if (rc == 0 && ((st = xp_comms_build(&x.comms, x.t, err, sizeof err)) != TF_OK ||
                  (st = xp_clock_init(&x.clk, x.t, err, sizeof err)) != TF_OK))
    rc = xp_fail(&x.failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  if (rc == 0 && xp_msgs_init(&x.msgs, x.info, &x.comms)) rc = xp_fail(&x.failure, 1, "out of memory");
  if (rc == 0) rc = window(&x);
  xp_outfile of = {0};
  if (rc == 0 && xp_outfile_open(&of, file, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 2;
  if (rc == 0) {
    x.f = of.f;
    header(&x);
    for (int32_t r = 0; rc == 0 && r < x.info->nranks; r++)
      if (x.want[r]) rc = export_rank(&x, r);
    if (rc == 0) arrows(&x);
    fputs("\n]}\n", x.f);
    if (rc == 0 && xp_outfile_commit(&of, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1;
  }
  if (rc != 0) xp_outfile_discard(&of);
  if (x.o->progress && rc == 0) x.o->progress(x.done, x.info->nevents, x.o->progress_arg);
  if (rc != 0)
    snprintf(msg, msglen, "%s: %s", trace, x.failure.err);
  else
    snprintf(msg, msglen, "%s: Chrome trace-event JSON: %" PRIu64 " calls and %" PRIu64 " compute slices, %" PRIu64
                          " message arrows", of.path, x.calls, x.slices - x.calls, x.arrows);
  free(x.flows);
  free(x.k.s);
  free(x.want);
  xp_msgs_free(&x.msgs);
  xp_clock_free(&x.clk);
  xp_comms_free(&x.comms);
  tf_trace_close(x.t);
  return rc == 0 ? TF_EXPORT_OK : (tf_export_status)(x.failure.rc ? x.failure.rc : 1);
}
