/* app_runtime.c — the runtime every program `tracefold genapp` writes
 * carries (it is not compiled into tracefold: src/genapp/CMakeLists.txt
 * embeds this text into the generator, which copies it into each app).
 *
 * The per-function calls of the app are the replay engine's, generated
 * from gen/mpi.table by gen/emit_replay.py (gen/emit_genapp.py keeps them
 * as text): they read an event's fields through the rp_* helpers. Those
 * that do not depend on how objects are kept are src/replay/args.c, the
 * replay engine's own source, which gen/emit_genapp.py puts at the line
 * "@args.c" below; the others (object maps, outcomes, one-sided epochs,
 * the MPI-IO directory) are here, in a trace-free form (locked where threads share them)
 * of src/replay's handles.c, outcome.c and io.c. A helper a function's
 * call needs that neither defines makes the generator refuse that
 * function, so the set of supported functions is what they define.
 *
 * Rules of the text: C11, only <mpi.h>, the C standard library and the
 * POSIX <unistd.h>, <dirent.h> (the MPI-IO scratch directory), warning
 * free under -Wall -Wextra; everything the runtime does for itself goes
 * through PMPI_ so that a recorder preloaded into the app sees exactly the
 * trace's calls. Value sequences (tfg_seq) are the trace's own items
 * (src/core/fold/vseq.h): runs and repeats, read in order. */

/* ---- the trace's special values (tracefold.h) ---- */
#define TF_NONE INT64_MIN
#define TF_ANY_SOURCE (INT64_MIN + 1)
#define TF_PROC_NULL (INT64_MIN + 2)
#define TF_ROOT (INT64_MIN + 3)
#define TF_ANY_TAG (INT64_MIN + 4)
#define TF_UNDEFINED (INT64_MIN + 5)
#define TF_NULL_HANDLE (INT64_MIN + 6)
#define TF_SPECIAL_MAX (INT64_MIN + 6)
#define RP_SIMGRID 0
#define RP_MAXFIELDS 32

/* ---- threads: a trace recorded with several threads per rank (TFG_NTHREADS > 1, defined with
 * <pthread.h> and <stdatomic.h> above the runtime; doc/GENAPP.md "Threads") runs one pthread per
 * recorded thread. Messages stay with the thread that makes them (the generator refuses a trace that
 * hands one over): their map, the current call and the draws are the thread's own; so are requests,
 * unless threads make and complete each other's (TFG_SHARED_REQUESTS, "shared requests" below).
 * Communicators, datatypes, ops, groups, windows and files are shared: a lookup of one another thread
 * has not made yet waits for it (tfg_get), and a call that frees one first waits until every other
 * thread has made the calls the recording completed before it (tfg_wait_others, at the end). ---- */
#ifndef TFG_NTHREADS
#define TFG_NTHREADS 1
#endif
#ifndef TFG_SHARED_REQUESTS
#define TFG_SHARED_REQUESTS 0
#endif
#if TFG_NTHREADS > 1
#define TFG_LOCAL _Thread_local
static TFG_LOCAL int tfg_thread;                   /* this thread's number in the trace (0: main) */
static _Atomic uint64_t tfg_done[TFG_NTHREADS];    /* per thread: the calls it has made */
static pthread_mutex_t tfg_objects = PTHREAD_MUTEX_INITIALIZER; /* the shared maps */
static pthread_cond_t tfg_made = PTHREAD_COND_INITIALIZER;      /* an object was added to one */
#else
#define TFG_LOCAL
#endif

_Noreturn static void tfg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- value sequences ---- */
typedef struct tfg_item {
  int64_t base, step;  /* run: first value, difference; repeat: body bases absolute, shift per repetition */
  int64_t count;       /* run: values; repeat: repetitions */
  int64_t nvalues;     /* values the item stands for */
  int32_t body, nbody; /* repeat: its items in the same table (0 items: a run) */
} tfg_item;
typedef struct tfg_seq {
  const tfg_item *items;
  int32_t n;
} tfg_seq;

static inline int64_t tfg_value_in(const tfg_item *tab, int32_t first, int32_t n, int64_t k) {
  for (int32_t i = first; i < first + n; i++) {
    const tfg_item *x = &tab[i];
    if (k >= x->nvalues) {
      k -= x->nvalues;
      continue;
    }
    if (!x->nbody) return (int64_t)((uint64_t)x->base + (uint64_t)x->step * (uint64_t)k);
    int64_t per = x->nvalues / x->count;
    return (int64_t)((uint64_t)tfg_value_in(tab, x->body, x->nbody, k % per) + (uint64_t)x->step * (uint64_t)(k / per));
  }
  tfg_die("a value sequence runs out (value %lld)", (long long)k);
}

/* A parameter's sequences on groups of ranks: the one of this rank, read in order. */
typedef struct tfg_pair {
  tfg_seq ranks, values;
  int64_t a, d, m; /* a rule (doc/FORMAT.md 3.5): this rank's values are these plus a * ((rank / d) mod m) (m 0: no mod) */
  int64_t a2, d2, m2; /* ... plus a2 * ((rank / d2) mod m2) (a2 0: none) */
} tfg_pair;
typedef struct tfg_vset {
  const tfg_pair *pairs;
  int32_t npairs;
  int32_t mine;     /* -1: not looked up yet */
  int64_t k;        /* values read */
  int32_t at;       /* cache: item `at` of the top level starts at value `at_k` */
  int64_t at_k;
} tfg_vset;

static int tfg_rank = -1;

