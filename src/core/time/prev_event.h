/* prev_event.h — the previous event of each thread of a rank: the key of
 * path timing (timing.h). The compressor keeps it while recording; cursors
 * keep it while unrolling, so both see the same paths. */
#ifndef TF_PREV_EVENT_H
#define TF_PREV_EVENT_H

#include <stdint.h>

#include "time/timing.h"

typedef struct tf_prev_events {
  uint32_t *fn, *site; /* [thread]; TF_PREV_NONE before the thread's first event */
  uint32_t n;
} tf_prev_events;

/* The previous event of `thread` (TF_PREV_NONE, TF_PREV_NONE if none).
 * Inline, like tf_prev_set's common case: both run on every recorded call. */
static inline void tf_prev_get(const tf_prev_events *p, uint32_t thread, uint32_t *fn, uint32_t *site) {
  *fn = *site = TF_PREV_NONE;
  if (thread < p->n) {
    *fn = p->fn[thread];
    *site = p->site[thread];
  }
}
/* tf_prev_set for a thread not seen yet: the arrays grow (prev_event.c). */
int tf_prev_set_new_thread(tf_prev_events *p, uint32_t thread, uint32_t fn, uint32_t site);
/* Record (fn, site) as the latest event of `thread`. 0, or -1 out of memory
 * (the thread's next event then has no previous event). */
static inline int tf_prev_set(tf_prev_events *p, uint32_t thread, uint32_t fn, uint32_t site) {
  if (thread >= p->n) return tf_prev_set_new_thread(p, thread, fn, site);
  p->fn[thread] = fn;
  p->site[thread] = site;
  return 0;
}
void tf_prev_free(tf_prev_events *p);

#endif
