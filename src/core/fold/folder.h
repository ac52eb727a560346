/* folder.h — online loop folding of one rank's event stream.
 *
 * The folder keeps the stream as a sequence of nodes. A node is an event
 * (function, thread, call site: its *shape*) whose parameters over all its
 * occurrences are value sequences (vseq.h), or a loop: a body of nodes and
 * the iteration count of each of its occurrences (also a value sequence).
 * Parameters and iteration counts never stop folding; only shapes must
 * match.
 *
 * Every new event is appended at the top level, then the end of the top
 * level is folded:
 *   - extension: the last m nodes are one more iteration of the loop just
 *     before them (whose body has m nodes) -> they merge into its body and
 *     its count grows;
 *   - new loop: the last d nodes repeat the d before them -> both become
 *     one loop of 2 iterations.
 * Candidates are found with polynomial window hashes over node shapes:
 * periods d < TF_FOLD_K are tried directly, longer ones through an index of
 * the K-grams of the top level (most recent occurrence first, a few
 * steps), and loop extensions through a table keyed by the length at which
 * a loop's next iteration would be complete. Every candidate is verified
 * exactly before the merge. The cost per event is O(TF_FOLD_K + chain)
 * hash operations plus the merge, which is amortised against the nodes it
 * frees; bodies of any length fold. See doc/FOLDING.md.
 */
#ifndef TF_FOLDER_H
#define TF_FOLDER_H

#include <stdint.h>

#include "time/timing.h"
#include "fold/flatrun.h"
#include "fold/vseq.h"

#define TF_FOLD_K 8     /* periods below K are tried directly; longer ones through K-grams */
#define TF_FOLD_CHAIN 8 /* earlier occurrences of a K-gram tried per event */
#define TF_FOLD_MAXDEPTH 64 /* loops are never nested deeper */

/* One occurrence's deltas, held by a fresh event node until it is merged
 * into another node or sealed (adding to a tf_timing is deferred so that the
 * common path, a new occurrence of a known event, adds straight into it). */
typedef struct tf_tsample {
  uint64_t compute, duration;
  uint32_t prev_fn, prev_site;
  int pending;
} tf_tsample;

typedef struct tf_fnode {
  uint64_t shape; /* event: hash(fn, thread, site); loop: hash(body shapes) */
  int is_loop;
  /* event */
  uint32_t fn, thread, site;
  tf_vseq nvals;       /* number of values of each occurrence */
  tf_vseq *slots;      /* slot j: value j of every occurrence that has more than j values */
  uint32_t nslots;
  tf_timing timing;    /* delta times of its occurrences (timing.h) */
  tf_tsample sample;   /* a fresh node's occurrence, not yet in timing */
  /* loop */
  tf_vseq iters;       /* iteration count of each occurrence */
  struct tf_fnode **body;
  uint32_t nbody;
  uint32_t depth;      /* loop nesting inside this node (event 0, loop 1 + deepest body node) */
  uint64_t bodyhash;   /* window hash of the body's shapes */
  uint32_t cst;        /* loop built by CST guidance (cst_guide.c): its CST node id + 1; 0: none (dynamic) */
  struct tf_vseq_iter **rd; /* reader only: one iterator per value sequence (iters | nvals, slots...) */
  tf_flatrun *run; /* a flat run (flatrun.h): in the node list handed to the segment encoder, or decoded with
                    * TF_SEGMENT_KEEP_RUNS (then owned: run_owned) */
  int run_owned;
} tf_fnode;

typedef struct tf_kgram_slot {
  uint64_t key;
  int32_t pos; /* -1: no occurrence */
  int32_t used;
} tf_kgram_slot;

/* An event of the iteration in progress of the loop the fast path follows,
 * held until the iteration is complete (its values: tf_folder.held_vals). */
typedef struct tf_held {
  uint32_t fn, thread, site, nvals;
  uint64_t compute, duration;
  uint32_t prev_fn, prev_site;
} tf_held;

#define TF_FOLD_FAST_BODY 256 /* the fast path follows loops of at most this many events */
#define TF_FOLD_POOL_SLOTS 64 /* event nodes with fewer slots are recycled */
#define TF_FOLD_POOL_DEPTH 8  /* recycled nodes kept per slot count */

