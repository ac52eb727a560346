/* efg_json.c — an event flow graph as JSON (doc/EFG.md "The JSON form"):
 * the functions and call sites its nodes use, nodes, initial nodes, edges
 * (with rank lists and per-rank counts as value sets in merged graphs, time
 * summaries with --time), and the loop structure over node ids with every
 * value sequence written exactly: runs as [base, step, count] (a single
 * value as the number), repeats as {"x": count, "shift": s, "body": [...]}
 * (fold/vseq.h), a sequence that is one value at every occurrence as that
 * number. efg_read.c reads it back.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"
#include "merge/ranklist.h"

typedef struct jw {
  const tf_efg *g;
  FILE *f;
  uint32_t *fn_out, *site_out; /* trace index -> index written, EFG_NONE if unused */
  int nomem;
  int counted; /* sequences whose length the structure does not give: items always (the order) */
} jw;

static void put_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void put_ranks(jw *w, const tf_vseq *ranks) {
  char *t = efg_ranks_text(ranks);
  if (!t) {
    w->nomem = 1;
    fputs("\"\"", w->f);
    return;
  }
  put_str(w->f, t);
  free(t);
}

/* ---- value sequences, exactly */

static void put_items(FILE *f, const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const tf_vitem *x = &it[i];
    if (i) fputc(',', f);
    if (x->nbody) {
      fprintf(f, "{\"x\":%" PRIu64 ",\"shift\":%" PRId64 ",\"body\":[", x->count, x->step);
      put_items(f, x->body, x->nbody);
      fputs("]}", f);
    } else if (x->count == 1) { /* one value: the number itself */
      fprintf(f, "%" PRId64, x->base);
    } else {
      fprintf(f, "[%" PRId64 ",%" PRId64 ",%" PRIu64 "]", x->base, x->step, x->count);
    }
  }
}

/* A sequence: a bare number when it is one value at every occurrence (how
 * many follows from the structure; not when `counted`), else its items. */
static void put_seq(FILE *f, const tf_vseq *s, int counted) {
  int64_t c;
  if (!counted && s->nvalues && tf_vseq_is_constant(s, &c)) {
    fprintf(f, "%" PRId64, c);
    return;
  }
  fputc('[', f);
  put_items(f, s->items, s->n);
  if (s->tcount) {
    tf_vitem t = tf_vseq_tail(s);
    if (s->n) fputc(',', f);
    put_items(f, &t, 1);
  }
  fputc(']', f);
}

/* A value set as the sequence of the graph's rank, or (merged) the one
 * sequence of all the item's ranks, or {"by_rank": [{"ranks", "seq"}...]}. */
static void put_vset(jw *w, const tf_vset *v, const tf_vseq *all) {
  if (w->g->o.rank >= 0) {
    tf_vseq s;
    tf_mem m = {0};
    if (tf_vset_rank_seq(v, w->g->o.rank, &s, &m) > 0) /* a pair with a rule: shifted to the rank */
      put_seq(w->f, &s, w->counted);
    else
      fputs("[]", w->f);
    tf_vseq_free(&s, &m);
    return;
  }
  if (v->n == 1 && v->ranks[0].nvalues == all->nvalues && !tf_vset_has_rule(v)) {
    put_seq(w->f, &v->seq[0], w->counted);
    return;
  }
  fputs("{\"by_rank\":[", w->f);
  for (uint32_t i = 0; i < v->n; i++) {
    fputs(i ? ",{\"ranks\":" : "{\"ranks\":", w->f);
    put_ranks(w, &v->ranks[i]);
    const tf_vrule *q = tf_vset_pair_rule(v, i); /* rank r's values: seq plus a * ((r / d) mod m) */
    if (q) {
      fprintf(w->f, ",\"rule\":{\"a\":%lld,\"d\":%lld,\"m\":%lld", (long long)q->a, (long long)q->d, (long long)q->m);
      if (q->a2) fprintf(w->f, ",\"a2\":%lld,\"d2\":%lld,\"m2\":%lld", (long long)q->a2, (long long)q->d2, (long long)q->m2);
      fputc('}', w->f);
    }
    fputs(",\"seq\":", w->f);
    put_seq(w->f, &v->seq[i], w->counted);
    fputc('}', w->f);
  }
  fputs("]}", w->f);
}

/* ---- the structure */

