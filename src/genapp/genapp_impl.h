/* genapp_impl.h — the generator's modules (genapp.h says what it makes):
 *   text.c     growable text, the program's parts before they are joined;
 *   values.c   value sequences and rank lists as item tables, parameters
 *              as literals or table reads;
 *   threads.c  a rank's threads: what orders them, or why a trace is refused;
 *   calls.c    which functions the program can call, and their code;
 *   compute.c  the busy-wait before each call;
 *   sites.c    call sites as names (site_stencil2d_c_61);
 *   tree.c     the loop structure as C: nests, loops, branches, calls;
 *   genapp.c   the program: header, runtime, tables, functions, main. */
#ifndef TF_GENAPP_IMPL_H
#define TF_GENAPP_IMPL_H

#include <stdarg.h>
#include <stdint.h>

#include "genapp.h"
#include "merge/mtrace.h"

/* ---- text.c ---- */
typedef struct tfg_text {
  char *p;
  size_t len, cap;
  int failed; /* out of memory */
} tfg_text;
void tfg_put(tfg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tfg_puts(tfg_text *t, const char *s);
void tfg_text_free(tfg_text *t);

/* ---- the generator's state ---- */
typedef struct tfg_table { /* an emitted table, found again by its content */
  char *body;
  uint32_t id;
} tfg_table;
typedef struct tfg_gen {
  const tfg_options *opt;
  tf_trace *trace;
  tf_mtrace *mt;
  const tf_trace_info *info;
  uint32_t *schema_of;   /* trace function -> schema id */
  uint8_t *used;         /* per schema id: the program calls it */
  int uses_files;        /* it calls MPI-IO: it works in a scratch directory */
  int mpi_version;       /* the MPI version its newest function needs (0: any), and that function */
  const char *mpi_version_fn;
  char **site_names;     /* per call site: "site_ring_c_61" (unique) */
  tfg_text tables;       /* value tables */
  tfg_text code;         /* loop-nest functions */
  tfg_text main;         /* main's body */
  tfg_table *tabs;
  uint32_t ntabs, captabs;
  uint32_t nvars;        /* names handed out (vs_N, rk_N, ...) */
  uint32_t nnests;
  uint32_t *hists, *hist_nb; /* --compute histogram: the bin tables' numbers (hb_N) and lengths */
  uint32_t nhists, caphists;
  uint32_t nthreads;     /* threads per rank in the trace (1 + the highest thread number) */
  uint32_t thread;       /* the thread whose code is being written */
  char (*free_waits)[32]; /* per thread: its frees' waits, a vs_N read by tfg_wait_others ("": none) */
  int shared_reqs;        /* requests are made on several threads or used by another: TFG_SHARED_REQUESTS */
  char (*req_order)[32];  /* with shared_reqs, per thread: its request events' places in the rank's order
                           * of request events, a vs_N ("": none) */
  char *err;
  size_t errlen;
  int failed;
} tfg_gen;

int tfg_fail(tfg_gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- threads.c ---- */
/* A trace of several threads per rank (g->nthreads > 1): refuse it if a
 * message one thread takes is received by another (naming the first);
 * else fill g->free_waits, and with requests shared between threads
 * g->shared_reqs and g->req_order. 0 or -1. */
int tfg_threads_check(tfg_gen *g);
/* At the start of thread `thread`'s code: with shared requests, the
 * statement naming its request events' places ("" otherwise). */
void tfg_req_order_stmt(tfg_gen *g, uint32_t thread, tfg_text *t);
/* Before event x's call: in a threaded program, the wait of a call that
 * frees an object ("" otherwise). */
void tfg_free_wait_stmt(tfg_gen *g, const tf_mnode *x, tfg_text *t);

/* ---- values.c ---- */
/* A C literal of a trace value ("TF_ANY_SOURCE", "42", ...) into buf. */
void tfg_literal(int64_t v, char *buf, size_t len);
/* The C expression of the next value of value set v in the program: a
 * literal when every rank's sequence is one constant, else a read of a
 * table (tfg_next). */
void tfg_value_expr(tfg_gen *g, const tf_vset *v, char *buf, size_t len);
/* The name of a rank table (tfg_ranks) for a node's ranks. */
void tfg_ranks_name(tfg_gen *g, const tf_vseq *ranks, char *buf, size_t len);
/* 1 if two rank lists hold the same ranks. */
int tfg_same_ranks(const tf_vseq *a, const tf_vseq *b);
/* A table of (ranks, one constant) pairs read with tfg_pick: its name. */
void tfg_constants_name(tfg_gen *g, const int64_t *per_rank, const uint8_t *has, int32_t nranks, char *buf,
                        size_t len);
/* A rank list of the ranks r with pick[r] set, as a sequence (ranks ascending). */
int tfg_seq_of_ranks(const uint8_t *pick, int32_t nranks, tf_vseq *out, tf_mem *m);
/* The name of a table of C type `type` holding text `body` (made once per
 * distinct body): "prefix_N". Tables are const arrays, but for the
 * prefixes "rk" and "cs" (one object, which the program updates). */
void tfg_table_name(tfg_gen *g, const char *type, const char *prefix, const char *body, char *buf, size_t len);
/* A fresh value set, read in order (tfg_next), holding per rank r with
 * has[r] the values vals[r][0..n[r]): its name "vs_N". */
void tfg_sequences_name(tfg_gen *g, const int64_t *const *vals, const uint32_t *n, const uint8_t *has,
                        int32_t nranks, char *buf, size_t len);
/* A value sequence's items, as the body of a tfg_item table. */
void tfg_seq_items(const tf_vseq *s, tfg_text *t);

/* ---- calls.c ---- */
/* Check that the program can make every call of the trace; fill schema_of. 0 or -1. */
int tfg_calls_check(tfg_gen *g);
/* The statement making event node x's call with values v[0..nv). */
void tfg_call_stmt(tfg_gen *g, const tf_mnode *x, const char *values, const char *nvalues, tfg_text *t);
/* The code of every used function and its field descriptions. */
void tfg_calls_emit(tfg_gen *g, tfg_text *t);
/* 1 if the trace's function fn is the schema's function `name`. */
int tfg_is_named(const tfg_gen *g, uint32_t fn, const char *name);

/* ---- compute.c ---- */
/* The statement spending the compute before event x ("" with --compute none). */
void tfg_compute_stmt(tfg_gen *g, const tf_mnode *x, tfg_text *t);

/* ---- sites.c ---- */
int tfg_sites_name(tfg_gen *g); /* fills site_names; 0 or -1 */

/* ---- tree.c ---- */
/* The top-level nodes as main's body and nest functions. 0 or -1. */
int tfg_tree_emit(tfg_gen *g);

#endif