static inline int tfg_member(const tfg_seq *ranks, int rank) {
  int64_t total = 0;
  for (int32_t i = 0; i < ranks->n; i++) total += ranks->items[i].nvalues;
  int64_t lo = 0, hi = total; /* rank lists are sorted */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2, v = tfg_value_in(ranks->items, 0, ranks->n, mid);
    if (v == rank) return 1;
    if (v < rank) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

/* One term of a pair's rule at this rank, a * ((rank / d) mod m), as unsigned (a 0: none). */
static inline uint64_t tfg_rule_term(int64_t a, int64_t d, int64_t m) {
  if (!a) return 0;
  int64_t x = tfg_rank / d;
  return (uint64_t)a * (uint64_t)(m ? x % m : x);
}

static inline int64_t tfg_next(tfg_vset *s) {
  if (s->mine < 0) {
    for (int32_t p = 0; p < s->npairs && s->mine < 0; p++)
      if (tfg_member(&s->pairs[p].ranks, tfg_rank)) s->mine = p;
    if (s->mine < 0) tfg_die("rank %d has no value sequence where the trace gives it one", tfg_rank);
  }
  const tfg_seq *q = &s->pairs[s->mine].values;
  int64_t k = s->k++;
  while (s->at < q->n && k - s->at_k >= q->items[s->at].nvalues) s->at_k += q->items[s->at++].nvalues;
  if (s->at >= q->n) tfg_die("a value sequence runs out (value %lld)", (long long)k);
  const tfg_pair *p = &s->pairs[s->mine];
  return (int64_t)((uint64_t)tfg_value_in(q->items, s->at, 1, k - s->at_k) + tfg_rule_term(p->a, p->d, p->m) +
                   tfg_rule_term(p->a2, p->d2, p->m2));
}

/* A node's ranks: 1 if this rank is among them (looked up once). */
typedef struct tfg_ranks {
  tfg_seq seq;
  int in; /* -1: not looked up yet */
} tfg_ranks;
static inline int tfg_in(tfg_ranks *r) {
  if (r->in < 0) r->in = tfg_member(&r->seq, tfg_rank);
  return r->in;
}

/* ---- the current call ---- */
typedef struct tf_field_desc { /* what the shared helpers (args.c) read of a field's description */
  int is_array;
} tf_field_desc;
static const tf_field_desc tfg_scalar_field = {0}, tfg_array_field = {1};
typedef struct tf_field_value { /* as tracefold.h's */
  const tf_field_desc *desc;
  uint32_t n;
  const int64_t *v;
} tf_field_value;
typedef struct rp_typespan {
  MPI_Aint extent, true_lb, true_ub;
} rp_typespan;
typedef struct rp_span {
  int64_t lo, hi;
} rp_span;
#define RP_SPAN_NONE ((rp_span){INT64_MAX, INT64_MIN})
typedef struct rp_thread {
  const char *fname;          /* the function called */
  const unsigned char *kinds; /* its fields' kinds */
  uint32_t nf;
  tf_field_value field[RP_MAXFIELDS];
  MPI_Status status, last_status;
  double last_return;
  void *scratch[64];
  int nscratch;
  void *sbuf, *rbuf; /* payload buffers (args.c) */
  size_t scap, rcap;
  void **retired; /* outgrown ones a pending call may still use */
  size_t nretired;
  int64_t last_req; /* the request-id transform's state (src/core/fold/request_transform.c) */
  int any_source;
} rp_thread;
static TFG_LOCAL rp_thread tfg_T;

_Noreturn static void tfg_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "genapp rank %d%s%s: ", tfg_rank, tfg_T.fname ? ", " : "", tfg_T.fname ? tfg_T.fname : "");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  PMPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

double rp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void *rp_alloc(rp_thread *T, size_t bytes) {
  if (T->nscratch == 64) tfg_die("too many array arguments");
  void *p = calloc(1, bytes + 16);
  if (!p) tfg_die("out of memory");
  return T->scratch[T->nscratch++] = p;
}
static inline void *rp_alloc_kept(rp_thread *T, size_t bytes) { /* lives as long as the app (a pending request may read it) */
  (void)T;
  void *p = calloc(1, bytes + 16);
  if (!p) tfg_die("out of memory");
  return p;
}

/* ---- the event's fields as MPI arguments, the payload spans, file names: src/replay/args.c,
 * shared with the replay engine (embedded here by gen/emit_genapp.py, at the line below) ---- */
#define rp_die(T, ...) ((void)(T), tfg_die(__VA_ARGS__))
static inline rp_typespan rp_dtype_span(rp_thread *T, int64_t id);
/* @args.c */

/* ---- recorded object ids -> live objects ---- */
typedef union tfg_handle {
  MPI_Comm comm;
  MPI_Datatype dtype;
  MPI_Op op;
  MPI_Group group;
  MPI_Request req;
  MPI_File file;
  MPI_Message msg;
  void *p; /* a window (tfg_win) or a dynamic window's region (its memory) */
} tfg_handle;
typedef struct tfg_map {
  int64_t *ids; /* 0: empty slot */
  tfg_handle *h;
  size_t cap, used;
  int shared; /* by the threads of a rank (locked); else each thread's own */
} tfg_map;
static tfg_map tfg_comms = {.shared = 1}, tfg_dtypes = {.shared = 1}, tfg_ops = {.shared = 1},
               tfg_groups = {.shared = 1}, tfg_files = {.shared = 1}, tfg_wins = {.shared = 1},
               tfg_regions = {.shared = 1};
#if TFG_SHARED_REQUESTS
static tfg_map tfg_reqs = {.shared = 1};
#else
static TFG_LOCAL tfg_map tfg_reqs;
#endif
static TFG_LOCAL tfg_map tfg_msgs;

static inline void tfg_lock(const tfg_map *m) {
#if TFG_NTHREADS > 1
  if (m->shared) pthread_mutex_lock(&tfg_objects);
#else
  (void)m;
#endif
}
static inline void tfg_unlock(const tfg_map *m, int made) {
#if TFG_NTHREADS > 1
  if (!m->shared) return;
  if (made) pthread_cond_broadcast(&tfg_made);
  pthread_mutex_unlock(&tfg_objects);
#else
  (void)m, (void)made;
#endif
}
/* Locked (tfg_objects), something another thread has not done yet: wait for a change (tfg_made), until
 * `*until` (set on the first wait: a minute). 0: give up. */
static inline int tfg_wait_change(double *until) {
#if TFG_NTHREADS > 1
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  double t = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
  if (*until == 0) *until = t + 60;
  if (t >= *until) return 0;
  struct timespec ts = {now.tv_sec + 1, now.tv_nsec};
  pthread_cond_timedwait(&tfg_made, &tfg_objects, &ts);
  return 1;
#else
  (void)until;
  return 0;
#endif
}
/* Locked, an object of a shared map not there yet: wait for another thread to add one. 0: give up. */
static inline int tfg_wait_made(const tfg_map *m, double *until) { return m->shared && tfg_wait_change(until); }

static inline size_t tfg_home(int64_t id, size_t cap) { /* an id's first slot in a table of cap (a power of two) */
  return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}
