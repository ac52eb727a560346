/* sync.c — the replay's threads and the lock and condition they share,
 * on POSIX threads (tracefold-replay). The simulation build replaces this
 * file with sync_sim.c: there the threads are SimGrid actors, which must
 * block through the simulator, never in the kernel. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "replay.h"

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

struct rp_task {
  pthread_t tid;
};

rp_task *rp_task_start(void *(*fn)(void *), void *arg) {
  rp_task *t = malloc(sizeof *t);
  if (t && pthread_create(&t->tid, NULL, fn, arg) != 0) {
    free(t);
    t = NULL;
  }
  return t;
}

void rp_task_join(rp_task *t) {
  pthread_join(t->tid, NULL);
  free(t);
}