static void put_structure(jw *w, const efg_item *items, uint32_t n, const tf_vseq *parent, int depth) {
  const tf_efg *g = w->g;
  int first = 1;
  for (uint32_t i = 0; i < n; i++) {
    const efg_item *it = &items[i];
    const tf_mnode *x = it->m;
    if (g->o.rank >= 0 && !tf_ranks_contains(&x->ranks, g->o.rank)) continue;
    if (!first) fputc(',', w->f);
    if (depth == 0) fputs("\n ", w->f);
    first = 0;
    if (x->is_loop) {
      fputs("{\"loop\":[", w->f);
      put_structure(w, it->body, it->nbody, &x->ranks, depth + 1);
      fputs("],\"iters\":", w->f);
      put_vset(w, &x->count, &x->ranks);
    } else {
      fprintf(w->f, "{\"n\":%" PRIu32 ",\"nvals\":", g->nodes[it->node].out);
      put_vset(w, &x->count, &x->ranks);
      uint32_t ns = x->nslots;
      if (g->o.rank >= 0)
        while (ns && !tf_vset_find(&x->slots[ns - 1], g->o.rank)) ns--;
      fputs(",\"slots\":[", w->f);
      for (uint32_t j = 0; j < ns; j++) {
        if (j) fputc(',', w->f);
        put_vset(w, &x->slots[j], &x->ranks);
      }
      fputc(']', w->f);
    }
    if (g->o.rank < 0 && (x->ranks.nvalues != parent->nvalues || !tf_ranks_contains(parent, tf_ranks_first(&x->ranks)))) {
      fputs(",\"ranks\":", w->f);
      put_ranks(w, &x->ranks);
    }
    fputc('}', w->f);
  }
}

/* ---- counts and times */

static void put_counts(jw *w, const efg_counts *c) {
  fprintf(w->f, "\"count\":%" PRIu64, c->total);
  if (w->g->o.rank >= 0) return;
  fputs(",\"ranks\":", w->f);
  put_ranks(w, &c->ranks);
  fputs(",\"counts\":[", w->f);
  for (uint32_t i = 0; i < c->n; i++) {
    fprintf(w->f, "%s[%" PRIu64 ",", i ? "," : "", c->v[i].count);
    put_ranks(w, &c->v[i].ranks);
    fputc(']', w->f);
  }
  fputc(']', w->f);
}

static void put_stat(FILE *f, const tf_dstat *d) {
  fprintf(f, "{\"n\":%" PRIu64 ",\"mean\":%.1f,\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"stddev\":%.1f", d->n,
          tf_dstat_mean(d), d->min, d->max, tf_dstat_stddev(d));
  if (d->n && d->min_rank != d->max_rank)
    fprintf(f, ",\"min_rank\":%" PRId32 ",\"max_rank\":%" PRId32, d->min_rank, d->max_rank);
  if (d->nbins) { /* the non-empty bins, cut to [min, max]: [lo, hi, n] */
    fputs(",\"bins\":[", f);
    int first = 1;
    for (uint32_t b = 0; b < d->nbins; b++) {
      const tf_bin *x = &d->bins[b];
      if (!x->n) continue;
      uint64_t lo = x->lo < d->min ? d->min : x->lo, hi = x->hi > d->max ? d->max : x->hi;
      if (hi < lo) hi = lo;
      fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", lo, hi, x->n);
      first = 0;
    }
    fputc(']', f);
  }
  fputc('}', f);
}

static void put_path(FILE *f, const tf_tpath *p) {
  fputs("\"compute\":", f);
  put_stat(f, &p->compute);
  fputs(",\"duration\":", f);
  put_stat(f, &p->duration);
}

/* "key":{"compute":..,"duration":..[,"by_ranks":[{"ranks":..,"compute":..,"duration":..}...]]} */
static void put_times(jw *w, const char *key, const efg_times *t) {
  if (!t->n) return;
  const tf_efg *g = w->g;
  tf_tpath all;
  tf_mem m = {0};
  if (efg_times_total(g, t, &all, &m)) {
    w->nomem = 1;
    return;
  }
  fprintf(w->f, ",\"%s\":{", key);
  put_path(w->f, &all);
  tf_dstat_free(&all.compute, &m);
  tf_dstat_free(&all.duration, &m);
  if (t->n > 1) {
    fputs(",\"by_ranks\":[", w->f);
    for (uint32_t i = 0; i < t->n; i++) {
      fputs(i ? ",{\"ranks\":" : "{\"ranks\":", w->f);
      put_ranks(w, t->g[i].ranks);
      fputc(',', w->f);
      put_path(w->f, &t->g[i].t.paths[0]);
      fputc('}', w->f);
    }
    fputc(']', w->f);
  }
  fputc('}', w->f);
}

