/* events.h — one rank's events as an exporter reads them: a cursor over
 * the rank's events, each split into its function's fields
 * (tf_event_fields), and the fields an exporter reads found by name once
 * per trace (a field map). Nothing here is specific to one output format. */
#ifndef TF_EXPORT_EVENTS_H
#define TF_EXPORT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "tracefold.h"

/* A field an exporter reads: by name ("dest", "status.src"), or with name
 * NULL the first field of `kind` (e.g. TF_FIELD_COMM_NEW, whatever its name). */
typedef struct xp_field_spec {
  const char *name;
  int kind;
} xp_field_spec;

/* Where each of n specs is in each function of a trace. */
typedef struct xp_fieldmap {
  uint32_t nfuncs, nspecs;
  int32_t *at; /* at[fn * nspecs + s]: spec s's field index in function fn, -1 if it has none */
} xp_fieldmap;

/* 0, or -1 when memory is short. */
int xp_fieldmap_init(xp_fieldmap *m, const tf_trace_info *info, const xp_field_spec *specs, uint32_t nspecs);
void xp_fieldmap_free(xp_fieldmap *m);
/* Function fn's row: its field index of each spec. */
static inline const int32_t *xp_fieldmap_row(const xp_fieldmap *m, uint32_t fn) {
  return m->at + (size_t)fn * m->nspecs;
}

/* A field's first value (TF_NONE if i < 0 or the field is empty) ... */
static inline int64_t xp_scalar(const tf_field_value *f, int32_t i) {
  return i >= 0 && f[i].n ? f[i].v[0] : TF_NONE;
}
/* ... or all of them (*n of them; NULL and 0 if i < 0). */
static inline const int64_t *xp_array(const tf_field_value *f, int32_t i, uint32_t *n) {
  *n = i >= 0 ? f[i].n : 0;
  return i >= 0 ? f[i].v : NULL;
}

/* The events of one rank, in order. */
typedef struct xp_events {
  tf_rank_cursor *c;
  const tf_trace_info *info;
  tf_event ev;              /* the current event */
  uint64_t seq;             /* its position in the rank's sequence, from 0 */
  uint64_t next;            /* the position of the next one */
  const tf_func_desc *fd;   /* its function; NULL if ev.fn is not in the trace's function table */
  int fits;                 /* 1: its values fit the function's fields, split into fields */
  tf_field_value *fields;   /* room for any function's fields */
} xp_events;

/* Open rank's events: TF_OK, or an error with the message in err. */
tf_status xp_events_open(xp_events *e, tf_trace *t, int32_t rank, char *err, size_t errlen);
/* The next event into e (ev, seq, fd, fits, fields): 1, 0 at the end, -1
 * when the trace turns out malformed (xp_events_error says where). */
int xp_events_next(xp_events *e);
const char *xp_events_error(const xp_events *e);
void xp_events_close(xp_events *e); /* also of an xp_events that is all zeros */

#endif