static inline size_t tfg_slot(const tfg_map *m, int64_t id) {
  size_t i = tfg_home(id, m->cap);
  while (m->ids[i] && m->ids[i] != id) i = (i + 1) & (m->cap - 1);
  return i;
}
static inline void tfg_put(tfg_map *m, int64_t id, tfg_handle h) {
  tfg_lock(m);
  if ((m->used + 1) * 2 > m->cap) {
    tfg_map g = {calloc(m->cap ? m->cap * 2 : 64, sizeof *g.ids), calloc(m->cap ? m->cap * 2 : 64, sizeof *g.h),
                 m->cap ? m->cap * 2 : 64, 0, m->shared};
    if (!g.ids || !g.h) tfg_die("out of memory");
    for (size_t i = 0; i < m->cap; i++)
      if (m->ids[i] && m->ids[i] != INT64_MIN + 7) {
        size_t j = tfg_slot(&g, m->ids[i]);
        g.ids[j] = m->ids[i], g.h[j] = m->h[i], g.used++;
      }
    free(m->ids);
    free(m->h);
    *m = g;
  }
  size_t i = tfg_slot(m, id);
  if (!m->ids[i]) m->used++;
  m->ids[i] = id;
  m->h[i] = h;
  tfg_unlock(m, 1);
}
static inline tfg_handle tfg_get(tfg_map *m, int64_t id, const char *what) {
  tfg_lock(m);
  double until = 0;
  do {
    if (m->cap) {
      size_t i = tfg_slot(m, id);
      if (m->ids[i] == id) {
        tfg_handle h = m->h[i];
        tfg_unlock(m, 0);
        return h;
      }
    }
  } while (tfg_wait_made(m, &until));
  tfg_unlock(m, 0);
  tfg_die("%s %lld is used before the trace creates it", what, (long long)id);
}
static inline void tfg_drop(tfg_map *m, int64_t id) { /* a tombstone: probing goes on past it */
  tfg_lock(m);
  if (m->cap) {
    size_t i = tfg_slot(m, id);
    if (m->ids[i] == id) m->ids[i] = INT64_MIN + 7;
  }
  tfg_unlock(m, 0);
}

MPI_Comm rp_comm(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_COMM_NULL;
  if (id == 1) return MPI_COMM_WORLD;
  if (id == 2) return MPI_COMM_SELF;
  return tfg_get(&tfg_comms, id, "communicator").comm;
}
void rp_comm_new(rp_thread *T, int i, MPI_Comm c) {
  int64_t id = scalar(T, i);
  if (id > TF_SPECIAL_MAX && c != MPI_COMM_NULL) tfg_put(&tfg_comms, id, (tfg_handle){.comm = c});
}
void rp_comm_forget(rp_thread *T, int i) { tfg_drop(&tfg_comms, scalar(T, i)); }

static inline const MPI_Datatype *tfg_predef_dtypes(int *n) {
  static MPI_Datatype all[128];
  static int count = -1;
  if (count < 0) {
    count = 0;
#define X(d) all[count++] = d;
    TFG_PREDEFINED_DTYPES(X)
#undef X
  }
  *n = count;
  return all;
}
static inline MPI_Datatype dtype_of(int64_t id) {
  int n;
  const MPI_Datatype *pre = tfg_predef_dtypes(&n);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_DATATYPE_NULL;
  if (id >= 1 && id <= n) return pre[id - 1];
  return tfg_get(&tfg_dtypes, id, "datatype").dtype;
}
MPI_Datatype rp_dtype(rp_thread *T, int i) { return dtype_of(scalar(T, i)); }
static inline MPI_Datatype *dtypes_in(rp_thread *T, int i, int keep) {
  size_t bytes = (T->field[i].n + 1) * sizeof(MPI_Datatype);
  MPI_Datatype *a = keep ? rp_alloc_kept(T, bytes) : rp_alloc(T, bytes);
  for (uint32_t k = 0; k < T->field[i].n; k++) a[k] = dtype_of(T->field[i].v[k]);
  return a;
}
MPI_Datatype *rp_dtypes(rp_thread *T, int i) { return dtypes_in(T, i, 0); }
MPI_Datatype *rp_dtypes_kept(rp_thread *T, int i) { return dtypes_in(T, i, 1); }
void rp_dtype_new(rp_thread *T, int i, MPI_Datatype d) {
  int64_t id = scalar(T, i);
  if (id > TF_SPECIAL_MAX && d != MPI_DATATYPE_NULL) tfg_put(&tfg_dtypes, id, (tfg_handle){.dtype = d});
}
void rp_dtype_back(rp_thread *T, int i, MPI_Datatype d) { rp_dtype_new(T, i, d); }
void rp_dtype_forget(rp_thread *T, int i) { tfg_drop(&tfg_dtypes, scalar(T, i)); }
static inline rp_typespan tfg_span_of(MPI_Datatype d) {
  MPI_Aint lb = 0, ext = 1, tlb = 0, text = 1;
  if (d != MPI_DATATYPE_NULL) {
    PMPI_Type_get_extent(d, &lb, &ext);
    PMPI_Type_get_true_extent(d, &tlb, &text);
  }
  return (rp_typespan){ext, tlb, tlb + text};
}
/* a datatype's extent and true bounds; the predefined ones' found once */
static inline rp_typespan rp_dtype_span(rp_thread *T, int64_t id) {
  (void)T;
  static rp_typespan predef[128];
  static unsigned char known[128];
  if (id >= 1 && id < 128) {
    if (!known[id]) predef[id] = tfg_span_of(dtype_of(id)), known[id] = 1;
    return predef[id];
  }
  return tfg_span_of(dtype_of(id));
}

