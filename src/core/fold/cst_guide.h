/* cst_guide.h — CST-guided folding of one thread's stream (doc/CST.md
 * "CST-guided folding").
 *
 * A program built by tracefold-cc reports where its loops start, iterate
 * and end (include/tracefold_cst.h). Once a thread's folder has been given
 * such a marker, its events no longer go through the pattern search of
 * folder.c: the guide keeps a stack of the source loops the thread is in,
 * and the events and inner loops of each loop's current iteration as a
 * list of nodes. When an iteration ends, it is compared with the last run
 * of the same loop (same shapes: one more iteration, its values appended as
 * a folded extension appends them) or starts a new run, a loop node of one
 * iteration (or of a few, when a branch makes iterations alternate: see
 * cst_guide.c). When the loop ends, its runs join the enclosing iteration (or
 * the top level, where nothing folds). So every loop node is a loop of the
 * source, never rotated, and an outer iteration compares its inner loops
 * only once they are complete. A branch's arm is a frame too: it opens at
 * the arm's marker and closes at the branch's end (or at any marker of a
 * loop around it), and becomes one node of the arm's CST id around the calls
 * it made, so the trace says which arm each call came from. Nodes are the
 * folder's (same format, same readers); each keeps its CST id (tf_fnode.cst).
 */
#ifndef TF_CST_GUIDE_H
#define TF_CST_GUIDE_H

#include <stdint.h>

struct tf_folder;
struct tf_fnode;

/* What a marker says (include/tracefold_cst.h): a loop's enter, iteration
 * and exit (tf_cst_loop_*), the arm a branch takes (tf_cst_arm) and the
 * branch's end (tf_cst_branch_end). */
typedef enum { TF_CST_ENTER = 1, TF_CST_ITER = 2, TF_CST_EXIT = 3, TF_CST_ARM = 4, TF_CST_END = 5 } tf_cst_kind;

/* A marker as the recorder buffers it: the kind in the top four bits, the
 * arm's id (TF_CST_ARM; else 0) in the next 30, the loop's or branch's id
 * (< 2^30) below. */
typedef uint64_t tf_cst_marker;
#define TF_CST_ID_MAX 0x3fffffffu
static inline tf_cst_marker tf_cst_pack(tf_cst_kind kind, uint32_t id) { return (uint64_t)kind << 60 | id; }
static inline tf_cst_marker tf_cst_pack_arm(uint32_t branch, uint32_t arm) {
  return (uint64_t)TF_CST_ARM << 60 | (uint64_t)arm << 30 | branch;
}
static inline tf_cst_kind tf_cst_kind_of(tf_cst_marker m) { return (tf_cst_kind)(m >> 60); }
static inline uint32_t tf_cst_id_of(tf_cst_marker m) { return (uint32_t)m & TF_CST_ID_MAX; }
static inline uint32_t tf_cst_arm_of(tf_cst_marker m) { return (uint32_t)(m >> 30) & TF_CST_ID_MAX; }

/* Apply one marker to f's stream (from now on f is guided). Markers that
 * do not fit the loops open (an exit of a loop left by return, an iteration
 * of a loop not entered) are taken as the nearest sensible change of the
 * stack: the result is always lossless, only its structure suffers.
 * 0, or -1 out of memory (f->mem.failed). */
int tf_cst_guide_marker(struct tf_folder *f, tf_cst_marker marker);

/* One event of a guided folder (tf_folder_push's arguments). 0 or -1. */
int tf_cst_guide_event(struct tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                       uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                       const int64_t *vals);

/* Close every open loop into the top level (before it is read: a segment,
 * a checkpoint). Loops still running go on as new occurrences. 0 or -1. */
int tf_cst_guide_close_all(struct tf_folder *f);

/* The events of a held iteration (cst_guide.c) become the nodes they
 * stand for, in the innermost open iteration: before a snapshot reads the
 * open loops. 0, or -1 out of memory. */
int tf_cst_guide_unhold(struct tf_folder *f);

/* The nodes of the open loops, in stream order (each loop's runs, the
 * iterations not yet in a run, the iteration in progress, then the loop
 * inside it), as they would follow the top level: a snapshot of the stream
 * that changes nothing (a checkpoint). Copied into dst unless NULL; the
 * count. */
uint32_t tf_cst_guide_pending(const struct tf_folder *f, struct tf_fnode **dst);

/* Free the guide's lists and the nodes still in them. */
void tf_cst_guide_free(struct tf_folder *f);

#endif
