/* values.c — the trace's value sequences as C tables and expressions.
 *
 * A value sequence (src/core/fold/vseq.h) is a list of items: runs (base,
 * step, count) and repeats (a body of items, repeated count times, each
 * repetition shifted by step). The program keeps the items as they are, in
 * a tfg_item table: the top-level items first, each repeat's body after
 * them (its index and length in the repeat's entry). So a table has as
 * many entries as the compressed trace has items: a loop of 10,000
 * iterations costs no more than one of 100. A parameter is a value set:
 * one sequence per group of ranks; the program reads its rank's sequence
 * in order (tfg_next, app_runtime.c). When every rank's sequence is one
 * constant, the parameter is a literal. Identical constant tables are
 * emitted once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"

void tfg_literal(int64_t v, char *buf, size_t len) {
  static const char *special[] = {"TF_NONE", "TF_ANY_SOURCE", "TF_PROC_NULL", "TF_ROOT",
                                  "TF_ANY_TAG", "TF_UNDEFINED", "TF_NULL_HANDLE"};
  if (v <= TF_SPECIAL_MAX) snprintf(buf, len, "%s", special[v - INT64_MIN]);
  else snprintf(buf, len, "%" PRId64 "LL", v);
}

static uint64_t item_values(const tf_vitem *x) {
  if (!x->nbody) return x->count;
  uint64_t per = 0;
  for (uint32_t i = 0; i < x->nbody; i++) per += item_values(&x->body[i]);
  return per * x->count;
}

void tfg_seq_items(const tf_vseq *s, tfg_text *t) {
  tf_vitem tail = tf_vseq_tail(s);
  uint32_t ntop = s->n + (s->tcount ? 1 : 0), n = 0, cap = ntop + 16;
  const tf_vitem **q = malloc(cap * sizeof *q);
  if (!q) {
    t->failed = 1;
    return;
  }
  for (uint32_t i = 0; i < s->n; i++) q[n++] = &s->items[i];
  if (s->tcount) q[n++] = &tail;
  for (uint32_t i = 0; i < n; i++) { /* breadth first: each body after everything before it */
    const tf_vitem *x = q[i];
    int64_t body = 0;
    if (x->nbody) {
      if (n + x->nbody > cap) {
        cap = 2 * (n + x->nbody);
        const tf_vitem **nq = realloc(q, cap * sizeof *nq);
        if (!nq) {
          free(q);
          t->failed = 1;
          return;
        }
        q = nq;
      }
      body = n;
      for (uint32_t k = 0; k < x->nbody; k++) q[n++] = &x->body[k];
    }
    char b[32], st[32];
    int64_t step = x->count > 1 || x->nbody ? x->step : 0;
    tfg_literal(x->base, b, sizeof b);
    if (step == INT64_MIN) snprintf(st, sizeof st, "INT64_MIN"); /* a step, not a special value */
    else snprintf(st, sizeof st, "%" PRId64 "LL", step);
    tfg_put(t, "%s{%s, %s, %" PRIu64 ", %" PRIu64 ", %" PRId64 ", %u}", i ? ", " : "", b, st, x->count,
            item_values(x), body, x->nbody);
  }
  free(q);
}

void tfg_table_name(tfg_gen *g, const char *type, const char *prefix, const char *body, char *buf, size_t len) {
  int is_array = strcmp(prefix, "rk") != 0 && strcmp(prefix, "cs") != 0;
  char key[32]; /* an object the program updates is one per thread that reads it */
  snprintf(key, sizeof key, is_array ? "%s" : "%s@%u", prefix, g->thread);
  size_t plen = strlen(key);
  for (uint32_t i = 0; i < g->ntabs; i++)
    if (strncmp(g->tabs[i].body, key, plen) == 0 && g->tabs[i].body[plen] == ':' &&
        strcmp(g->tabs[i].body + plen + 1, body) == 0) {
      snprintf(buf, len, "%s_%u", prefix, g->tabs[i].id);
      return;
    }
  uint32_t id = g->nvars++;
  snprintf(buf, len, "%s_%u", prefix, id);
  tfg_put(&g->tables, "static %s%s %s%s = {%s};\n", is_array ? "const " : "", type, buf, is_array ? "[]" : "", body);
  if (g->ntabs == g->captabs) {
    uint32_t cap = g->captabs ? 2 * g->captabs : 64;
    tfg_table *nt = realloc(g->tabs, cap * sizeof *nt);
    if (!nt) {
      g->tables.failed = 1;
      return;
    }
    g->tabs = nt;
    g->captabs = cap;
  }
  char *kept = malloc(plen + strlen(body) + 2);
  if (!kept) {
    g->tables.failed = 1;
    return;
  }
  sprintf(kept, "%s:%s", key, body);
  g->tabs[g->ntabs++] = (tfg_table){kept, id};
}