MPI_Op rp_op(rp_thread *T, int i) {
  static const MPI_Op *pre;
  static MPI_Op all[32];
  static int n;
  if (!pre) {
#define X(o) all[n++] = o;
    TFG_PREDEFINED_OPS(X)
#undef X
    pre = all;
  }
  int64_t id = scalar(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_OP_NULL;
  if (id >= 1 && id <= n) return pre[id - 1];
  return tfg_get(&tfg_ops, id, "op").op;
}
void rp_op_new(rp_thread *T, int i, MPI_Op o) {
  int64_t id = scalar(T, i);
  if (id > TF_SPECIAL_MAX) tfg_put(&tfg_ops, id, (tfg_handle){.op = o});
}
void rp_op_forget(rp_thread *T, int i) { tfg_drop(&tfg_ops, scalar(T, i)); }

MPI_Group rp_group(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_GROUP_NULL;
  if (id == 1) return MPI_GROUP_EMPTY;
  return tfg_get(&tfg_groups, id, "group").group;
}
void rp_group_new(rp_thread *T, int i, MPI_Group g) {
  int64_t id = scalar(T, i);
  if (id > TF_SPECIAL_MAX && id != 1) tfg_put(&tfg_groups, id, (tfg_handle){.group = g});
}
void rp_group_forget(rp_thread *T, int i) { tfg_drop(&tfg_groups, scalar(T, i)); }

/* requests: a completed non-persistent request leaves the map (MPI set it to MPI_REQUEST_NULL) */
static inline MPI_Request req_of(int64_t id) {
  if (id <= TF_SPECIAL_MAX) return MPI_REQUEST_NULL;
  return tfg_get(&tfg_reqs, id, "request").req;
}
static inline void req_set(int64_t id, MPI_Request r) {
  if (id <= TF_SPECIAL_MAX) return;
  if (r == MPI_REQUEST_NULL) tfg_drop(&tfg_reqs, id);
  else tfg_put(&tfg_reqs, id, (tfg_handle){.req = r});
}
MPI_Request rp_req(rp_thread *T, int i) { return req_of(scalar(T, i)); }
MPI_Request *rp_reqs(rp_thread *T, int i) {
  MPI_Request *a = rp_alloc(T, (T->field[i].n + 1) * sizeof *a);
  for (uint32_t k = 0; k < T->field[i].n; k++) a[k] = req_of(T->field[i].v[k]);
  return a;
}
void rp_req_new(rp_thread *T, int i, MPI_Request r) { req_set(scalar(T, i), r); }
void rp_req_back(rp_thread *T, int i, MPI_Request r) { req_set(scalar(T, i), r); }
void rp_reqs_back(rp_thread *T, int i, const MPI_Request *r) {
  for (uint32_t k = 0; k < T->field[i].n; k++) req_set(T->field[i].v[k], r[k]);
}
void rp_req_forget(rp_thread *T, int i) { req_set(scalar(T, i), MPI_REQUEST_NULL); }

/* ---- MPI-IO files (src/replay/handles.c, io.c): opened under their recorded ids, in a scratch
 * directory the program makes (rank 0, under $TMPDIR), enters after MPI_Init, leaves and removes
 * before MPI_Finalize ---- */
MPI_File rp_file(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  if (id <= TF_SPECIAL_MAX) return MPI_FILE_NULL;
  return tfg_get(&tfg_files, id, "file").file;
}
void rp_file_new(rp_thread *T, int i, MPI_File f) {
  int64_t id = scalar(T, i);
  if (id > TF_SPECIAL_MAX) tfg_put(&tfg_files, id, (tfg_handle){.file = f});
}
void rp_file_forget(rp_thread *T, int i) { tfg_drop(&tfg_files, scalar(T, i)); }
static char tfg_io_dir[4096], tfg_io_cwd[4096];
static inline void tfg_io_begin(void) {
  int failed = 0;
  if (tfg_rank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tfg_io_dir, sizeof tfg_io_dir, "%s/genapp-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tfg_io_dir)) failed = errno;
  }
  PMPI_Bcast(tfg_io_dir, (int)sizeof tfg_io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  PMPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) tfg_die("cannot make a scratch directory for the MPI-IO calls under $TMPDIR: %s", strerror(failed));
  if (!getcwd(tfg_io_cwd, sizeof tfg_io_cwd)) tfg_die("cannot read the working directory: %s", strerror(errno));
  if (chdir(tfg_io_dir) != 0) tfg_die("cannot enter the scratch directory %s: %s", tfg_io_dir, strerror(errno));
}
static inline void tfg_io_end(void) {
  if (chdir(tfg_io_cwd) != 0) tfg_die("cannot return to %s: %s", tfg_io_cwd, strerror(errno));
  PMPI_Barrier(MPI_COMM_WORLD); /* every rank's files closed */
  if (tfg_rank == 0) rp_remove_dir(tfg_io_dir);
}

/* ---- windows: their memory (MPI_Win_create, dynamic regions) the program's; regions known by their
 * number on the window (1, 2, ... in attach order, as recorded) ---- */
typedef struct tfg_win {
  MPI_Win win;
  int rank, group_size;
  void *mem;
  int64_t nregions;
  int over; /* its exposure epoch completed (MPI_Win_test) earlier than recorded */
} tfg_win;
static inline tfg_win *win_of(rp_thread *T, int i) { return tfg_get(&tfg_wins, scalar(T, i), "window").p; }
static inline int64_t region_key(int64_t win, int64_t n) { return (int64_t)((uint64_t)win << 32 | ((uint64_t)n & 0xffffffffu)); }
void *rp_win_mem(rp_thread *T, rp_span s) {
  size_t n = s.hi > 0 ? (size_t)s.hi : 0;
  return rp_alloc_kept(T, n + 64);
}
MPI_Win rp_win(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_WIN_NULL;
  return win_of(T, i)->win;
}
int rp_win_peer(rp_thread *T, int win_i, int i) {
  int64_t v = scalar(T, i), id = scalar(T, win_i);
  if (v == TF_PROC_NULL) return MPI_PROC_NULL;
  if (v <= TF_SPECIAL_MAX) return 0;
  if (id <= TF_SPECIAL_MAX) return (int)v;
  tfg_win *w = win_of(T, win_i);
  int64_t r = w->rank + v;
  if (r < 0 || r >= w->group_size)
    tfg_die("target rank %lld (offset %lld from %d) is outside window %lld of %d ranks", (long long)r, (long long)v,
            w->rank, (long long)id, w->group_size);
  return (int)r;
}
void rp_win_new(rp_thread *T, int i, MPI_Win win, void *mem) {
  int64_t id = scalar(T, i);
  if (id <= TF_SPECIAL_MAX || win == MPI_WIN_NULL) {
    free(mem);
    return;
  }
  tfg_win *w = rp_alloc_kept(T, sizeof *w);
  MPI_Group g = MPI_GROUP_NULL;
  w->win = win;
  w->mem = mem;
  if (PMPI_Win_get_group(win, &g) == MPI_SUCCESS) {
    PMPI_Group_rank(g, &w->rank);
    PMPI_Group_size(g, &w->group_size);
    PMPI_Group_free(&g);
  }
  tfg_put(&tfg_wins, id, (tfg_handle){.p = w});
}
void rp_win_forget(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  tfg_win *w = win_of(T, i);
  for (int64_t n = 1; n <= w->nregions; n++) { /* regions still attached go with it */
    int64_t key = region_key(id, n);
    size_t s = tfg_regions.cap ? tfg_slot(&tfg_regions, key) : 0;
    if (tfg_regions.cap && tfg_regions.ids[s] == key) free(tfg_regions.h[s].p);
    tfg_drop(&tfg_regions, key);
  }
  free(w->mem);
  free(w);
  tfg_drop(&tfg_wins, id);
}
void rp_win_attached(rp_thread *T, int win_i, void *mem) {
  tfg_win *w = win_of(T, win_i);
  tfg_put(&tfg_regions, region_key(scalar(T, win_i), ++w->nregions), (tfg_handle){.p = mem});
}
void *rp_win_region(rp_thread *T, int win_i, int i) {
  int64_t n = scalar(T, i);
  if (n <= TF_SPECIAL_MAX) tfg_die("MPI_Win_detach of a region the recording did not see attached");
  return tfg_get(&tfg_regions, region_key(scalar(T, win_i), n), "region").p;
}
void rp_win_detached(rp_thread *T, int win_i, int i) {
  int64_t key = region_key(scalar(T, win_i), scalar(T, i));
  free(tfg_get(&tfg_regions, key, "region").p);
  tfg_drop(&tfg_regions, key);
}
/* MPI_Win_test (the replay engine makes it itself, src/replay/outcome.c): a test the recording saw
 * succeed waits for the epoch's end; one that succeeds where the recording's failed marks the epoch
 * over, and the MPI_Win_test that saw it succeed or the MPI_Win_wait is then skipped */
static inline int rp_call_Win_test(rp_thread *T) {
  MPI_Win w = rp_win(T, 0);
  int flag = 0, rc = MPI_Win_test(w, &flag);
  T->last_return = rp_now();
  if (rc != MPI_SUCCESS) return rc;
  if (rp_int(T, 1) && !flag) return PMPI_Win_wait(w);
  if (!rp_int(T, 1) && flag) win_of(T, 0)->over = 1;
  return MPI_SUCCESS;
}
static inline int tfg_win_epoch_skip(rp_thread *T, const char *name) {
  int is_wait = strcmp(name, "MPI_Win_wait") == 0;
  if (!is_wait && strcmp(name, "MPI_Win_test") != 0) return 0;
  tfg_win *w = win_of(T, 0);
  if (!w->over) return 0;
  if (is_wait || rp_int(T, 1)) w->over = 0; /* where the recording saw it end */
  return 1;
}
/* MPI_Abort, MPI_Pcontrol and the attached buffer (the replay engine's own calls too) */
static inline int rp_call_Abort(rp_thread *T) { return MPI_Abort(rp_comm(T, 0), rp_int(T, 1)); }
static inline int rp_call_Pcontrol(rp_thread *T) {
  int rc = MPI_Pcontrol(rp_int(T, 0));
  T->last_return = rp_now();
  return rc;
}
static void *tfg_bsend_buf;
static inline int rp_call_Buffer_attach(rp_thread *T) {
  int size = rp_int(T, 0);
  tfg_bsend_buf = rp_alloc_kept(T, size > 0 ? (size_t)size : 1);
  int rc = MPI_Buffer_attach(tfg_bsend_buf, size);
  T->last_return = rp_now();
  return rc;
}
static inline int rp_call_Buffer_detach(rp_thread *T) {
  void *b = NULL;
  int size = 0, rc = MPI_Buffer_detach(&b, &size);
  T->last_return = rp_now();
  if (rc == MPI_SUCCESS && b == tfg_bsend_buf) free(b), tfg_bsend_buf = NULL;
  return rc;
}

/* ---- what the recording saw ---- */
static TFG_LOCAL int tfg_mprobe_held; /* this MPI_Mprobe takes a message an earlier poll took (rp_outcome_before) */
int rp_peer(rp_thread *T, MPI_Comm comm, int i, int src, int req) {
  (void)req; /* a wildcard receive request's source is told by a later completion: kept as a wildcard */
  if (tfg_mprobe_held) return MPI_PROC_NULL;
  int64_t v = scalar(T, i);
  if (v == TF_PROC_NULL) return MPI_PROC_NULL;
  if (v == TF_ROOT) return MPI_ROOT;
  if (v == TF_ANY_SOURCE) {
    if (T->any_source || src < 0 || !T->field[src].n) return MPI_ANY_SOURCE;
    v = T->field[src].v[0];
    if (v <= TF_SPECIAL_MAX) return v == TF_PROC_NULL ? MPI_PROC_NULL : MPI_ANY_SOURCE;
  }
  if (v <= TF_SPECIAL_MAX) return 0;
  return (int)(rp_comm_rank(comm) + v);
}
static inline int tfg_field_of_kind(const rp_thread *T, unsigned kind) {
  for (uint32_t i = 0; i < T->nf; i++)
    if (T->kinds[i] == kind) return (int)i;
  return -1;
}
/* ---- matched messages ---- */
MPI_Message rp_msg(rp_thread *T, int i) {
  int64_t id = scalar(T, i);
  if (id == TF_PROC_NULL) return MPI_MESSAGE_NO_PROC;
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_MESSAGE_NULL;
  return tfg_get(&tfg_msgs, id, "message").msg;
}
void rp_msg_forget(rp_thread *T, int i) { tfg_drop(&tfg_msgs, scalar(T, i)); }
/* Messages a polling MPI_Improbe took where the recording's found nothing
 * (it cannot be made to find nothing once the message is there): kept, in
 * the order taken, for the probe that took it in the recording. */
typedef struct tfg_early_msg {
  MPI_Comm comm;
  int source, tag; /* the message's own (its status), or the probe's (MPI_ANY_*) when it kept no status */
  MPI_Message msg;
} tfg_early_msg;
static TFG_LOCAL tfg_early_msg *tfg_early;
static TFG_LOCAL size_t tfg_nearly, tfg_early_cap;
static inline int tfg_early_find(MPI_Comm comm, int source, int tag) { /* the first kept one a probe would match; -1 */
  for (size_t k = 0; k < tfg_nearly; k++) {
    const tfg_early_msg *e = &tfg_early[k];
    if (e->comm == comm && (source == MPI_ANY_SOURCE || e->source == MPI_ANY_SOURCE || source == e->source) &&
        (tag == MPI_ANY_TAG || e->tag == MPI_ANY_TAG || tag == e->tag))
      return (int)k;
  }
  return -1;
}
/* the probe's source, tag and communicator as called (fields: source, tag, comm, ...) */
static inline int tfg_probe_source(rp_thread *T) { return rp_peer(T, rp_comm(T, 2), 0, tfg_field_of_kind(T, TF_K_SRC), -1); }
static inline void tfg_early_keep(rp_thread *T, MPI_Message m) {
  int st = tfg_field_of_kind(T, TF_K_SRC);
  int kept = st >= 0 && T->field[st].n && T->field[st].v[0] != TF_NONE; /* rp_status gave &T->status */
  if (tfg_nearly == tfg_early_cap) {
    tfg_early_cap = tfg_early_cap ? 2 * tfg_early_cap : 8;
    tfg_early = realloc(tfg_early, tfg_early_cap * sizeof *tfg_early);
    if (!tfg_early) tfg_die("out of memory");
  }
  tfg_early[tfg_nearly++] = (tfg_early_msg){rp_comm(T, 2), kept ? T->status.MPI_SOURCE : tfg_probe_source(T),
                                            kept ? T->status.MPI_TAG : rp_tag(T, 1), m};
}
void rp_msg_new(rp_thread *T, int i, MPI_Message m) {
  int64_t id = scalar(T, i);
  if (tfg_mprobe_held) m = MPI_MESSAGE_NULL; /* it was made on MPI_PROC_NULL: takes the held message below */
  tfg_mprobe_held = 0;
  int probe = strcmp(T->fname, "MPI_Improbe") == 0 || strcmp(T->fname, "MPI_Mprobe") == 0;
  if (probe && m != MPI_MESSAGE_NULL && id <= TF_SPECIAL_MAX) { /* found where the recording found nothing */
    tfg_early_keep(T, m);
    return;
  }
  int k = probe && id > TF_SPECIAL_MAX ? tfg_early_find(rp_comm(T, 2), tfg_probe_source(T), rp_tag(T, 1)) : -1;
  if (k >= 0) { /* the recording took here the message an earlier probe took: that one */
    MPI_Message later = m;
    m = tfg_early[k].msg;
    memmove(&tfg_early[k], &tfg_early[k + 1], (tfg_nearly - (size_t)k - 1) * sizeof *tfg_early);
    tfg_nearly--;
    if (later != MPI_MESSAGE_NULL) tfg_early_keep(T, later); /* and this probe took the next one: kept in turn */
  }
  if (id > TF_SPECIAL_MAX && m != MPI_MESSAGE_NULL) tfg_put(&tfg_msgs, id, (tfg_handle){.msg = m});
}
/* A probe the recording saw find a message waits for it (PMPI_Probe), so it finds it too, unless an
 * earlier probe took that message already (above). */
static inline void tfg_probe_before(rp_thread *T) {
  if (scalar(T, tfg_field_of_kind(T, TF_K_FLAG)) != 1) return;
  MPI_Comm comm = rp_comm(T, 2);
  int source = tfg_probe_source(T), tag = rp_tag(T, 1);
  if (tfg_early_find(comm, source, tag) < 0) PMPI_Probe(source, tag, comm, MPI_STATUS_IGNORE);
}

/* Completions (src/replay/outcome.c, the replay engine's way): before a
 * test or an any/some call, wait (MPI_Request_get_status, not recorded)
 * until the requests the recording completed are complete, so the call
 * reports them; an MPI_Waitany/Testany/Waitsome/Testsome that reported
 * requests is given MPI_REQUEST_NULL in every other entry, so it reports
 * exactly the recorded ones (the program's own trace shows those entries
 * as null). After the call, a request the recording completed there but
 * the call did not is completed (PMPI_Wait), and one the call completed
 * earlier than recorded stays known, as MPI_REQUEST_NULL, until the call
 * that completed it in the recording. */
typedef struct tfg_completion {
  int reqs;       /* field of the request(s); -1: none */
  uint32_t n;     /* their number */
  uint8_t *done;  /* per request: the recording completed it here */
} tfg_completion;
static TFG_LOCAL uint8_t *tfg_hidden; /* per request of the current any/some call: given as MPI_REQUEST_NULL */

static inline tfg_completion tfg_recorded(rp_thread *T) {
  tfg_completion c = {tfg_field_of_kind(T, TF_K_REQ), 0, NULL};
  if (c.reqs < 0) return c;
  int flag = tfg_field_of_kind(T, TF_K_FLAG), index = tfg_field_of_kind(T, TF_K_INDEX);
  int64_t F = flag >= 0 ? scalar(T, flag) : 1;
  c.n = T->field[c.reqs].n;
  c.done = rp_alloc(T, (size_t)c.n + 1);
  if (strcmp(T->fname, "MPI_Request_get_status") == 0) return c; /* it completes no request */
  if (index >= 0) {                                              /* Waitany, Testany: index; *some: indices */
    const tf_field_value *ix = &T->field[index];
    for (uint32_t k = 0; k < ix->n; k++)
      if (F == 1 && ix->v[k] >= 0 && ix->v[k] < (int64_t)c.n) c.done[ix->v[k]] = 1;
  } else if (F == 1) {
    memset(c.done, 1, c.n);
  }
  return c;
}
void rp_outcome_before(rp_thread *T, int fn, MPI_Request *reqs) {
  (void)fn;
  tfg_hidden = NULL;
  tfg_mprobe_held = 0;
  if (strcmp(T->fname, "MPI_Mprobe") == 0) {
    /* A failed MPI_Improbe poll before it may have taken its message (kept): the blocking probe would
     * wait for a message that will not come again. It is made on MPI_PROC_NULL (it returns at once)
     * and takes the kept message (rp_msg_new), as the replay engine does; its own trace then shows
     * MPI_PROC_NULL's source and status. */
    tfg_mprobe_held = tfg_early_find(rp_comm(T, 2), tfg_probe_source(T), rp_tag(T, 1)) >= 0;
    return;
  }
  if (strcmp(T->fname, "MPI_Iprobe") == 0 || strcmp(T->fname, "MPI_Improbe") == 0) {
    tfg_probe_before(T);
    return;
  }
  if (strcmp(T->fname, "MPI_Parrived") == 0) { /* fields: request, partition, flag; completes no request */
#if MPI_VERSION >= 4
    MPI_Request r = rp_req(T, 0);
    int arrived = 0;
    if (scalar(T, 2) == 1)
      while (r != MPI_REQUEST_NULL && PMPI_Parrived(r, rp_int(T, 1), &arrived) == MPI_SUCCESS && !arrived) {
      }
#endif
    return;
  }
  if (strcmp(T->fname, "MPI_Wait") == 0 || strcmp(T->fname, "MPI_Waitall") == 0)
    return; /* they block until done anyway (and MPI_Request_get_status need not progress an MPI-IO request) */
  tfg_completion c = tfg_recorded(T);
  if (strcmp(T->fname, "MPI_Request_get_status") == 0 && scalar(T, tfg_field_of_kind(T, TF_K_FLAG)) == 1)
    memset(c.done, 1, c.n);
  int reported = 0;
  for (uint32_t k = 0; k < c.n; k++) {
    int complete = 0;
    if (!c.done[k]) continue;
    reported = 1;
    MPI_Request r = reqs ? reqs[k] : req_of(T->field[c.reqs].v[k]);
    while (r != MPI_REQUEST_NULL && PMPI_Request_get_status(r, &complete, MPI_STATUS_IGNORE) == MPI_SUCCESS && !complete) {
    }
  }
  int any_or_some = strcmp(T->fname, "MPI_Waitany") == 0 || strcmp(T->fname, "MPI_Testany") == 0 ||
                    strcmp(T->fname, "MPI_Waitsome") == 0 || strcmp(T->fname, "MPI_Testsome") == 0;
  if (!any_or_some || !reported || !reqs) return;
  tfg_hidden = rp_alloc(T, c.n + 1);
  for (uint32_t k = 0; k < c.n; k++)
    if (!c.done[k]) tfg_hidden[k] = 1, reqs[k] = MPI_REQUEST_NULL;
}
void rp_outcome_after(rp_thread *T, int fn, int rc, MPI_Request *live) {
  (void)fn;
  if (rc != MPI_SUCCESS || !live || strcmp(T->fname, "MPI_Parrived") == 0) return;
  tfg_completion c = tfg_recorded(T);
  for (uint32_t k = 0; k < c.n; k++) {
    int64_t id = T->field[c.reqs].v[k];
    MPI_Request r = live[k];
    if (id <= TF_SPECIAL_MAX || (tfg_hidden && tfg_hidden[k])) continue;
    if (c.done[k] && r != MPI_REQUEST_NULL) PMPI_Wait(&r, MPI_STATUS_IGNORE); /* persistent: stays, inactive */
    if (!c.done[k] && r == MPI_REQUEST_NULL) tfg_put(&tfg_reqs, id, (tfg_handle){.req = r}); /* done early */
    else req_set(id, r);
  }
  tfg_hidden = NULL;
}

/* ---- one call ---- */
/* Undo the request-id transform (src/core/fold/request_transform.c) on the
 * event's values, in order: created ids are stored as their distance from
 * the next expected id, used ones as their distance back from the last
 * created. */
#define TFG_NSPECIAL 7u
#define TFG_RING_M ((uint64_t)0 - TFG_NSPECIAL)
static inline uint64_t tfg_D(int64_t v) { return (uint64_t)v - (uint64_t)(TF_SPECIAL_MAX + 1); }
static inline int64_t tfg_Dinv(uint64_t d) { return (int64_t)(d + (uint64_t)(TF_SPECIAL_MAX + 1)); }
static inline uint64_t tfg_ring_sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + (TFG_RING_M - b); }
static inline uint64_t tfg_ring_add(uint64_t a, uint64_t b) { return b >= TFG_RING_M - a ? b - (TFG_RING_M - a) : a + b; }
static inline uint64_t tfg_load(int64_t s) { return s >= 0 ? (uint64_t)s : (uint64_t)s - TFG_NSPECIAL; }

