/* efg_check.c — the exact-reconstruction check behind `tracefold efg
 * --replay-check` (doc/EFG.md "Checking"): a trace's graphs (the merged
 * one, and each rank's own) written as JSON into memory, read back by the
 * document reader alone, every rank's events regenerated from what was
 * read and compared, event for event and field for field, with the trace's
 * own cursor (what `tracefold unroll --no-time --rank R` prints). Also the
 * text of one event as `unroll` prints it. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"

void tf_efg_event_text(const tf_func_desc *fd, uint64_t callsite, const int64_t *vals, uint32_t nvals, char *buf,
                       size_t len) {
  size_t used = 0;
#define PUT(...)                                                                                                  \
  do {                                                                                                            \
    if (used < len) {                                                                                             \
      int k_ = snprintf(buf + used, len - used, __VA_ARGS__);                                                     \
      used += k_ > 0 ? (size_t)k_ : 0;                                                                            \
    }                                                                                                             \
  } while (0)
  if (len) buf[0] = 0;
  PUT("%s cs=%016" PRIx64, fd->name, callsite);
  uint32_t nf = fd->nfields ? fd->nfields : 1;
  tf_field_value *f = malloc(nf * sizeof *f);
  char v[64];
  if (!f || tf_event_fields(fd, vals, nvals, f) != TF_OK) { /* values as they are */
    for (uint32_t k = 0; k < nvals; k++) PUT(" v%u=%" PRId64, k, vals[k]);
    free(f);
    return;
  }
  for (uint32_t k = 0; k < fd->nfields; k++) {
    if (tf_field_is_text(&f[k])) { /* as tracefold dump prints it */
      PUT(" %s=\"", f[k].desc->name);
      for (uint32_t j = 0; j < f[k].n; j++) PUT("%c", (char)f[k].v[j]);
      PUT("\"");
    } else if (f[k].desc->is_array) {
      PUT(" %s=[", f[k].desc->name);
      for (uint32_t j = 0; j < f[k].n; j++) {
        tf_format_value(f[k].v[j], v, sizeof v);
        PUT("%s%s", j ? "," : "", v);
      }
      PUT("]");
    } else {
      tf_format_value(f[k].v[0], v, sizeof v);
      PUT(" %s=%s", f[k].desc->name, v);
    }
  }
  free(f);
#undef PUT
}

typedef struct cmp {
  tf_rank_cursor *c;
  const tf_trace_info *ti;
  uint64_t k;
  char *msg;
  size_t msglen;
} cmp;

static int compare_one(const tf_efg_event *ev, void *arg) {
  cmp *x = arg;
  tf_event te;
  int rc = tf_rank_cursor_next(x->c, &te);
  char a[700], b[700];
  tf_efg_event_text(ev->fd, ev->callsite, ev->vals, ev->nvals, a, sizeof a);
  if (rc < 0) {
    snprintf(x->msg, x->msglen, "event %" PRIu64 ": the trace cannot be read: %s", x->k, tf_rank_cursor_error(x->c));
    return 1;
  }
  if (rc == 0) {
    snprintf(x->msg, x->msglen, "event %" PRIu64 ": the graph regenerates %u %s, the trace has no more events", x->k,
             ev->thread, a);
    return 1;
  }
  const tf_func_desc *fd = &x->ti->funcs[te.fn];
  if (strcmp(fd->name, ev->fd->name) != 0 || te.thread != ev->thread || te.callsite != ev->callsite ||
      te.nvals != ev->nvals || (te.nvals && memcmp(te.vals, ev->vals, te.nvals * sizeof *te.vals) != 0)) {
    tf_efg_event_text(fd, te.callsite, te.vals, te.nvals, b, sizeof b);
    snprintf(x->msg, x->msglen, "event %" PRIu64 " differs:\n  graph: %u %s\n  trace: %u %s", x->k, ev->thread, a,
             te.thread, b);
    return 1;
  }
  x->k++;
  return 0;
}

