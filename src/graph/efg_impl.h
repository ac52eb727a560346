/* efg_impl.h — the event flow graph as built (efg_build.c) and written
 * (efg_json.c, efg_dot.c): nodes, edges, initial nodes, per-rank counts as
 * value sets, time summaries per rank group, and a mirror of the merged
 * loop structure whose events point at graph nodes. Not for other folders. */
#ifndef TF_EFG_IMPL_H
#define TF_EFG_IMPL_H

#include "efg.h"
#include "merge/mtrace.h"
#include "time/timing.h"

#define EFG_NONE UINT32_MAX

/* A per-rank count as a value set: (count, ranks) pairs, ranks ascending in
 * each; the ranks with a count at all; the total over them. */
typedef struct efg_vcount {
  uint64_t count;
  tf_vseq ranks;
} efg_vcount;
typedef struct efg_counts {
  efg_vcount *v;
  uint32_t n, cap;
  uint32_t last;  /* the pair the last rank went to (ranks come in runs of equal counts) */
  uint64_t total;
  tf_vseq ranks;
} efg_counts;

/* Time summaries of one transition (or first event), one per rank group
 * the trace keeps them for: the rank list of the merged event node that
 * holds them (several nodes with one rank list are summed). */
typedef struct efg_tgroup {
  const tf_vseq *ranks;
  tf_timing t; /* one path */
} efg_tgroup;
typedef struct efg_times {
  efg_tgroup *g;
  uint32_t n, cap;
} efg_times;

typedef struct efg_node {
  uint32_t fn, thread, site; /* site: index into the trace's call sites */
  efg_counts occ;            /* occurrences per rank */
  efg_times entry;           /* path mode: the thread's first event (no previous call); else all occurrences */
  uint32_t out;              /* id when written (nodes with occurrences in scope, in order), else EFG_NONE */
} efg_node;

typedef struct efg_edge {
  uint32_t from, to; /* node ids; one thread */
  efg_counts cnt;
  efg_times time;
} efg_edge;

typedef struct efg_init {
  uint32_t thread, node;
  efg_counts on; /* count 1 on each rank where `node` is the thread's first event */
} efg_init;

/* Open addressing from 64-bit keys to ids. */
typedef struct efg_map {
  uint64_t *k;
  uint32_t *v; /* id + 1; 0: empty */
  uint32_t cap, used;
} efg_map;

/* The merged structure, mirrored: each event item knows its graph node. */
typedef struct efg_item {
  const tf_mnode *m;
  uint32_t node; /* event: graph node id */
  struct efg_item *body;
  uint32_t nbody;
} efg_item;

struct tf_efg {
  tf_trace *t;
  const tf_mtrace *mt;
  const tf_trace_info *info;
  char *name;
  tf_efg_opts o;
  int32_t *ranks; /* ranks in scope, ascending */
  int32_t nranks;
  uint64_t nevents;
  efg_item *top;
  uint32_t ntop;
  efg_node *nodes;
  uint32_t nnodes, capnodes;
  uint32_t nout;       /* nodes written */
  efg_edge *edges;
  uint32_t nedges, capedges;
  efg_init *inits;
  uint32_t ninits, capinits;
  uint32_t nthreads;   /* thread ids below this */
  uint32_t ngroups;
  uint32_t nitems;     /* structure items in scope */
  char **where;        /* per call site: "file.c:61" (NULL: unresolved) */
  char **func;         /* per call site: the function around it (NULL: unknown) */
  efg_map nodemap;     /* (fn, thread, site) -> node id */
  efg_map edgemap;     /* (from, to) -> edge id */
  tf_mem mem;
};

/* ---- shared helpers (efg_build.c) ---- */
/* Maps: the id of key or EFG_NONE; add key -> id (0, or -1 out of memory); free. */
uint32_t efg_map_get(const efg_map *m, uint64_t key);
int efg_map_put(efg_map *m, uint64_t key, uint32_t id);
void efg_map_free(efg_map *m);
/* The rank list as text (tf_ranks_format into a buffer that grows until it
 * fits): malloc'ed, NULL when memory is short. */
char *efg_ranks_text(const tf_vseq *ranks);
/* The smallest and largest per-rank count of c. */
void efg_counts_range(const efg_counts *c, uint64_t *lo, uint64_t *hi);
/* The summaries of a time list summed into one path (for labels). 0 or -1. */
int efg_times_total(const tf_efg *g, const efg_times *t, tf_tpath *out, tf_mem *m);
/* The call site's short name: "file.c:61", else "module+0x1f0". */
void efg_site_label(const tf_efg *g, uint32_t site, char *buf, size_t len);

/* ---- call sites (efg_sites.c) ---- */
/* Resolve every call site of the trace with addr2line (one process per
 * module): g->where[s] and g->func[s], NULL where nothing is known. 0 or -1
 * (memory). */
int efg_resolve_sites(tf_efg *g);

#endif
