/* wildcards.c — what a nonblocking wildcard receive matched, read ahead; see wildcards.h. */
#include "wildcards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

enum { SOURCE, TAG, REQUEST, NSPECS };
static const xp_field_spec specs[NSPECS] = {{"source", 0}, {"tag", 0}, {"request", 0}};

int xp_wildcards_init(xp_wildcards *w, tf_trace *t, const xp_completions *comp) {
  const tf_trace_info *info = tf_trace_get_info(t);
  *w = (xp_wildcards){.t = t, .comp = comp};
  w->irecv = malloc(info->nfuncs + 1);
  if (!w->irecv || xp_fieldmap_init(&w->map, info, specs, NSPECS)) {
    xp_wildcards_free(w);
    return -1;
  }
  for (uint32_t fn = 0; fn < info->nfuncs; fn++) w->irecv[fn] = strcmp(info->funcs[fn].name, "MPI_Irecv") == 0;
  return 0;
}

void xp_wildcards_free(xp_wildcards *w) {
  xp_events_close(&w->ahead);
  xp_fieldmap_free(&w->map);
  xp_done_list_free(&w->done);
  free(w->irecv);
  free(w->pend);
  free(w->res);
  *w = (xp_wildcards){0};
}

void xp_wildcards_rank(xp_wildcards *w, int32_t rank) {
  xp_events_close(&w->ahead);
  w->rank = rank;
  w->end = 0;
  w->npend = w->nres = 0;
}

int xp_is_wildcard_irecv(const xp_wildcards *w, uint32_t fn, const tf_field_value *fields) {
  if (fn >= w->map.nfuncs || !w->irecv[fn]) return 0;
  const int32_t *at = xp_fieldmap_row(&w->map, fn);
  return xp_scalar(fields, at[SOURCE]) == TF_ANY_SOURCE || xp_scalar(fields, at[TAG]) == TF_ANY_TAG;
}


int xp_wildcard_match(xp_wildcards *w, uint64_t seq, int64_t *src, int64_t *tag, char *err, size_t errlen) {
  xp_events *e = &w->ahead;
  if (!e->c && !w->end) {
    tf_status st = xp_events_open(e, w->t, w->rank, err, errlen);
    if (st != TF_OK) return st == TF_ERR_NOMEM ? -2 : -1;
  }
  for (;;) {
    for (size_t i = 0; i < w->nres; i++)
      if (w->res[i].seq == seq) {
        *src = w->res[i].src;
        *tag = w->res[i].tag;
        w->res[i] = w->res[--w->nres];
        return 0;
      }
    if (w->end) return 1;
    int rc = xp_events_next(e);
    if (rc < 0) {
      snprintf(err, errlen, "%s", xp_events_error(e));
      return -1;
    }
    if (rc == 0) {
      w->end = 1;
      continue;
    }
    if (!e->fits) continue; /* the exporter's own pass reports it */
    if (xp_is_wildcard_irecv(w, e->ev.fn, e->fields) && e->seq >= seq) {
      void *na = xp_grow(w->pend, w->npend, &w->cappend, sizeof *w->pend);
      if (!na) return -2;
      w->pend = na;
      w->pend[w->npend].id = xp_scalar(e->fields, xp_fieldmap_row(&w->map, e->ev.fn)[REQUEST]);
      w->pend[w->npend++].seq = e->seq;
      continue;
    }
    if (xp_completed(w->comp, e->ev.fn, e->fields, &w->done)) return -2;
    for (size_t k = 0; k < w->done.n; k++)
      for (size_t i = 0; i < w->npend; i++)
        if (w->pend[i].id == w->done.v[k].id) {
          void *na = xp_grow(w->res, w->nres, &w->capres, sizeof *w->res);
          if (!na) return -2;
          w->res = na;
          w->res[w->nres].seq = w->pend[i].seq;
          w->res[w->nres].src = w->done.v[k].src;
          w->res[w->nres++].tag = w->done.v[k].tag;
          w->pend[i] = w->pend[--w->npend];
          break;
        }
  }
}
