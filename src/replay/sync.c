/* sync.c — a lock and a condition shared by the replay threads of a rank
 * (objects registered, positions reached), on POSIX threads. The
 * simulation build never starts threads (a rank's threads are lanes of
 * its one actor, replay.c) and takes the lock only uncontended. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "sync.h"

struct rp_sync {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
};

rp_sync *rp_sync_new(void) {
  rp_sync *s = malloc(sizeof *s);
  if (!s) return NULL;
  pthread_mutex_init(&s->mutex, NULL);
  pthread_cond_init(&s->cond, NULL);
  return s;
}

void rp_sync_free(rp_sync *s) {
  if (!s) return;
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->mutex);
  free(s);
}

void rp_sync_lock(rp_sync *s) { pthread_mutex_lock(&s->mutex); }
void rp_sync_unlock(rp_sync *s) { pthread_mutex_unlock(&s->mutex); }
void rp_sync_broadcast(rp_sync *s) { pthread_cond_broadcast(&s->cond); }

int rp_sync_wait(rp_sync *s, double timeout) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double end = (double)ts.tv_nsec * 1e-9 + timeout;
  ts.tv_sec += (time_t)end;
  ts.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
  return pthread_cond_timedwait(&s->cond, &s->mutex, &ts) == ETIMEDOUT ? -1 : 0;
}