/* "{it_N, n}": a tfg_seq over a table of s's items */
static void seq_ref(tfg_gen *g, const tf_vseq *s, tfg_text *t) {
  tfg_text items = {0};
  tfg_seq_items(s, &items);
  char name[32];
  tfg_table_name(g, "tfg_item", "it", items.p ? items.p : "", name, sizeof name);
  tfg_put(t, "{%s, %u}", name, s->n + (s->tcount ? 1 : 0));
  if (items.failed) t->failed = 1;
  tfg_text_free(&items);
}

void tfg_value_expr(tfg_gen *g, const tf_vset *v, char *buf, size_t len) {
  int64_t c0 = 0, c;
  int constant = v->n > 0 && !tf_vset_has_rule(v);
  for (uint32_t p = 0; p < v->n && constant; p++)
    constant = tf_vseq_is_constant(&v->seq[p], &c) && (p == 0 ? (c0 = c, 1) : c == c0);
  if (constant) {
    tfg_literal(c0, buf, len);
    return;
  }
  tfg_text pairs = {0};
  for (uint32_t p = 0; p < v->n; p++) {
    tfg_puts(&pairs, p ? ", {" : "{");
    seq_ref(g, &v->ranks[p], &pairs);
    tfg_puts(&pairs, ", ");
    seq_ref(g, &v->seq[p], &pairs);
    const tf_vrule *q = tf_vset_pair_rule(v, p); /* the rank's values: these plus a * ((rank / d) mod m) ... */
    char a[32], d[32], m[32], a2[32], d2[32], m2[32];
    tfg_literal(q ? q->a : 0, a, sizeof a);
    tfg_literal(q ? q->d : 1, d, sizeof d);
    tfg_literal(q ? q->m : 0, m, sizeof m);
    tfg_literal(q ? q->a2 : 0, a2, sizeof a2); /* ... plus a second term (a2 0: none) */
    tfg_literal(q && q->a2 ? q->d2 : 1, d2, sizeof d2);
    tfg_literal(q ? q->m2 : 0, m2, sizeof m2);
    tfg_put(&pairs, ", %s, %s, %s, %s, %s, %s}", a, d, m, a2, d2, m2);
  }
  char pname[32];
  tfg_table_name(g, "tfg_pair", "pr", pairs.p ? pairs.p : "", pname, sizeof pname);
  if (pairs.failed) g->tables.failed = 1;
  tfg_text_free(&pairs);
  uint32_t id = g->nvars++; /* read in order: one state per parameter */
  tfg_put(&g->tables, "static tfg_vset vs_%u = {%s, %u, -1, 0, 0, 0};\n", id, pname, v->n);
  snprintf(buf, len, "tfg_next(&vs_%u)", id);
}

void tfg_ranks_name(tfg_gen *g, const tf_vseq *ranks, char *buf, size_t len) {
  tfg_text body = {0};
  seq_ref(g, ranks, &body);
  tfg_puts(&body, ", -1");
  tfg_table_name(g, "tfg_ranks", "rk", body.p ? body.p : "", buf, len);
  tfg_text_free(&body);
}

int tfg_same_ranks(const tf_vseq *a, const tf_vseq *b) {
  if (a->nvalues != b->nvalues) return 0;
  char ta[4096], tb[4096];
  tf_vseq_format(a, ta, sizeof ta);
  tf_vseq_format(b, tb, sizeof tb);
  return strlen(ta) < sizeof ta - 1 && strcmp(ta, tb) == 0;
}