/* The event's request ids, decoded in place; *last: the transform's state. */
static inline void tfg_req_decode(rp_thread *T, int64_t *last_req) {
  for (uint32_t k = 0; k < T->nf; k++) {
    if (T->kinds[k] != TF_K_REQ && T->kinds[k] != TF_K_REQ_NEW) continue;
    int64_t *w = (int64_t *)T->field[k].v; /* the caller's values, writable */
    for (uint32_t j = 0; j < T->field[k].n; j++) {
      if (w[j] <= TF_SPECIAL_MAX) continue;
      uint64_t last = tfg_D(*last_req);
      if (T->kinds[k] == TF_K_REQ_NEW) {
        w[j] = tfg_Dinv(tfg_ring_add(tfg_ring_add(last, 1), tfg_load(w[j])));
        *last_req = w[j];
      } else {
        w[j] = tfg_Dinv(tfg_ring_sub(last, tfg_load(w[j])));
      }
    }
  }
}

/* ---- shared requests (TFG_SHARED_REQUESTS: the recording's threads made requests on several threads,
 * or completed each other's; doc/GENAPP.md "Threads"). The trace numbers a rank's requests across its
 * threads, each id relative to the rank's previous one (the transform above), so the threads read
 * their request events' ids in the rank's recorded order: a thread's k-th request event (a call with a
 * request field) waits until the events before it in that order, on any thread, have been read
 * (tfg_req_order: this thread's places in it, from the generator). And the events naming one request
 * (its creation, starts, tests, completion, free) run in their recorded order: each waits until the
 * ones before it have returned (a start of a persistent request until the other thread's wait on it,
 * that wait until the start). Neither wait holds a thread longer than the recording's order did: a
 * call that creates or starts a request does not block, and the one before it in the order completed
 * before it was recorded. The request map is shared (locked). ---- */
