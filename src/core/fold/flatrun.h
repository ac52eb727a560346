/* flatrun.h — a flat run: the events of one stream kept as bytes, one
 * flat event record each, once folding them stopped paying.
 *
 * A folder measures online, window after window of events, how much its
 * top level grows (folder.c, "Flat runs"); when most events of a window
 * stay as nodes of their own, folding does not pay: the events that follow
 * are appended to the stream's flat run instead (no node, no search), at
 * a few bytes each. In the per-rank segment the run is one node of kind
 * 2 (doc/FORMAT.md 2.2), which the segment decoder expands back into one
 * event node per event, exactly what folding would have kept of them: so
 * the merge and every reader see ordinary nodes. See doc/FOLDING.md,
 * "Flat runs".
 */
#ifndef TF_FLATRUN_H
#define TF_FLATRUN_H

#include <stdint.h>

#include "util/bytes.h"
#include "util/mem.h"

typedef struct tf_flatrun {
  tf_buf bytes;     /* the events: fn, site, compute, duration, nvals, values (zigzag), as uvars */
  uint64_t nevents; /* events in bytes */
  uint32_t thread;  /* the stream's thread */
  uint32_t prev_fn, prev_site; /* the thread's event before the run's first (path timing), or TF_PREV_NONE */
  int borrowed; /* bytes.data is in a buffer of the caller's (tf_flatrun_read), never freed nor counted here */
  /* the functions its events name, when all are below 256 (fns_known: set by tf_flatrun_read and
   * tf_flatrun_renumber, which walk every event anyway), so that the merge need not walk them again */
  int fns_known;
  uint64_t fns[4];
} tf_flatrun;

/* Append one event (the run's first sets thread and prev). 0, or -1 out of
 * memory (m->failed set). The bytes' growth is counted in m. */
int tf_flatrun_push(tf_flatrun *r, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                    uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals,
                    tf_mem *m);
/* Empty the run (its memory given back to m). */
void tf_flatrun_clear(tf_flatrun *r, tf_mem *m);

/* The run as a segment node body (after the kind byte): thread, prev_fn,
 * prev_site (TF_PREV_NONE as 0, others + 1), nevents, byte length, bytes. */
void tf_flatrun_encode(tf_buf *b, const tf_flatrun *r);
/* The same without the bytes (to be put after it, r->bytes.len of them). */
void tf_flatrun_encode_head(tf_buf *b, const tf_flatrun *r);

/* One event of a run's bytes, as tf_flatrun_next reads it: its values
 * are the next nvals svars of the cursor. */
typedef struct tf_flat_event {
  uint64_t fn, site, compute, duration, nvals;
} tf_flat_event;

/* Read the next event's fields from e (not its values) and check them
 * against nfuncs / ncallsites. 0, or -1 with a reason in *why. */
int tf_flatrun_next(tf_cursor *e, uint32_t nfuncs, uint32_t ncallsites, tf_flat_event *ev, const char **why);

/* A run's node body from c (as tf_flatrun_encode writes it), checked
 * event by event without building anything (r->fns set): r->bytes then holds a copy of
 * its events (counted in m), or with borrow its events where they are in
 * c's buffer, which must outlive r (r->borrowed). 0, or -1 with a reason
 * in *why. */
int tf_flatrun_read(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, int borrow, tf_flatrun *r, tf_mem *m,
                    const char **why);

/* Rewrite r's function and call-site indices (its events' and its previous
 * event's) through fn_to(ctx_fn, i) and site_to(ctx_site, i), one pass
 * over its bytes (none copied when every index maps to itself). 0, or -1
 * out of memory (r unchanged). */
int tf_flatrun_renumber(tf_flatrun *r, uint32_t (*fn_to)(const void *, uint32_t), const void *ctx_fn,
                        uint32_t (*site_to)(const void *, uint32_t), const void *ctx_site, tf_mem *m);

struct tf_fnode;
/* Decode a run's node body from c and append its events to *nodes (one
 * event node each, as a fresh push makes it, with its time in its
 * timing kept as `mode` with at most `bins` bins), *n nodes and *cap
 * entries; nfuncs/ncallsites bound what it names. *events += its events.
 * 0, or -1 with a reason in *why (the nodes made so far are in *nodes). */
int tf_flatrun_decode(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, uint32_t mode, uint32_t bins,
                      struct tf_fnode ***nodes, uint32_t *n, uint32_t *cap, tf_mem *m, const char **why);

#endif