int tfg_seq_of_ranks(const uint8_t *pick, int32_t nranks, tf_vseq *out, tf_mem *m) {
  tf_vseq_init(out);
  for (int32_t r = 0; r < nranks; r++)
    if (pick[r]) tf_vseq_push(out, r, m);
  tf_vseq_seal(out, m);
  return m->failed ? -1 : 0;
}

/* A table of (ranks, values) pairs: ranks with equal values (vals[r][0..n[r]), has[r]) share a
 * pair; its name into pname, its pairs' number returned. */
static uint32_t rank_pairs_name(tfg_gen *g, const int64_t *const *vals, const uint32_t *n, const uint8_t *has,
                                int32_t nranks, char *pname, size_t len) {
  uint8_t *pick = calloc((size_t)nranks + 1, 1), *done = calloc((size_t)nranks + 1, 1);
  tfg_text pairs = {0};
  uint32_t npairs = 0;
  tf_mem m = {0};
  for (int32_t r = 0; pick && done && r < nranks; r++) {
    if (!has[r] || done[r]) continue;
    memset(pick, 0, (size_t)nranks);
    for (int32_t k = r; k < nranks; k++)
      if (has[k] && !done[k] && n[k] == n[r] && memcmp(vals[k], vals[r], n[r] * sizeof *vals[r]) == 0)
        pick[k] = done[k] = 1;
    tf_vseq ranks, value;
    tfg_seq_of_ranks(pick, nranks, &ranks, &m);
    tf_vseq_init(&value);
    for (uint32_t j = 0; j < n[r]; j++) tf_vseq_push(&value, vals[r][j], &m);
    tf_vseq_seal(&value, &m);
    tfg_puts(&pairs, npairs++ ? ", {" : "{");
    seq_ref(g, &ranks, &pairs);
    tfg_puts(&pairs, ", ");
    seq_ref(g, &value, &pairs);
    tfg_puts(&pairs, ", 0, 1, 0, 0, 1, 0}"); /* no rule */
    tf_vseq_free(&ranks, &m);
    tf_vseq_free(&value, &m);
  }
  if (!pick || !done || m.failed || pairs.failed) g->tables.failed = 1;
  free(pick);
  free(done);
  tfg_table_name(g, "tfg_pair", "pr", pairs.p ? pairs.p : "", pname, len);
  tfg_text_free(&pairs);
  return npairs;
}

void tfg_constants_name(tfg_gen *g, const int64_t *per_rank, const uint8_t *has, int32_t nranks, char *buf,
                        size_t len) {
  const int64_t **vals = malloc(((size_t)nranks + 1) * sizeof *vals);
  uint32_t *n = malloc(((size_t)nranks + 1) * sizeof *n);
  char pname[32] = "NULL";
  uint32_t npairs = 0;
  if (vals && n) {
    for (int32_t r = 0; r < nranks; r++) vals[r] = &per_rank[r], n[r] = 1;
    npairs = rank_pairs_name(g, vals, n, has, nranks, pname, sizeof pname);
  } else {
    g->tables.failed = 1;
  }
  free(vals);
  free(n);
  char body[64];
  snprintf(body, sizeof body, "%s, %u, -1, 0, 0, 0", pname, npairs);
  tfg_table_name(g, "tfg_vset", "cs", body, buf, len);
}

void tfg_sequences_name(tfg_gen *g, const int64_t *const *vals, const uint32_t *n, const uint8_t *has,
                        int32_t nranks, char *buf, size_t len) {
  char pname[32];
  uint32_t npairs = rank_pairs_name(g, vals, n, has, nranks, pname, sizeof pname);
  uint32_t id = g->nvars++; /* read in order: a state of its own */
  tfg_put(&g->tables, "static tfg_vset vs_%u = {%s, %u, -1, 0, 0, 0};\n", id, pname, npairs);
  snprintf(buf, len, "vs_%u", id);
}