#if TFG_SHARED_REQUESTS
static TFG_LOCAL tfg_vset *tfg_req_order; /* this thread's places in the rank's order of request events */
static uint64_t tfg_req_read;             /* the rank's request events read so far */
static int64_t tfg_req_last;              /* the transform's state, the rank's */
typedef struct tfg_req_turn {             /* per request: the events naming it */
  int64_t id;                             /* 0: empty slot */
  uint32_t given, ran;                    /* read (their places handed out), returned */
} tfg_req_turn;
static tfg_req_turn *tfg_turns;
static size_t tfg_turns_cap, tfg_turns_used;

static inline tfg_req_turn *tfg_turn_of(int64_t id) { /* locked */
  if ((tfg_turns_used + 1) * 2 > tfg_turns_cap) {
    size_t cap = tfg_turns_cap ? 2 * tfg_turns_cap : 256;
    tfg_req_turn *g = calloc(cap, sizeof *g);
    if (!g) tfg_die("out of memory");
    for (size_t i = 0; i < tfg_turns_cap; i++)
      if (tfg_turns[i].id) {
        size_t j = tfg_home(tfg_turns[i].id, cap);
        while (g[j].id) j = (j + 1) & (cap - 1);
        g[j] = tfg_turns[i];
      }
    free(tfg_turns);
    tfg_turns = g, tfg_turns_cap = cap;
  }
  size_t i = tfg_home(id, tfg_turns_cap);
  while (tfg_turns[i].id && tfg_turns[i].id != id) i = (i + 1) & (tfg_turns_cap - 1);
  if (!tfg_turns[i].id) tfg_turns[i].id = id, tfg_turns_used++;
  return &tfg_turns[i];
}

