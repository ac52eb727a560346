/* volume.c — per-thread compute volumes: PAPI_TOT_INS or thread CPU time.
 *
 * Built with TF_HAVE_PAPI=1 when CMake found libpapi, which is opened
 * (dlopen TF_PAPI_LIB) only when a session starts: loaded with every
 * traced program, libpapi and its libpfm made 2 MB of each process
 * resident (relocated event tables) that only TRACEFOLD_VOLUME=on uses.
 * PAPI state is kept
 * per "session" (one tf_volume_start .. tf_volume_stop), numbered by
 * papi_gen (0 = no session: CPU time). Each thread creates its own event set
 * on its first tf_volume_now of a session and keeps it in thread-local
 * storage; a pthread key destructor releases it when the thread exits, so
 * short-lived threads do not leak perf file descriptors. Setup, thread exit,
 * start and stop take a mutex; the common path (one atomic load + PAPI_read,
 * or clock_gettime) takes none.
 */
#define _POSIX_C_SOURCE 200809L
#include "volume.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#ifdef TF_HAVE_PAPI
#include <dlfcn.h>
#include <papi.h>

/* The PAPI functions used, called through pointers set by papi_load. */
#define TF_PAPI_FUNCS(X)                                                                                              \
  X(PAPI_add_event) X(PAPI_cleanup_eventset) X(PAPI_create_eventset) X(PAPI_destroy_eventset)                         \
  X(PAPI_get_component_index) X(PAPI_get_component_info) X(PAPI_is_initialized) X(PAPI_library_init) X(PAPI_read)    \
  X(PAPI_shutdown) X(PAPI_start) X(PAPI_stop) X(PAPI_strerror) X(PAPI_thread_init) X(PAPI_unregister_thread)
#define TF_PAPI_POINTER(f) static __typeof__(f) *p_##f;
TF_PAPI_FUNCS(TF_PAPI_POINTER)
#define PAPI_add_event (*p_PAPI_add_event)
#define PAPI_cleanup_eventset (*p_PAPI_cleanup_eventset)
#define PAPI_create_eventset (*p_PAPI_create_eventset)
#define PAPI_destroy_eventset (*p_PAPI_destroy_eventset)
#define PAPI_get_component_index (*p_PAPI_get_component_index)
#define PAPI_get_component_info (*p_PAPI_get_component_info)
#define PAPI_is_initialized (*p_PAPI_is_initialized)
#define PAPI_library_init (*p_PAPI_library_init)
#define PAPI_read (*p_PAPI_read)
#define PAPI_shutdown (*p_PAPI_shutdown)
#define PAPI_start (*p_PAPI_start)
#define PAPI_stop (*p_PAPI_stop)
#define PAPI_strerror (*p_PAPI_strerror)
#define PAPI_thread_init (*p_PAPI_thread_init)
#define PAPI_unregister_thread (*p_PAPI_unregister_thread)
#endif


static uint64_t cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef TF_HAVE_PAPI

/* One stderr line per process at most, whatever goes wrong on a later thread. */
static atomic_flag warned = ATOMIC_FLAG_INIT;

