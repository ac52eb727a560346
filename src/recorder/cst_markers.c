/* cst_markers.c — the CST marker API of include/tracefold_cst.h, exported
 * by libtracefold.so for programs built by tracefold-cc (doc/CST.md).
 *
 * Loop markers guide folding (src/core/fold/cst_guide.c): each thread
 * buffers its own, without a lock, and the recorder hands them to the
 * compressor before the thread's next MPI event (cst_markers.h), so they
 * reach its folder in order with its events. The buffer only keeps what
 * can change the folded structure: an iteration with no call in it since
 * the previous marker of the same loop is dropped, and a loop occurrence
 * with no call at all (enter, iterations, exit) vanishes, so a loop that
 * makes no MPI call costs no buffer space however long it runs. A buffer
 * full all the same (more than TF_CST_BUFFER loop changes between two
 * calls) drops markers: the trace stays lossless, only its structure may
 * differ. A program built by tracefold-cc says so before main
 * (tf_cst_program, from a constructor in each rewritten source): then every
 * thread folds guided from its first event, so that calls outside any
 * marked loop are never folded into loops the source does not have.
 * Branches are buffered the same way: the arm taken (an occurrence of the
 * arm without a call vanishes with the branch's end). TRACEFOLD_CST_GUIDE=0
 * turns the guidance off (markers only counted; the folding is the dynamic
 * one, doc/FOLDING.md).
 *
 * With TRACEFOLD_CST_REPORT=1 each process prints its counts on stderr when
 * it exits ("tracefold: cst markers: pid P: enter E iter I exit X branch B
 * end N": B arms taken, N branch ends),
 * for the tests' oracle. Counters are process-wide relaxed atomics. */
#define TRACEFOLD_CST_DEFINE
#include "tracefold_cst.h"

#include "cst_markers.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fold/cst_guide.h"

#define TF_CST_EXPORT __attribute__((visibility("default")))
#define TF_CST_BUFFER 32 /* markers per thread: static TLS (the library is built initial-exec), kept small */

static atomic_ullong n_enter, n_iter, n_exit, n_branch, n_end;
static int guide_off;             /* TRACEFOLD_CST_GUIDE=0 */
static atomic_int program_marked; /* tf_cst_program ran */

_Thread_local uint32_t tf_cst_nbuffered;
static _Thread_local tf_cst_marker buffered[TF_CST_BUFFER];

__attribute__((constructor)) static void read_guide_setting(void) {
  const char *v = getenv("TRACEFOLD_CST_GUIDE");
  guide_off = v && strcmp(v, "0") == 0;
}

/* m opens what a marker of kind EXIT or END with this id closes */
static int opens(tf_cst_marker m, tf_cst_kind kind, unsigned id) {
  return tf_cst_id_of(m) == id && tf_cst_kind_of(m) == (kind == TF_CST_EXIT ? TF_CST_ENTER : TF_CST_ARM);
}

static void buffer(tf_cst_marker m) {
  tf_cst_kind kind = tf_cst_kind_of(m);
  unsigned id = tf_cst_id_of(m);
  uint32_t n = tf_cst_nbuffered;
  if (kind != TF_CST_ENTER && kind != TF_CST_ARM) { /* an iteration ends: drop the one before it if it made no call */
    while (n && buffered[n - 1] == tf_cst_pack(TF_CST_ITER, id)) n--;
    if (kind != TF_CST_ITER && n && opens(buffered[n - 1], kind, id)) { /* no call at all */
      while (n && opens(buffered[n - 1], kind, id)) n--; /* a fall-through's labels too */
      tf_cst_nbuffered = n;
      return;
    }
  }
  if (n < TF_CST_BUFFER) buffered[n++] = m;
  tf_cst_nbuffered = n;
}

void tf_cst_markers_hand_over(tf_compressor *c, uint32_t thread) {
  tf_compressor_cst_markers(c, thread, buffered, tf_cst_nbuffered); /* a failure: the event's own call says it */
  tf_cst_nbuffered = 0;
}

TF_CST_EXPORT void tf_cst_program(void) { atomic_store_explicit(&program_marked, 1, memory_order_relaxed); }

int tf_cst_guided_program(void) { return !guide_off && atomic_load_explicit(&program_marked, memory_order_relaxed); }

TF_CST_EXPORT void tf_cst_loop_enter(unsigned id) {
  atomic_fetch_add_explicit(&n_enter, 1, memory_order_relaxed);
  if (!guide_off && id <= TF_CST_ID_MAX) buffer(tf_cst_pack(TF_CST_ENTER, id));
}

TF_CST_EXPORT void tf_cst_loop_iter(unsigned id) {
  atomic_fetch_add_explicit(&n_iter, 1, memory_order_relaxed);
  if (!guide_off && id <= TF_CST_ID_MAX) buffer(tf_cst_pack(TF_CST_ITER, id));
}

TF_CST_EXPORT void tf_cst_loop_exit(unsigned id) {
  atomic_fetch_add_explicit(&n_exit, 1, memory_order_relaxed);
  if (!guide_off && id <= TF_CST_ID_MAX) buffer(tf_cst_pack(TF_CST_EXIT, id));
}

TF_CST_EXPORT void tf_cst_arm(unsigned branch, unsigned arm) {
  atomic_fetch_add_explicit(&n_branch, 1, memory_order_relaxed);
  if (!guide_off && branch <= TF_CST_ID_MAX && arm <= TF_CST_ID_MAX) buffer(tf_cst_pack_arm(branch, arm));
}

TF_CST_EXPORT void tf_cst_branch_end(unsigned branch) {
  atomic_fetch_add_explicit(&n_end, 1, memory_order_relaxed);
  if (!guide_off && branch <= TF_CST_ID_MAX) buffer(tf_cst_pack(TF_CST_END, branch));
}

__attribute__((destructor)) static void report_marker_counts(void) {
  const char *report = getenv("TRACEFOLD_CST_REPORT");
  if (!report || !*report || (report[0] == '0' && !report[1])) return;
  fprintf(stderr, "tracefold: cst markers: pid %ld: enter %llu iter %llu exit %llu branch %llu end %llu\n",
          (long)getpid(), (unsigned long long)atomic_load(&n_enter), (unsigned long long)atomic_load(&n_iter),
          (unsigned long long)atomic_load(&n_exit), (unsigned long long)atomic_load(&n_branch),
          (unsigned long long)atomic_load(&n_end));
}