/* The requests an event names, each once (into ids[0..n)), and each one's place among its events. */
typedef struct tfg_named {
  int64_t *ids;
  uint32_t *place;
  uint32_t n;
} tfg_named;

static inline tfg_named tfg_req_begin(rp_thread *T) {
  if (!tfg_req_order) tfg_die("thread %d makes a request event the trace does not give it", tfg_thread);
  uint64_t mine = (uint64_t)tfg_next(tfg_req_order);
  double until = 0;
  pthread_mutex_lock(&tfg_objects);
  while (tfg_req_read != mine)
    if (!tfg_wait_change(&until))
      tfg_die("thread %d waited a minute for the rank's request event %llu (its own is %llu)", tfg_thread,
              (unsigned long long)tfg_req_read, (unsigned long long)mine);
  tfg_req_decode(T, &tfg_req_last);
  uint32_t total = 0;
  for (uint32_t k = 0; k < T->nf; k++)
    if (T->kinds[k] == TF_K_REQ || T->kinds[k] == TF_K_REQ_NEW) total += T->field[k].n;
  tfg_named e = {rp_alloc(T, (total + 1) * sizeof *e.ids), rp_alloc(T, (total + 1) * sizeof *e.place), 0};
  for (uint32_t k = 0; k < T->nf; k++) {
    if (T->kinds[k] != TF_K_REQ && T->kinds[k] != TF_K_REQ_NEW) continue;
    for (uint32_t j = 0; j < T->field[k].n; j++) {
      int64_t id = T->field[k].v[j];
      uint32_t seen = 0;
      while (seen < e.n && e.ids[seen] != id) seen++;
      if (id <= TF_SPECIAL_MAX || seen < e.n) continue;
      e.ids[e.n] = id;
      e.place[e.n++] = tfg_turn_of(id)->given++;
    }
  }
  tfg_req_read++;
  pthread_cond_broadcast(&tfg_made);
  for (uint32_t i = 0; i < e.n; i++) /* the events before this one that name its requests have returned */
    while (tfg_turn_of(e.ids[i])->ran != e.place[i])
      if (!tfg_wait_change(&until))
        tfg_die("thread %d waited a minute for request %lld's event %u before this one", tfg_thread,
                (long long)e.ids[i], (unsigned)e.place[i]);
  pthread_mutex_unlock(&tfg_objects);
  return e;
}
static inline void tfg_req_end(tfg_named e) {
  pthread_mutex_lock(&tfg_objects);
  for (uint32_t i = 0; i < e.n; i++) tfg_turn_of(e.ids[i])->ran++;
  pthread_cond_broadcast(&tfg_made);
  pthread_mutex_unlock(&tfg_objects);
}
#endif