/* The graph g as JSON in memory, read back, and `rank`'s events from it against the trace's cursor. */
static tf_status check_rank(tf_trace *t, const tf_efg_doc *doc, const char *what, int32_t rank, uint64_t *events,
                            char *msg, size_t msglen) {
  char err[1200], why[1200] = "";
  tf_rank_cursor *c;
  if (tf_rank_cursor_open(t, rank, &c, err, sizeof err) != TF_OK) {
    snprintf(msg, msglen, "%s", err);
    return TF_ERR_FORMAT;
  }
  cmp x = {.c = c, .ti = tf_trace_get_info(t), .msg = why, .msglen = sizeof why};
  uint64_t n = 0;
  int rc = tf_efg_doc_regenerate(doc, rank, compare_one, &x, &n, err, sizeof err);
  tf_event te;
  if (rc == 0 && tf_rank_cursor_next(c, &te) != 0) {
    snprintf(why, sizeof why, "the graph regenerates %" PRIu64 " events, the trace has more", n);
    rc = 1;
  }
  tf_rank_cursor_close(c);
  if (rc > 0) {
    snprintf(msg, msglen, "%s, rank %" PRId32 ": %s", what, rank, why);
    return TF_ERR_FORMAT;
  }
  if (rc < 0) {
    snprintf(msg, msglen, "%s: %s", what, err);
    return TF_ERR_FORMAT;
  }
  *events += n;
  return TF_OK;
}

/* Build the graph of scope `rank` (-1 all), write, read back. */
static tf_status round_trip(tf_trace *t, const char *name, int32_t rank, tf_efg_doc **doc, char **text,
                            size_t *bytes, tf_efg_stats *st, char *msg, size_t msglen) {
  tf_efg_opts o = TF_EFG_OPTS_DEFAULT;
  o.rank = rank;
  o.resolve = 0;
  tf_efg *g;
  tf_status s = tf_efg_build(t, name, &o, &g, msg, msglen);
  if (s != TF_OK) return s;
  tf_efg_get_stats(g, st);
  FILE *f = open_memstream(text, bytes);
  if (!f) {
    tf_efg_free(g);
    snprintf(msg, msglen, "%s: out of memory", name);
    return TF_ERR_NOMEM;
  }
  int w = tf_efg_write_json(g, f);
  tf_efg_free(g);
  if (fclose(f) || w) {
    snprintf(msg, msglen, "%s: the graph could not be written", name);
    return TF_ERR_NOMEM;
  }
  char label[300];
  if (rank >= 0)
    snprintf(label, sizeof label, "%s (rank %d's graph as JSON)", name, rank);
  else
    snprintf(label, sizeof label, "%s (merged graph as JSON)", name);
  return tf_efg_doc_parse(*text, *bytes, label, doc, msg, msglen);
}

tf_status tf_efg_replay_check(tf_trace *t, const char *name, int32_t only, char *msg, size_t msglen) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  int32_t *ranks = malloc(((size_t)ti->nranks_present + 1) * sizeof *ranks);
  int32_t n = 0;
  if (!ranks) {
    snprintf(msg, msglen, "%s: out of memory", name);
    return TF_ERR_NOMEM;
  }
  for (int32_t r = 0; r < ti->nranks && n < ti->nranks_present; r++)
    if ((only < 0 || r == only) && tf_trace_rank(t, r, NULL, NULL)) ranks[n++] = r;
  tf_status s = TF_OK;
  if (!n) {
    snprintf(msg, msglen, "%s: rank %d is not in the trace", name, only);
    s = TF_ERR_ARG;
  }
  /* the merged graph: every rank from one document */
  tf_efg_doc *doc = NULL;
  char *text = NULL;
  size_t bytes = 0, rank_bytes = 0;
  tf_efg_stats st = {0}, rst;
  uint64_t events = 0, events2 = 0;
  if (s == TF_OK) s = round_trip(t, name, -1, &doc, &text, &bytes, &st, msg, msglen);
  for (int32_t i = 0; s == TF_OK && i < n; i++) s = check_rank(t, doc, "the merged graph", ranks[i], &events, msg, msglen);
  tf_efg_doc_free(doc);
  free(text);
  /* each rank's own graph */
  for (int32_t i = 0; s == TF_OK && i < n; i++) {
    doc = NULL;
    text = NULL;
    size_t b = 0;
    char what[64];
    snprintf(what, sizeof what, "rank %d's graph", ranks[i]);
    s = round_trip(t, name, ranks[i], &doc, &text, &b, &rst, msg, msglen);
    if (s == TF_OK) s = check_rank(t, doc, what, ranks[i], &events2, msg, msglen);
    rank_bytes += b;
    tf_efg_doc_free(doc);
    free(text);
  }
  if (s == TF_OK)
    snprintf(msg, msglen,
             "%s: %" PRIu64 " events of %d rank%s regenerated exactly (every field, as unroll --no-time) from the "
             "merged graph (%u nodes, %u edges, %u rank group%s, %zu bytes of JSON) and from each rank's own graph "
             "(%zu bytes of JSON in all); transitions, node counts and initial nodes agree",
             name, events, n, n == 1 ? "" : "s", st.nodes, st.edges, st.rank_groups, st.rank_groups == 1 ? "" : "s",
             bytes, rank_bytes);
  free(ranks);
  return s;
}
