/* clock.c — events placed in time; see clock.h. */
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tf_status xp_clock_init(xp_clock *c, tf_trace *t, char *err, size_t errlen) {
  const tf_trace_info *info = tf_trace_get_info(t);
  *c = (xp_clock){.nranks = info->nranks};
  c->offset = calloc((size_t)info->nranks + 1, sizeof *c->offset);
  if (!c->offset) {
    snprintf(err, errlen, "out of memory");
    return TF_ERR_NOMEM;
  }
  uint64_t latest = 0;
  for (int32_t r = 0; r < info->nranks; r++) {
    if (!tf_trace_rank(t, r, NULL, NULL)) continue;
    tf_rank_cursor *cur;
    tf_status st = tf_rank_cursor_open(t, r, &cur, err, errlen);
    if (st != TF_OK) {
      xp_clock_free(c);
      return st;
    }
    tf_event ev;
    int got = tf_rank_cursor_next(cur, &ev);
    if (got < 0) {
      snprintf(err, errlen, "%s", tf_rank_cursor_error(cur));
      tf_rank_cursor_close(cur);
      xp_clock_free(c);
      return TF_ERR_FORMAT;
    }
    c->offset[r] = got == 1 ? ev.compute_ns + ev.duration_ns : 0; /* for now: when MPI_Init ended */
    if (c->offset[r] > latest) latest = c->offset[r];
    tf_rank_cursor_close(cur);
  }
  for (int32_t r = 0; r < info->nranks; r++) c->offset[r] = latest - c->offset[r];
  return TF_OK;
}

void xp_clock_free(xp_clock *c) {
  free(c->offset);
  free(c->end);
  *c = (xp_clock){0};
}

void xp_clock_rank(xp_clock *c, int32_t rank) {
  c->rank = rank;
  for (uint32_t i = 0; i < c->nthreads; i++) c->end[i] = c->offset[rank];
}

int xp_clock_event(xp_clock *c, const xp_events *e, uint64_t *cstart, uint64_t *start, uint64_t *end) {
  const tf_event *ev = &e->ev;
  uint64_t compute = ev->compute_ns, duration = ev->duration_ns;
  const struct tf_time_path *p = e->c ? tf_rank_cursor_times(e->c) : NULL;
  if (p && p->compute.n) compute = (uint64_t)(p->compute.mean + 0.5);
  if (p && p->duration.n) duration = (uint64_t)(p->duration.mean + 0.5);
  if (ev->thread >= c->nthreads) {
    uint32_t n = ev->thread + 1;
    uint64_t *ne = realloc(c->end, n * sizeof *ne);
    if (!ne) return -1;
    for (uint32_t i = c->nthreads; i < n; i++) ne[i] = c->offset[c->rank];
    c->end = ne;
    c->nthreads = n;
  }
  *cstart = c->end[ev->thread];
  *start = *cstart + compute;
  *end = *start + duration;
  c->end[ev->thread] = *end;
  return 0;
}
