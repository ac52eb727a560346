/* events.c — one rank's events split into fields, and the field map; see events.h. */
#include "events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xp_fieldmap_init(xp_fieldmap *m, const tf_trace_info *info, const xp_field_spec *specs, uint32_t nspecs) {
  *m = (xp_fieldmap){.nfuncs = info->nfuncs, .nspecs = nspecs};
  m->at = malloc(((size_t)info->nfuncs * nspecs + 1) * sizeof *m->at);
  if (!m->at) return -1;
  for (uint32_t fn = 0; fn < info->nfuncs; fn++) {
    const tf_func_desc *d = &info->funcs[fn];
    for (uint32_t s = 0; s < nspecs; s++) {
      int32_t *at = &m->at[(size_t)fn * nspecs + s];
      *at = -1;
      for (uint32_t k = 0; k < d->nfields; k++)
        if (specs[s].name ? strcmp(d->fields[k].name, specs[s].name) == 0 : d->fields[k].kind == specs[s].kind) {
          *at = (int32_t)k;
          break;
        }
    }
  }
  return 0;
}

void xp_fieldmap_free(xp_fieldmap *m) {
  free(m->at);
  *m = (xp_fieldmap){0};
}

tf_status xp_events_open(xp_events *e, tf_trace *t, int32_t rank, char *err, size_t errlen) {
  *e = (xp_events){.info = tf_trace_get_info(t)};
  uint32_t maxfields = 1;
  for (uint32_t fn = 0; fn < e->info->nfuncs; fn++)
    if (e->info->funcs[fn].nfields > maxfields) maxfields = e->info->funcs[fn].nfields;
  e->fields = malloc(maxfields * sizeof *e->fields);
  if (!e->fields) {
    snprintf(err, errlen, "out of memory");
    return TF_ERR_NOMEM;
  }
  tf_status st = tf_rank_cursor_open(t, rank, &e->c, err, errlen);
  if (st != TF_OK) xp_events_close(e);
  return st;
}

int xp_events_next(xp_events *e) {
  int rc = tf_rank_cursor_next(e->c, &e->ev);
  if (rc != 1) return rc;
  e->seq = e->next++;
  e->fd = e->ev.fn < e->info->nfuncs ? &e->info->funcs[e->ev.fn] : NULL;
  e->fits = e->fd && tf_event_fields(e->fd, e->ev.vals, e->ev.nvals, e->fields) == TF_OK;
  return 1;
}

const char *xp_events_error(const xp_events *e) { return tf_rank_cursor_error(e->c); }

void xp_events_close(xp_events *e) {
  if (e->c) tf_rank_cursor_close(e->c);
  free(e->fields);
  *e = (xp_events){0};
}