static void warn_once(const char *fmt, ...) {
  if (atomic_flag_test_and_set(&warned)) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", line);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint papi_gen;     /* current session, 0 = none */
static unsigned last_gen;        /* last session number handed out (under lock) */
static int papi_owned;           /* we initialised PAPI, so we shut it down */
static pthread_key_t exit_key;   /* its destructor releases a thread's event set */
static int have_key;

static _Thread_local unsigned my_gen; /* session of my setup attempt, 0 = none */
static _Thread_local int my_es = PAPI_NULL;
static _Thread_local uint64_t my_last; /* last count read, repeated if a read fails */

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

/* "<what>: <PAPI error>", plus perf_event's own reason when it is disabled. */
static void reason(char *buf, size_t n, const char *what, int err) {
  const char *s = err > 0 ? "library version mismatch" : PAPI_strerror(err);
  int len = snprintf(buf, n, "%s: %s", what, s ? s : "unknown error");
  int cidx = PAPI_get_component_index("perf_event");
  const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
  if (ci && ci->disabled && ci->disabled_reason[0] && len >= 0 && (size_t)len < n)
    snprintf(buf + len, n - (size_t)len, "; perf_event: %.200s", ci->disabled_reason);
}

/* Releases the calling thread's event set (lock held). */
static void thread_close(void) {
  if (my_es != PAPI_NULL && my_gen == atomic_load(&papi_gen)) {
    long long v;
    PAPI_stop(my_es, &v);
    PAPI_cleanup_eventset(my_es);
    PAPI_destroy_eventset(&my_es);
    PAPI_unregister_thread();
  }
  my_es = PAPI_NULL;
}

static void thread_exit(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  thread_close();
  pthread_mutex_unlock(&lock);
}

/* Sets up the calling thread's PAPI_TOT_INS counter for session gen (lock
 * held). Returns 1, or 0 with the reason in why. */
static int thread_open(unsigned gen, char *why, size_t n) {
  my_gen = gen;
  my_es = PAPI_NULL; /* an event set of an older session died with it */
  int es = PAPI_NULL, r;
  if ((r = PAPI_create_eventset(&es)) != PAPI_OK) {
    reason(why, n, "PAPI_create_eventset", r);
    PAPI_unregister_thread();
    return 0;
  }
  if ((r = PAPI_add_event(es, PAPI_TOT_INS)) != PAPI_OK) {
    reason(why, n, "PAPI_add_event(PAPI_TOT_INS)", r);
  } else if ((r = PAPI_start(es)) != PAPI_OK) {
    reason(why, n, "PAPI_start", r);
  } else {
    my_es = es;
    if (have_key) pthread_setspecific(exit_key, &my_es);
    return 1;
  }
  PAPI_cleanup_eventset(es);
  PAPI_destroy_eventset(&es);
  PAPI_unregister_thread();
  return 0;
}

/* A thread's first reading in session gen. */
static void thread_setup(unsigned gen) {
  char why[400];
  pthread_mutex_lock(&lock);
  my_gen = gen;
  my_es = PAPI_NULL;
  if (gen == atomic_load(&papi_gen) && !thread_open(gen, why, sizeof why))
    warn_once("tracefold: hardware counters unavailable on a thread (%s); "
              "TRACEFOLD_VOLUME counts that thread's CPU time instead", why);
  pthread_mutex_unlock(&lock);
}

/* libpapi opened and its functions found, once (lock held); 1, or 0 with the reason in why. */
static int papi_load(char *why, size_t n) {
  static void *lib;
  if (lib) return 1;
  void *l = dlopen(TF_PAPI_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!l) {
    snprintf(why, n, "cannot load %s: %s", TF_PAPI_LIB, dlerror());
    return 0;
  }
#define TF_PAPI_FIND(f)                                                                                               \
  if (!(*(void **)&p_##f = dlsym(l, #f))) {                                                                           \
    snprintf(why, n, "%s has no %s", TF_PAPI_LIB, #f);                                                                \
    dlclose(l);                                                                                                       \
    return 0;                                                                                                         \
  }
  TF_PAPI_FUNCS(TF_PAPI_FIND)
  lib = l; /* kept open: PAPI's threads and handlers may outlive a session */
  return 1;
}

/* Opens a session with the calling thread counting (lock held). */
static int papi_open(char *why, size_t n) {
  if (!papi_load(why, n)) return 0;
  int was = PAPI_is_initialized();
  int r = PAPI_library_init(PAPI_VER_CURRENT);
  if (r != PAPI_VER_CURRENT) {
    reason(why, n, "PAPI_library_init", r);
    return 0;
  }
  papi_owned = was == PAPI_NOT_INITED;
  if ((r = PAPI_thread_init(thread_id)) != PAPI_OK) {
    reason(why, n, "PAPI_thread_init", r);
  } else {
    if (!have_key) have_key = pthread_key_create(&exit_key, thread_exit) == 0;
    if (thread_open(last_gen + 1, why, n)) {
      atomic_store(&papi_gen, ++last_gen);
      return 1;
    }
  }
  my_gen = 0;
  if (papi_owned) PAPI_shutdown();
  return 0;
}

tf_time_unit tf_volume_start(tf_volume_request req, char *why, size_t whylen) {
  why[0] = 0;
  if (req != TF_VOLUME_ON) return TF_UNIT_CPU_NS;
  pthread_mutex_lock(&lock);
  int ok = atomic_load(&papi_gen) != 0 || papi_open(why, whylen);
  pthread_mutex_unlock(&lock);
  if (ok) return TF_UNIT_INSTRUCTIONS;
  atomic_flag_test_and_set(&warned); /* the caller says it (once per job); no more from this process */
  return TF_UNIT_CPU_NS;
}

uint64_t tf_volume_now(void) {
  unsigned gen = atomic_load_explicit(&papi_gen, memory_order_acquire);
  if (gen != 0) {
    if (my_gen != gen) thread_setup(gen);
    if (my_es != PAPI_NULL) {
      long long v;
      if (PAPI_read(my_es, &v) == PAPI_OK) my_last = (uint64_t)v;
      return my_last; /* a failed read: a zero burst, never a mix of units */
    }
  }
  return cpu_ns();
}

void tf_volume_stop(void) {
  pthread_mutex_lock(&lock);
  if (atomic_load(&papi_gen) != 0) {
    thread_close();
    atomic_store(&papi_gen, 0);
    if (papi_owned) PAPI_shutdown(); /* frees the other threads' event sets */
  }
  pthread_mutex_unlock(&lock);
}

#else /* no PAPI: CPU time only */

tf_time_unit tf_volume_start(tf_volume_request req, char *why, size_t whylen) {
  why[0] = 0;
  if (req == TF_VOLUME_ON) snprintf(why, whylen, "this tracefold was built without PAPI");
  return TF_UNIT_CPU_NS;
}

uint64_t tf_volume_now(void) { return cpu_ns(); }

void tf_volume_stop(void) {}

#endif
