/* efg.h — event flow graphs (doc/EFG.md): a trace as a graph of its MPI
 * events, built from the folded, merged structure without unrolling, and
 * written as JSON or Graphviz DOT; the JSON read back and every rank's
 * event sequence regenerated from it.
 *
 * A node is an event signature (function, call site, thread); an edge is a
 * transition between consecutive events of one thread, weighted by how
 * often it happens. The graph of one rank, or ONE graph over all ranks
 * whose nodes and edges carry rank lists and per-rank counts as value sets.
 * The graph carries the rank's loop structure over node ids (iteration
 * counts, parameter value sequences), so that it regenerates the event
 * sequence exactly (efg_read.c), and optionally the compute-delta
 * summaries of its transitions (--time).
 *
 * This is libtracefold-graph (src/graph): internal to the repository,
 * nothing here is exported from libtracefold.so. The `tracefold efg` verb
 * (src/cli/cmd_efg.c) parses options and prints; the HTML report renders
 * graphs through tf_efg_render_svg.
 */
#ifndef TF_EFG_H
#define TF_EFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracefold.h"

/* ---- building a graph from a trace (efg_build.c) ---- */
typedef struct tf_efg tf_efg;

typedef struct tf_efg_opts {
  int32_t rank;   /* >= 0: that rank's graph; -1: one graph merged over all ranks */
  int time;       /* 1: edges (and first events) carry compute/call time summaries */
  int resolve;    /* 1: call sites resolved to function and file:line (addr2line) */
  int structure;  /* 1: the loop structure and value sequences (exact reconstruction); 0: the graph only */
} tf_efg_opts;
#define TF_EFG_OPTS_DEFAULT {.rank = -1, .time = 0, .resolve = 1, .structure = 1}

/* The event flow graph of trace t (opened with tf_trace_open; `name` is
 * used in messages and written into the graph). TF_OK and *out, or a
 * TF_ERR_* with a message naming the trace: a flat trace (TF_ERR_ARG: no
 * folded structure; the message says how to record one), a rank not in the
 * trace (TF_ERR_ARG), a malformed structure (TF_ERR_FORMAT), memory
 * (TF_ERR_NOMEM). The graph borrows t: close t after tf_efg_free. */
tf_status tf_efg_build(tf_trace *t, const char *name, const tf_efg_opts *o, tf_efg **out, char *err, size_t errlen);
void tf_efg_free(tf_efg *g); /* NULL: nothing */

/* What a graph holds (for messages and tests). */
typedef struct tf_efg_stats {
  uint32_t nodes, edges, threads, items; /* items: structure nodes (events and loops) written */
  uint32_t rank_groups;                  /* ranks with identical control flow computed once each */
  int32_t nranks;                        /* ranks in the graph */
  uint64_t events;                       /* events of those ranks */
} tf_efg_stats;
void tf_efg_get_stats(const tf_efg *g, tf_efg_stats *s);

/* ---- writing (efg_json.c, efg_dot.c) ---- */
/* JSON (doc/EFG.md "The JSON form"). 0, or -1 when writing failed. */
int tf_efg_write_json(const tf_efg *g, FILE *f);
/* Graphviz DOT: nodes labelled "MPI_Send\nfile.c:61" and their counts,
 * edges with counts (and times with opts.time), ranks in merged graphs,
 * one cluster per thread when there are several. 0 or -1. */
int tf_efg_write_dot(const tf_efg *g, FILE *f);
/* The DOT form rendered to SVG by Graphviz (`dot -Tsvg -o svg_path`):
 * TF_OK, or TF_ERR_IO with a message (dot missing or failing). */
tf_status tf_efg_render_svg(const tf_efg *g, const char *svg_path, char *err, size_t errlen);

/* ---- reading a graph back and regenerating events (efg_read.c) ---- */
typedef struct tf_efg_doc tf_efg_doc;

/* Parse the JSON form (text of len bytes; `name` in messages: "FILE:LINE:COL:
 * ..." for bad JSON, "FILE: ..." for JSON that is not an event flow graph).
 * TF_OK and *out, or TF_ERR_FORMAT / TF_ERR_NOMEM and err. */
tf_status tf_efg_doc_parse(const char *text, size_t len, const char *name, tf_efg_doc **out, char *err,
                           size_t errlen);
void tf_efg_doc_free(tf_efg_doc *d); /* NULL: nothing */
/* The ranks the document can regenerate, ascending: count, and the array
 * (owned by d) in *ranks. A one-rank graph has one. */
int tf_efg_doc_ranks(const tf_efg_doc *d, const int32_t **ranks);
/* Whether the document carries the loop structure (regeneration needs it). */
int tf_efg_doc_has_structure(const tf_efg_doc *d);

/* One regenerated event: the function's description from the document
 * (name and fields), thread, call-site signature, values (as the trace's
 * cursors give them: request ids restored). Valid during the callback. */
typedef struct tf_efg_event {
  const tf_func_desc *fd;
  uint32_t thread;
  uint64_t callsite;
  uint32_t nvals;
  const int64_t *vals;
  uint32_t node; /* the graph node (document ids) */
} tf_efg_event;
/* Called for every event in order; a non-zero return stops the walk (and is returned). */
typedef int (*tf_efg_event_fn)(const tf_efg_event *ev, void *arg);

/* Regenerate `rank`'s events from the document alone, calling fn for each.
 * Then check the graph against them: every transition between consecutive
 * events of a thread is an edge with exactly the count the document gives
 * for the rank, every node's count and every thread's initial node agree,
 * and every value sequence was read to its end. 0 (and the number of
 * events in *nevents, may be NULL), fn's non-zero return, or -1 with a
 * message naming the document, the rank and what differs. */
int tf_efg_doc_regenerate(const tf_efg_doc *d, int32_t rank, tf_efg_event_fn fn, void *arg, uint64_t *nevents,
                          char *err, size_t errlen);

/* ---- checking (efg_check.c) ---- */
/* The exact-reconstruction check: the merged graph and each rank's own
 * graph written as JSON into memory, read back with tf_efg_doc_parse, and
 * every rank's events (only `rank`'s when >= 0) regenerated from the
 * documents and compared with the trace's cursor, every field but times
 * (what `tracefold unroll --no-time` prints), with the graph checks of
 * tf_efg_doc_regenerate. TF_OK and a summary in msg, or an error and the
 * first difference in msg. */
tf_status tf_efg_replay_check(tf_trace *t, const char *name, int32_t rank, char *msg, size_t msglen);

/* An event as `tracefold unroll` prints it after rank, thread and position:
 * "MPI_Send cs=<signature> count=4 ...", truncated to len. */
void tf_efg_event_text(const tf_func_desc *fd, uint64_t callsite, const int64_t *vals, uint32_t nvals, char *buf,
                       size_t len);

#endif
