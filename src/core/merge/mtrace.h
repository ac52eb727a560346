/* mtrace.h — a merged trace: the folded events of many ranks in one loop
 * structure (doc/FORMAT.md part 3, doc/MERGING.md).
 *
 * Each node (event or loop, as in folder.h) carries the sorted list of
 * ranks it occurs on, kept as a value sequence so that strided blocks of
 * ranks stay a few items (ranklist.h). Every per-rank value sequence of the
 * node (iteration counts, value counts, parameter slots) becomes a value
 * set: (values, ranks) pairs, one per distinct sequence, so ranks that
 * agree share one copy. Peers, sources and request ids are already relative
 * to the caller, so all the interior ranks of a regular code agree.
 *
 * A rank's own sequence is recovered by projection: keep the nodes whose
 * rank list holds the rank and, in each value set, the sequence whose rank
 * list holds it. The projection is re-validated like a per-rank segment
 * and unrolled with unroll.h.
 */
#ifndef TF_MTRACE_H
#define TF_MTRACE_H

#include <stddef.h>

#include "util/bytes.h"
#include "fold/folder.h"
#include "fold/streams.h"
#include "format/functable.h"
#include "format/rank_reader.h"
#include "merge/tgroups.h"
#include "tracefold.h"

typedef struct tf_vset {
  uint32_t n, cap;
  tf_vseq *seq;   /* seq[i]: the values ... */
  tf_vseq *ranks; /* ... on the ranks ranks[i] (sorted) */
  uint64_t *hash; /* tf_vseq_hash(seq[i]); seq, ranks and hash are one allocation (mtrace.c tf_vset_add) */
  struct tf_vrule *rule; /* NULL (no pair has one), or rule[i]: pair i's rule (a = 0: none) */
} tf_vset;

/* A pair's rule (doc/FORMAT.md 3.5; an event's slot only): rank r's values
 * are the stored ones plus a * ((r / d) mod m) (m = 0: a * (r / d)). a = -1,
 * d = 1, m = 0: values stored absolute, rank r's are these minus r (a
 * rank the recorder stores relative); a = 1, d = the row length: the row
 * number (an MPI_Comm_split color); a = 1, d = 1, m = the row length: the
 * column. A second term a2 * ((r / d2) mod m2) (a2 = 0: none) is added when
 * the value depends on two coordinates: the partner of a transpose on an
 * n x n grid, (n-1) * (r mod n) - (n-1) * (r / n). */
typedef struct tf_vrule {
  int64_t a, d, m;
  int64_t a2, d2, m2;
} tf_vrule;

typedef struct tf_mnode {
  uint64_t key; /* event: hash(fn, thread, call-site signature); loop: hash of the body's keys */
  int is_loop;
  uint32_t fn, thread, site; /* event; site indexes the trace's call sites */
  uint64_t site_sig;         /* event: the call site's signature */
  tf_vseq ranks;             /* ranks this node occurs on */
  tf_vset count;             /* loop: iteration counts; event: number of values of each occurrence */
  tf_vset *slots;            /* event: parameter position j of each occurrence */
  uint32_t nslots;
  tf_gtiming timing;          /* event: delta times of its occurrences, per path and rank group */
  struct tf_mnode **body;     /* loop */
  uint32_t nbody;
  uint32_t cst;               /* loop recorded with CST guidance: its CST node id + 1 (the key); 0: none */
  tf_flatrun *run; /* a flat run of one rank (doc/FORMAT.md 3.5, flags bit 5), at the top level: its events
                    * as the recorder encoded them, indexing the trace's tables; NULL for other nodes */
} tf_mnode;

typedef struct tf_mtrace {
  int32_t nranks, thread_level;
  uint32_t timing, bins, unit; /* tf_timing_mode, bins per histogram, tf_time_unit */
  uint32_t partial; /* TF_PARTIAL_* of the first partial rank merged, 0 if none */
  uint64_t start_unix_ns;
  uint64_t merge_ns; /* time the merge at MPI_Finalize took (rank 0), 0 if not merged there */
  uint64_t run_id, run_start_unix_ns; /* the run (0, 0: unknown, version 2) */
  char *exe, *mpi;
  char *extrap; /* an extrapolated trace: where it comes from (optional section EXTRAP); else NULL */
  tf_functable ft;
  tf_callsite *callsites; /* modules owned */
  uint32_t ncallsites, capcs;
  tf_vseq present;         /* ranks with data, sorted */
  tf_vseq nevents, lost;   /* per present rank, in the same order */
  tf_vseq why;             /* per present rank: TF_PARTIAL_* of its part, 0 if complete */
  tf_mnode **top;          /* each rank's top-level nodes, one of its streams (threads) after the other */
  uint32_t ntop;
  tf_vset order[3];        /* each rank's order of its streams (streams.h): sizes, runs, lengths */
  uint64_t flat_runs, flat_events; /* flat runs the file held, and their events (tf_mtrace_expand_runs) */
  tf_mem mem;
} tf_mtrace;

