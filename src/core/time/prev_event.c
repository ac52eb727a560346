/* prev_event.c — the previous event of each thread; see prev_event.h. */
#include "time/prev_event.h"

#include <stdlib.h>

int tf_prev_set_new_thread(tf_prev_events *p, uint32_t thread, uint32_t fn, uint32_t site) {
  uint32_t n = thread + 1 > 2 * p->n ? thread + 1 : 2 * p->n;
  uint32_t *f = realloc(p->fn, n * sizeof *f);
  if (!f) return -1;
  p->fn = f;
  uint32_t *s = realloc(p->site, n * sizeof *s);
  if (!s) return -1;
  p->site = s;
  for (uint32_t t = p->n; t < n; t++) p->fn[t] = p->site[t] = TF_PREV_NONE;
  p->n = n;
  p->fn[thread] = fn;
  p->site[thread] = site;
  return 0;
}

void tf_prev_free(tf_prev_events *p) {
  free(p->fn);
  free(p->site);
  *p = (tf_prev_events){0};
}
