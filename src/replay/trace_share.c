/* trace_share.c — the engine's trace, decoded once per process. Under
 * SimGrid (TF_SIMGRID) all simulated ranks are actors of one process,
 * launched without global-variable privatization (`tracefold simulate`
 * passes -no-privatize): the first rank to open the trace decodes it, the
 * others share it. The engine only reads a trace once it is open (rank
 * cursors keep their own projections), so sharing it is safe; a mutex
 * guards the count in case SimGrid runs actors on several threads. Under
 * MPI each rank is a process of its own: open and close as usual. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trace_share.h"

#ifdef TF_SIMGRID
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static tf_trace *shared_trace;
static char *shared_path;
static unsigned shared_flags;
static long shared_users;

tf_status rp_trace_open(const char *path, unsigned flags, tf_trace **out, char *err, size_t errlen) {
  pthread_mutex_lock(&shared_lock);
  tf_status st = TF_OK;
  if (shared_trace && flags == shared_flags && strcmp(path, shared_path) == 0) {
    shared_users++;
    *out = shared_trace;
  } else if ((st = tf_trace_open(path, flags, out, err, errlen)) == TF_OK && !shared_trace) {
    if ((shared_path = strdup(path)) != NULL) { /* else: not shared, this rank's own */
      shared_trace = *out;
      shared_flags = flags;
      shared_users = 1;
    }
  }
  pthread_mutex_unlock(&shared_lock);
  return st;
}

void rp_trace_close(tf_trace *t) {
  if (!t) return;
  pthread_mutex_lock(&shared_lock);
  int last = 1;
  if (t == shared_trace && (last = --shared_users == 0) != 0) {
    free(shared_path);
    shared_path = NULL;
    shared_trace = NULL;
  }
  pthread_mutex_unlock(&shared_lock);
  if (last) tf_trace_close(t);
}
#else
tf_status rp_trace_open(const char *path, unsigned flags, tf_trace **out, char *err, size_t errlen) {
  return tf_trace_open(path, flags, out, err, errlen);
}

void rp_trace_close(tf_trace *t) { tf_trace_close(t); }
#endif