typedef int (*tfg_call_fn)(rp_thread *T);
/* Issue one recorded call: values v[0..nv) of function `name`, whose
 * fields have kinds[] and are arrays where arrays[] says. */
static inline void tfg_call(const char *name, const unsigned char *kinds, const unsigned char *arrays, uint32_t nfields,
                     tfg_call_fn call, int64_t *v, uint32_t nv) {
  rp_thread *T = &tfg_T;
  int names_reqs = 0;
  T->fname = name;
  T->kinds = kinds;
  T->nf = nfields;
  uint32_t at = 0;
  for (uint32_t k = 0; k < nfields; k++) {
    tf_field_value *f = &T->field[k];
    f->desc = arrays[k] ? &tfg_array_field : &tfg_scalar_field;
    if (arrays[k]) {
      if (at >= nv || v[at] < 0 || (uint64_t)v[at] > nv - at - 1) tfg_die("the values do not fit the fields");
      f->n = (uint32_t)v[at];
      f->v = &v[at + 1];
      at += 1 + f->n;
    } else {
      if (at >= nv) tfg_die("the values do not fit the fields");
      f->n = 1;
      f->v = &v[at++];
    }
    names_reqs |= kinds[k] == TF_K_REQ || kinds[k] == TF_K_REQ_NEW;
  }
  if (at != nv) tfg_die("the values do not fit the fields");
#if TFG_SHARED_REQUESTS
  tfg_named named = {NULL, NULL, 0};
  if (names_reqs) named = tfg_req_begin(T);
#else
  if (names_reqs) tfg_req_decode(T, &T->last_req);
#endif
  int rc = MPI_SUCCESS;
  T->status.MPI_SOURCE = MPI_ANY_SOURCE; /* set by a call that fills it: MPI_Get_count reads it (rp_last_status) */
  if (tfg_win_epoch_skip(T, name)) T->last_return = rp_now(); /* an exposure epoch that ended earlier */
  else rc = call(T);
  if (rc != MPI_SUCCESS) tfg_die("the call failed (MPI error %d)", rc);
#if TFG_SHARED_REQUESTS
  if (names_reqs) tfg_req_end(named);
#endif
#if TFG_NTHREADS > 1
  atomic_fetch_add_explicit(&tfg_done[tfg_thread], 1, memory_order_release);
#endif
  if (T->status.MPI_SOURCE != MPI_ANY_SOURCE) T->last_status = T->status;
  for (int k = 0; k < T->nscratch; k++) free(T->scratch[k]);
  T->nscratch = 0;
  T->fname = NULL;
}

/* ---- compute: busy-wait until `ns` x scale after the previous call returned ---- */
static double tfg_scale = 1;
static inline void tfg_compute(double ns) {
  if (ns <= 0 || tfg_scale <= 0) return;
  double until = tfg_T.last_return + ns * 1e-9 * tfg_scale;
  while (rp_now() < until) {
  }
}
/* A draw from a histogram of delays: bins {mean, n} (ns); a bin is drawn with probability n / total
 * (xorshift), and spends its mean. */
typedef struct tfg_bin {
  double mean, n;
} tfg_bin;
static TFG_LOCAL uint64_t tfg_seed = 0x9E3779B97F4A7C15ull;
static inline double tfg_draw(const tfg_bin *b, int nb) {
  double total = 0;
  for (int i = 0; i < nb; i++) total += b[i].n;
  tfg_seed ^= tfg_seed << 13, tfg_seed ^= tfg_seed >> 7, tfg_seed ^= tfg_seed << 17;
  double u = (double)(tfg_seed >> 11) / 9007199254740992.0 * total;
  for (int i = 0; i < nb; i++) {
    if (u < b[i].n || i == nb - 1) return b[i].mean;
    u -= b[i].n;
  }
  return 0;
}
typedef struct tfg_hist {
  const tfg_bin *bins;
  int n;
} tfg_hist;

/* The constant a table of (ranks, constant) pairs gives this rank (0: none). */
static inline int64_t tfg_pick(tfg_vset *s) {
  if (s->mine < 0)
    for (int32_t p = 0; p < s->npairs && s->mine < 0; p++)
      if (tfg_member(&s->pairs[p].ranks, tfg_rank)) s->mine = p;
  return s->mine < 0 ? 0 : s->pairs[s->mine].values.items[0].base;
}

/* ---- threads (TFG_NTHREADS > 1): started after MPI_Init_thread, joined before MPI_Finalize ---- */
#if TFG_NTHREADS > 1
static int tfg_any_source; /* --any-source, for every thread */
static pthread_t tfg_tid[TFG_NTHREADS];
/* Before a call that frees an object: until every other thread has made the calls the recording
 * completed before it, the thread's next TFG_NTHREADS values of w (its own entry unused). */
static inline void tfg_wait_others(tfg_vset *w) {
  uint64_t need[TFG_NTHREADS];
  for (int t = 0; t < TFG_NTHREADS; t++) need[t] = (uint64_t)tfg_next(w);
  double give_up = rp_now() + 60;
  for (int t = 0; t < TFG_NTHREADS; t++)
    while (t != tfg_thread && atomic_load_explicit(&tfg_done[t], memory_order_acquire) < need[t]) {
      if (rp_now() > give_up)
        tfg_die("thread %d waited a minute for thread %d's call %llu before freeing (it made %llu)", tfg_thread, t,
                (unsigned long long)need[t], (unsigned long long)atomic_load(&tfg_done[t]));
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
}
/* the first lines of thread t's function */
static inline void tfg_thread_begin(int t) {
  tfg_thread = t;
  tfg_T.any_source = tfg_any_source;
  tfg_seed ^= (uint64_t)t * 0xD1B54A32D192ED03ull; /* draws of its own */
  tfg_T.last_return = rp_now();
}
static inline void tfg_threads_start(void *(*const *mains)(void *)) {
  atomic_store(&tfg_done[0], 1); /* MPI_Init_thread */
  tfg_any_source = tfg_T.any_source;
  for (int t = 1; t < TFG_NTHREADS; t++)
    if (pthread_create(&tfg_tid[t], NULL, mains[t], NULL) != 0) tfg_die("cannot start thread %d", t);
}
static inline void tfg_threads_join(void) {
  for (int t = 1; t < TFG_NTHREADS; t++) pthread_join(tfg_tid[t], NULL);
}
#endif
