/* cst_markers.c — the CST marker API of include/tracefold_cst.h, exported
 * by libtracefold.so for programs built by tracefold-cc (doc/CST.md).
 *
 * For now the markers are counted and do not yet guide folding (CST-guided
 * recording, doc/CST.md "Not done"): the trace is the same as without them.
 * With TRACEFOLD_CST_REPORT=1 each process prints its counts on stderr when
 * it exits ("tracefold: cst markers: pid P: enter E iter I exit X branch B"),
 * for the tests' oracle. Counters are process-wide relaxed atomics. */
#define TRACEFOLD_CST_DEFINE
#include "tracefold_cst.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TF_CST_EXPORT __attribute__((visibility("default")))

static atomic_ullong n_enter, n_iter, n_exit, n_branch;

TF_CST_EXPORT void tf_cst_loop_enter(unsigned id) {
  (void)id;
  atomic_fetch_add_explicit(&n_enter, 1, memory_order_relaxed);
}

TF_CST_EXPORT void tf_cst_loop_iter(unsigned id) {
  (void)id;
  atomic_fetch_add_explicit(&n_iter, 1, memory_order_relaxed);
}

TF_CST_EXPORT void tf_cst_loop_exit(unsigned id) {
  (void)id;
  atomic_fetch_add_explicit(&n_exit, 1, memory_order_relaxed);
}

TF_CST_EXPORT void tf_cst_branch(unsigned id, int arm) {
  (void)id;
  (void)arm;
  atomic_fetch_add_explicit(&n_branch, 1, memory_order_relaxed);
}

__attribute__((destructor)) static void report_marker_counts(void) {
  const char *report = getenv("TRACEFOLD_CST_REPORT");
  if (!report || !*report || (report[0] == '0' && !report[1])) return;
  fprintf(stderr, "tracefold: cst markers: pid %ld: enter %llu iter %llu exit %llu branch %llu\n", (long)getpid(),
          (unsigned long long)atomic_load(&n_enter), (unsigned long long)atomic_load(&n_iter),
          (unsigned long long)atomic_load(&n_exit), (unsigned long long)atomic_load(&n_branch));
}
