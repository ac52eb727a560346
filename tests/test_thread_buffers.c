/* test_thread_buffers.c — the recorder's per-thread call buffers
 * (src/recorder/runtime.c) are freed when their thread exits: a program
 * that starts a thread per task must not grow by one value buffer and its
 * scratch per thread it ever ran (issue 23, point 3e). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"
#include "runtime.h"

#define NTHREADS 16

/* one recorded call with a few thousand values and some status scratch, as
 * a Waitall on many requests would leave behind */
static void *one_call(void *arg) {
  (void)arg;
  tf_call c;
  tf_call_init(&c, 0, NULL);
  for (int i = 0; i < 5000; i++) tf_put(&c, i);
  tf_statuses_scratch(&c, 100);
  tf_call_done(&c);
  return NULL;
}

static void test_freed_at_exit(void) {
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) CHECK(pthread_create(&t[i], NULL, one_call, NULL) == 0);
  for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
  CHECKF(tf_thread_buffers() == 0, "%u threads' buffers still allocated after they exited", tf_thread_buffers());
}

static void test_kept_while_alive(void) {
  one_call(NULL); /* this thread lives on: its buffers stay for its next call */
  CHECK(tf_thread_buffers() == 1);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"freed_at_exit", test_freed_at_exit},
      {"kept_while_alive", test_kept_while_alive},
  };
  return run_cases("test_thread_buffers", cases, TEST_NCASES(cases), argc, argv);
}