/* A one-rank merged trace from a per-rank compressed file (its segments
 * become one top-level sequence, their streams one after the other). The
 * file's folded nodes are taken over and freed one by one as they become
 * merged nodes (tf_file_folded_take), so that both are never all held at
 * once: r can only be closed afterwards. 0, or -1 out of memory. */
int tf_mtrace_from_file(tf_mtrace *t, tf_file_reader *r);

/* Merge src into dst; every rank of src must be above every rank of dst
 * (merge in rank order). src's functions and call sites join dst's tables
 * (a function dst has under the same name with other fields is refused)
 * and its nodes are renumbered to them. src is always freed. 0; -1 with a message (dst
 * is then unchanged if the inputs were refused, or unusable if memory ran
 * out). */
int tf_mtrace_merge(tf_mtrace *dst, tf_mtrace *src, char *err, size_t errlen);

/* Merge t's ranks again, one after the other in rank order, each from its
 * projection: the structure then no longer depends on how the recorder's
 * reduction tree paired the ranks (which changes with the rank count), so
 * runs of one program at different counts merge to one shape wherever
 * their ranks' own structures agree (tracefold extrapolate). O(ranks x
 * trace). 0, or -1 with a message (t is then unchanged). */
int tf_mtrace_remerge(tf_mtrace *t, char *err, size_t errlen);

/* Forget the CST ids of every loop (rekeyed by their bodies): the trace
 * then merges by event keys only, as without CST guidance. */
void tf_mtrace_drop_cst(tf_mtrace *t);

/* Close the open run of every rank list so that it folds into its block (a
 * strided block is then one item). Merging on afterwards stays correct. */
void tf_mtrace_seal(tf_mtrace *t);

/* Seal, drop the functions no node names (tf_mtrace_compact_funcs), then
 * encode as a merged trace file (zstd level 0: sections stored raw). 0 or
 * -1 (out of memory). */
int tf_mtrace_encode(tf_mtrace *t, tf_buf *b, int zstd_level);
/* The same, and t is freed (on failure too) while the file's body is
 * built: each top-level node once written into it (a flat run's bytes are
 * never held twice), the rest before the body is compressed: the nodes and
 * the compressor's tables are never held at once (the merge at
 * MPI_Finalize). */
int tf_mtrace_encode_free(tf_mtrace *t, tf_buf *b, int zstd_level);
/* The same with every time summary's bins exact (version 5 quantises them
 * in a file, doc/FORMAT.md 4.10) and no zstd: a rank's part of the merge
 * sent to another rank, whose summaries are merged again. */
int tf_mtrace_encode_exact(tf_mtrace *t, tf_buf *b);
/* Decode and validate a merged trace file; messages name `name`. */
tf_status tf_mtrace_decode(const uint8_t *data, size_t len, const char *name, tf_mtrace *t, char *err,
                           size_t errlen);
/* The same, its flat runs kept as run nodes (the merge at MPI_Finalize,
 * the projection; tf_mtrace_decode expands them for every other reader). */
tf_status tf_mtrace_decode_runs(const uint8_t *data, size_t len, const char *name, tf_mtrace *t, char *err,
                                size_t errlen);

/* Rank `rank`'s own folded sequence, freshly allocated and validated as a
 * per-rank segment (free with tf_fnode_free), and the order of its streams
 * (free with tf_order_free); its event count in *nevents. 0, or -1 with a
 * reason in *why. */
int tf_mtrace_project(const tf_mtrace *t, int32_t rank, tf_fnode ***nodes, uint32_t *n, tf_order *order,
                      uint64_t *nevents, tf_mem *m, const char **why);

/* What tf_mtrace_project decodes for `rank`: its projection encoded as a
 * per-rank segment into b (empty when the rank has no nodes), and its event
 * count. Ranks with equal bytes and counts project alike. 0, or -1 with a
 * reason in *why. */
int tf_mtrace_project_bytes(const tf_mtrace *t, int32_t rank, tf_buf *b, uint64_t *nevents, const char **why);

/* The second half of tf_mtrace_project: b, as tf_mtrace_project_bytes wrote
 * it for a rank with nevents events, decoded and validated as a per-rank
 * segment (nothing when b is empty). 0, or -1 with a reason in *why. */
int tf_mtrace_decode_projection(const tf_mtrace *t, const tf_buf *b, uint64_t nevents, tf_fnode ***nodes,
                                uint32_t *n, tf_order *order, tf_mem *m, const char **why);

#define TF_TRACE_ZSTD_LEVEL 9 /* sections of merged trace files */

/* The merged structure behind an opened trace (flat input: tables only). */
tf_mtrace *tf_trace_mtrace(tf_trace *t);