typedef struct tf_folder {
  tf_fnode **seq; /* the top level */
  uint32_t n, cap;
  uint64_t *pre;      /* pre[i]: hash of the shapes of seq[0..i) */
  uint64_t *pw;       /* pw[i] = B^i */
  int32_t *kprev;     /* earlier top-level position with the same K-gram, -1 none */
  int32_t *ext_head;  /* [length]: last loop whose next iteration completes at that length */
  int32_t *ext_next;  /* [position]: next loop in the same ext_head chain; -2 not registered */
  tf_kgram_slot *kmap;
  uint32_t kcap, kused;
  tf_mem mem;
  uint64_t nevents; /* events pushed since the last reset */
  tf_timing_mode timing; /* what is kept of delta times [TF_TIMING_DEFAULT] */
  uint32_t bins;         /* bins per histogram [TF_BINS_DEFAULT] */
  /* merged-away event nodes, kept for reuse by slot count (linked through
   * body), so that the common path allocates nothing; in mem.bytes too */
  tf_fnode *pool[TF_FOLD_POOL_SLOTS];
  uint8_t npool[TF_FOLD_POOL_SLOTS];
  size_t pool_bytes;
  /* the fast path (doc/FOLDING.md "Fast path"): `fast` is the last
   * top-level node, a loop of events only whose last iteration was one
   * extension after pushes that folded nothing; the events that follow are
   * matched against its body and held (held[0..nheld), their values in
   * held_vals) until the iteration is complete, which then extends the
   * loop as the slow path would have; a mismatch pushes the held events
   * the slow way. NULL: not armed */
  tf_fnode *fast;
  tf_held *held;
  uint32_t nheld, held_cap;
  int64_t *held_vals;
  uint32_t nheld_vals, held_vals_cap;
  uint32_t quiet; /* slow pushes in a row that folded nothing */
  uint64_t nfast; /* events the fast path took since the last reset */
  int flushing;   /* tf_folder_flush is pushing the held events */
  int no_fast;    /* tests: the slow path only */
  /* CST-guided folding (cst_guide.h): set by the thread's first loop
   * marker, kept across resets; then events go to the guide, not the search */
  int guided;
  struct tf_cst_guide *guide; /* its open loops, NULL until needed */
  /* flat runs (flatrun.h, doc/FOLDING.md "Flat runs"): every flat_window
   * events, the growth of the top level is measured; when more than half
   * of a window's events stayed nodes of their own, folding does not pay
   * and the events that follow go to `run`, after the top level. Kept
   * across resets but the run; the compressor tries folding again once
   * the run holds flat_retry events (doubled at each switch, reset by a
   * window that pays) */
  uint32_t flat_window; /* 0: folding never stops */
  int flat;
  /* a window that starts on an empty folder (the stream's first, or a
   * trial after a run) keeps its events in `run` too, as a shadow the
   * segment encoder does not see: if the window does not pay, its nodes
   * are dropped and the shadow becomes the run; if it pays, the shadow is
   * freed (doc/FOLDING.md "Flat runs") */
  int shadow;
  uint32_t win_n;       /* top-level nodes at the window's start */
  uint64_t win_events;  /* nevents at the window's start */
  uint64_t flat_retry, flat_backoff;
  uint64_t flat_switches; /* windows that switched to a flat run */
  tf_flatrun run;
  tf_fnode runnode;     /* the run as a node (runnode.run), for the segment encoder */
} tf_folder;

void tf_folder_init(tf_folder *f);
/* Free every node and index; the folder is empty and reusable (its timing
 * settings are kept). */
void tf_folder_reset(tf_folder *f);

/* Append one event and fold. prev_fn/prev_site: the previous event of the
 * same thread (TF_PREV_NONE for its first), used by path timing. 0, or -1
 * when memory ran out (f->mem.failed is then set and the folded structure
 * must not be trusted). */
int tf_folder_push(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals);

/* Seal every value sequence of the top level (tf_vseq_seal) and add the
 * pending samples to their timing: before the structure is written out.
 * Pushing more events afterwards stays correct. */
void tf_folder_seal(tf_folder *f);
/* Push the events the fast path holds (an iteration in progress) into the
 * top level, so that f->seq is the whole stream so far: before anything
 * reads the top level. 0, or -1 out of memory. */
int tf_folder_flush(tf_folder *f);

/* Nodes of the stream since the last reset as the segment encoder takes
 * them: the top level, then the flat run's node if it holds events
 * (f->runnode). *decoded: what the decoder makes of them (the run's events
 * each one node), which the streams' order counts. */
uint32_t tf_folder_stream_nodes(tf_folder *f, tf_fnode **out, uint32_t *decoded);

/* Folding never stops from now on: the flat run's events, if any, join
 * the top level as event nodes (before a CST-guided folder takes over).
 * 0, or -1 out of memory (f->mem.failed). */
int tf_folder_unflat(tf_folder *f);

/* For CST-guided folding (cst_guide.c), which builds loops itself from
 * the folder's nodes: a fresh event node for one occurrence (as a push
 * makes it); 1 if two node lists have the same shapes (recursively); merge
 * the later occurrence y[0..n) into x[0..n) (same shapes), y's nodes freed;
 * a loop of one iteration whose body is body[0..n) (the array is copied),
 * NULL when it would nest deeper than TF_FOLD_MAXDEPTH (or out of memory:
 * f->mem.failed); append a node at the top level without folding. */
tf_fnode *tf_folder_new_occurrence(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                                   const int64_t *vals);
int tf_fnode_same_list(tf_fnode *const *a, tf_fnode *const *b, uint32_t n);
void tf_folder_absorb_list(tf_folder *f, tf_fnode **x, tf_fnode **y, uint32_t n);
tf_fnode *tf_folder_new_loop(tf_folder *f, tf_fnode *const *body, uint32_t n);
int tf_folder_append(tf_folder *f, tf_fnode *x);
/* The fast path's held events, for the guide's (cst_guide.c "Held
 * iterations"): room for holding n events (0, or -1: go the slow way);
 * hold one event (0, or -1 out of memory); the held events, one per node
 * of f->fast's body, are its next iteration: extend it (as absorbing fresh
 * nodes does), nothing held any more. */
int tf_folder_hold_room(tf_folder *f, uint32_t n);
int tf_folder_hold(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals);
void tf_folder_commit(tf_folder *f);

/* Nodes and value sequences (shared with the trace reader). */
tf_fnode *tf_fnode_new_event(uint32_t fn, uint32_t thread, uint32_t site, tf_mem *m);
tf_fnode *tf_fnode_new_loop(tf_mem *m);
void tf_fnode_free(tf_fnode *x, tf_mem *m);
/* Events the node unrolls to over all its occurrences (an event: its value
 * counts, one per occurrence; a loop: its body's). */
uint64_t tf_fnode_events(const tf_fnode *x);

#endif
