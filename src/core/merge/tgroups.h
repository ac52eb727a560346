/* tgroups.h — the time summaries of one event of a merged trace: per path,
 * one summary per group of ranks whose delays agree (doc/TIMING.md "Rank
 * groups", doc/FORMAT.md 4.4).
 *
 * A rank's own event keeps one summary per path (time/timing.h); merged
 * with another rank's, a path keeps both summaries apart unless they agree
 * (tf_tpath_agree), in which case the ranks share one (their rank lists
 * joined, their summaries merged). Each path keeps at most TF_GROUPS_MAX
 * groups whose rank lists take at most TF_GROUP_RANK_ITEMS items; beyond
 * that the two groups whose merge moves the least time merge. So regular
 * codes keep a handful of groups per path (the slow rank, the boundary),
 * whatever the number of ranks, and every rank keeps its own delays where
 * that costs little: a rank's projection (tf_gtiming_project) takes its
 * group's summary on every path it took.
 */
#ifndef TF_TGROUPS_H
#define TF_TGROUPS_H

#include "time/timing.h"
#include "fold/vseq.h"

typedef struct tf_tgroup {
  tf_vseq ranks; /* sorted */
  tf_tpath t;    /* its summaries (t.prev_* are the path's) */
} tf_tgroup;

typedef struct tf_gpath {
  uint32_t prev_fn, prev_site; /* as tf_tpath */
  tf_tgroup *g;
  uint32_t n, cap;
} tf_gpath;

typedef struct tf_gtiming {
  tf_gpath *paths;
  uint32_t npaths;
  tf_rankmeans compute, duration; /* the event's smallest and largest per-rank means (all paths) */
} tf_gtiming;

/* One rank's timing (t, its own events') as groups of that rank alone. 0 or -1. */
int tf_gtiming_from_rank(tf_gtiming *g, const tf_timing *t, int32_t rank, tf_mem *m);
/* The same with t's summaries moved in, not copied (t is emptied; tm: the
 * account t's memory was in, which moves to m). 0 or -1. */
int tf_gtiming_take_rank(tf_gtiming *g, tf_timing *t, int32_t rank, tf_mem *m, tf_mem *tm);
/* A timing pooled over `ranks` (version-2 merged traces): one group per
 * path on those ranks; t's paths are moved in (t is emptied). 0 or -1. */
int tf_gtiming_from_pooled(tf_gtiming *g, tf_timing *t, const tf_vseq *ranks, tf_mem *m);
/* a absorbs b (b's ranks come after a's), b is freed. k: bins per
 * histogram. 0, or -1 out of memory (m->failed). */
int tf_gtiming_merge(tf_gtiming *a, tf_gtiming *b, uint32_t k, tf_mem *m);
void tf_gtiming_free(tf_gtiming *g, tf_mem *m);
/* Close the open run of every group's rank list (tf_vseq_seal), so that a
 * strided block is one item. */
void tf_gtiming_seal(tf_gtiming *g, tf_mem *m);

/* Rank r's timing: on each path that one of its groups holds r, that
 * group's summaries, borrowed (shell->paths is malloc'ed: free it alone).
 * 0, or -1 out of memory. */
int tf_gtiming_project(const tf_gtiming *g, int64_t rank, tf_timing *shell);
/* Every path's groups merged into one summary (a deep tf_timing with the
 * event's per-rank means). 0 or -1. */
int tf_gtiming_pooled(const tf_gtiming *g, uint32_t k, tf_timing *out, tf_mem *m);
uint64_t tf_gtiming_count(const tf_gtiming *g); /* occurrences, all paths and groups */

/* The size of a rank list as the cap counts it: its value-sequence items,
 * nested ones included. */
uint32_t tf_ranks_cost(const tf_vseq *ranks);
/* The union of two rank lists into out (uninitialised). 0 or -1. */
int tf_ranks_union(tf_vseq *out, const tf_vseq *a, const tf_vseq *b, tf_mem *m);

#endif