/* Index of `rank` among the present ranks, or -1. */
int64_t tf_mtrace_rank_index(const tf_mtrace *t, int32_t rank);

void tf_mtrace_free(tf_mtrace *t);

/* The run a merged file comes from, from its INFO section alone (the
 * first bytes of the file suffice): TF_OK and *out, or an error. */
tf_status tf_mtrace_peek_run(const uint8_t *data, size_t len, tf_run_peek *out);
int tf_mtrace_add_callsite(tf_mtrace *t, const tf_callsite *c); /* copies the module name; 0 or -1 */

/* Value sets: append a pair (seq and ranks are moved in; on failure, -1,
 * they are freed); the sequence for `rank`, or NULL. */
int tf_vset_add(tf_vset *v, tf_vseq *seq, tf_vseq *ranks, uint64_t hash, tf_mem *m);
const tf_vseq *tf_vset_find(const tf_vset *v, int64_t rank);
/* The same as tf_vset_add for a pair with a rule (rank r's sequence is seq
 * plus the rule's offset at r: one pair for values that differ per rank by
 * a rule). */
int tf_vset_add_rule(tf_vset *v, tf_vseq *seq, tf_vseq *ranks, uint64_t hash, const tf_vrule *rule, tf_mem *m);
/* Pair i's rule, or NULL; v has a pair with a rule. */
const tf_vrule *tf_vset_pair_rule(const tf_vset *v, uint32_t i);
int tf_vset_has_rule(const tf_vset *v);
/* The rule's offset at rank r (modulo 2^64); the rule is well formed (a
 * not 0, d >= 1, m >= 0). */
int64_t tf_vrule_at(const tf_vrule *q, int64_t r);
int tf_vrule_valid(const tf_vrule *q);
/* The rule as text ("-r", "(r/8)", "3*((r/2)%4)"; written before "+" and
 * the stored values by show). */
void tf_vrule_format(const tf_vrule *q, char *buf, size_t len);
/* Rank `rank`'s own sequence into *out (a copy, freed by the caller; empty
 * if no pair holds the rank): found, 1; none, 0; out of memory, -1. */
int tf_vset_rank_seq(const tf_vset *v, int64_t rank, tf_vseq *out, tf_mem *m);

/* A renumbering of functions or call sites: index i < n becomes to[i];
 * indices from n on (only a forged trace has them) become new_n + i - n,
 * so they stay out of range. to NULL: indices are kept. */
typedef struct tf_index_map {
  const uint32_t *to;
  uint32_t n, new_n;
} tf_index_map;

/* Renumber the functions (event nodes and the previous calls of their
 * paths) and call sites of nodes x[0..n) and everything below them, and
 * key the nodes again. */
void tf_mnodes_renumber(tf_mnode *const *x, uint32_t n, const tf_index_map *fns, const tf_index_map *sites);

/* Index i through map m (tf_index_map above). */
uint32_t tf_index_map_at(const tf_index_map *m, uint32_t i);

/* One rank's folded node as a merged node of that rank alone (a flat run:
 * tf_mnode_from_run). NULL out of memory (m->failed set). */
tf_mnode *tf_mnode_from_fnode(const tf_fnode *x, int64_t rank, const tf_callsite *cs, tf_mem *m);

/* Flat runs (flat_mnode.c): a node for rank's run (taken over: *run is
 * left empty), NULL out of memory; its indices renumbered (out of memory:
 * its encoding fails later); the functions it names marked in used[0..nfuncs)
 * (its walk stops once every one is). */
tf_mnode *tf_mnode_from_run(tf_flatrun *run, int64_t rank, tf_mem *m);
void tf_mnode_run_renumber(tf_mnode *x, const tf_index_map *fns, const tf_index_map *sites);
void tf_mnode_run_mark_funcs(const tf_mnode *x, uint8_t *used, uint32_t nfuncs);
/* Replace every flat run of t's top level by its events, one event node
 * each (exact times), for readers that walk the merged nodes. 0, or -1
 * with a reason in *why. */
int tf_mtrace_expand_runs(tf_mtrace *t, const char **why);

/* Keep in t's function table only the functions its nodes name (events
 * and previous calls), in their order, and renumber the nodes to match
 * (doc/FORMAT.md 3.3). 0, or -1 out of memory (t unchanged). */
int tf_mtrace_compact_funcs(tf_mtrace *t);

/* Node keys: equal keys select nodes to merge (verified exactly). */
uint64_t tf_mnode_event_key(uint32_t fn, uint32_t thread, uint64_t site_sig);
void tf_mnode_rekey(tf_mnode *loop); /* from the body's keys */
void tf_mnode_free(tf_mnode *x, tf_mem *m);
void tf_vset_free(tf_vset *v, tf_mem *m);

#endif