int tf_efg_write_json(const tf_efg *g, FILE *f) {
  const tf_mtrace *mt = g->mt;
  const tf_trace_info *ti = g->info;
  jw w = {.g = g, .f = f};
  w.fn_out = malloc((mt->ft.n + 1) * sizeof *w.fn_out);
  w.site_out = malloc((mt->ncallsites + 1) * sizeof *w.site_out);
  if (!w.fn_out || !w.site_out) {
    free(w.fn_out);
    free(w.site_out);
    return -1;
  }
  for (uint32_t i = 0; i < mt->ft.n; i++) w.fn_out[i] = EFG_NONE;
  for (uint32_t i = 0; i < mt->ncallsites; i++) w.site_out[i] = EFG_NONE;
  uint32_t nfn = 0, nsite = 0;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    const efg_node *x = &g->nodes[i];
    if (x->out == EFG_NONE) continue;
    if (w.fn_out[x->fn] == EFG_NONE) w.fn_out[x->fn] = nfn++;
    if (w.site_out[x->site] == EFG_NONE) w.site_out[x->site] = nsite++;
  }

  fputs("{\"format\":\"tracefold-efg\",\"version\":1,\"trace\":", f);
  put_str(f, g->name);
  fputs(",\"program\":", f);
  put_str(f, ti->exe);
  fprintf(f, ",\"nranks\":%" PRId32, ti->nranks);
  if (g->o.rank >= 0) {
    fprintf(f, ",\"rank\":%" PRId32, g->o.rank);
  } else {
    fputs(",\"ranks\":", f);
    put_ranks(&w, &mt->present);
  }
  fprintf(f, ",\"events\":%" PRIu64, g->nevents);
  if (g->o.time)
    fprintf(f, ",\"timing\":\"%s\",\"time_unit\":\"%s\"", tf_timing_mode_name(mt->timing),
            tf_time_unit_name(mt->unit));

  fputs(",\n\"functions\":[", f);
  for (uint32_t k = 0, first = 1; k < nfn; k++) /* in order written */
    for (uint32_t i = 0; i < mt->ft.n; i++) {
      if (w.fn_out[i] != k) continue;
      const tf_func_desc *fd = &mt->ft.funcs[i];
      fputs(first ? "\n {\"name\":" : ",\n {\"name\":", f);
      first = 0;
      put_str(f, fd->name);
      fputs(",\"fields\":[", f);
      for (uint32_t j = 0; j < fd->nfields; j++) {
        fputs(j ? ",[" : "[", f);
        put_str(f, fd->fields[j].name);
        fputc(',', f);
        put_str(f, tf_field_kind_name(fd->fields[j].kind));
        fprintf(f, ",%d]", fd->fields[j].is_array ? 1 : 0);
      }
      fputs("]}", f);
    }
  fputs("],\n\"callsites\":[", f);
  for (uint32_t k = 0, first = 1; k < nsite; k++)
    for (uint32_t i = 0; i < mt->ncallsites; i++) {
      if (w.site_out[i] != k) continue;
      const tf_callsite *cs = &mt->callsites[i];
      fprintf(f, "%s\n {\"sig\":\"%016" PRIx64 "\",\"module\":", first ? "" : ",", cs->sig);
      first = 0;
      put_str(f, cs->module);
      fprintf(f, ",\"offset\":%" PRIu64, cs->offset);
      if (g->where && g->where[i]) {
        fputs(",\"where\":", f);
        put_str(f, g->where[i]);
      }
      if (g->func && g->func[i]) {
        fputs(",\"function\":", f);
        put_str(f, g->func[i]);
      }
      fputc('}', f);
    }

  fputs("],\n\"nodes\":[", f);
  int first = 1;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    const efg_node *x = &g->nodes[i];
    if (x->out == EFG_NONE) continue;
    fprintf(f, "%s\n {\"fn\":%" PRIu32 ",\"thread\":%" PRIu32 ",\"site\":%" PRIu32 ",", first ? "" : ",",
            w.fn_out[x->fn], x->thread, w.site_out[x->site]);
    first = 0;
    put_counts(&w, &x->occ);
    if (g->o.time) put_times(&w, mt->timing == TF_TIMING_PATH ? "time_first" : "time", &x->entry);
    fputc('}', f);
  }
  fputs("],\n\"initial\":[", f);
  for (uint32_t i = 0; i < g->ninits; i++) {
    const efg_init *x = &g->inits[i];
    fprintf(f, "%s\n {\"thread\":%" PRIu32 ",\"node\":%" PRIu32, i ? "," : "", x->thread, g->nodes[x->node].out);
    if (g->o.rank < 0) {
      fputs(",\"ranks\":", f);
      put_ranks(&w, &x->on.ranks);
    }
    fputc('}', f);
  }
  fputs("],\n\"edges\":[", f);
  for (uint32_t i = 0; i < g->nedges; i++) {
    const efg_edge *e = &g->edges[i];
    fprintf(f, "%s\n {\"from\":%" PRIu32 ",\"to\":%" PRIu32 ",", i ? "," : "", g->nodes[e->from].out,
            g->nodes[e->to].out);
    put_counts(&w, &e->cnt);
    if (g->o.time) put_times(&w, "time", &e->time);
    fputc('}', f);
  }
  fputs("]", f);
  if (g->o.structure) {
    fputs(",\n\"structure\":[", f);
    put_structure(&w, g->top, g->ntop, &mt->present, 0);
    fputs("]", f);
    /* ranks with several threads: how their streams' events interleave (doc/EFG.md) */
    if (mt->order[0].n || mt->order[1].n || mt->order[2].n) {
      static const char *const key[3] = {"sizes", "runs", "lengths"};
      fputs(",\n\"order\":{", f);
      w.counted = 1;
      for (int k = 0; k < 3; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", key[k]);
        put_vset(&w, &mt->order[k], &mt->present);
      }
      fputc('}', f);
    }
  }
  fputs("}\n", f);
  free(w.fn_out);
  free(w.site_out);
  return w.nomem || ferror(f) ? -1 : 0;
}
