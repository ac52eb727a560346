/* tracefold.h — the public API of the tracefold trace library.
 *
 * tracefold records every MPI call of a program (see doc/RECORDED.md) and
 * stores it as a trace. This header is the whole public surface for reading
 * traces; the recorder (libtracefold.so) writes them.
 *
 * Event model. An event is one completed MPI call on one rank:
 *   fn        index into the trace's function table (tf_func_desc), which
 *             names the function and the fields of its parameter vector;
 *   thread    0 for the thread that called MPI_Init, then 1, 2, ... in the
 *             order threads first call MPI;
 *   callsite  64-bit call-site signature, identical on every rank of one
 *             binary (hash of module name and module-relative address);
 *   compute_ns   time from the return of the previous MPI call on this
 *             thread to the program to this call (monotonic clock; the
 *             recorder's own work around calls is in neither delta);
 *   duration_ns  the call's own duration;
 *   vals      the parameter vector laid out by the function's field list:
 *             a scalar field takes one value, an array field takes its
 *             length n followed by n values (tf_event_fields splits it).
 *
 * The public API is exactly the functions declared TF_API in this header
 * (and its types and macros). Other tf_* names, declared in the headers of
 * src/core and src/recorder, are internal: they change without notice, and
 * libtracefold.so, built with -fvisibility=hidden, does not export them (it
 * exports only the MPI entry points it intercepts and TF_API functions; the
 * test unit.exports checks it). A new public function is declared here,
 * with TF_API.
 *
 * Return values: one convention throughout. Nothing here aborts.
 *   tf_status  functions that open or list something: TF_OK (0), or a
 *              negative TF_ERR_* with a message naming the file (or rank)
 *              and the problem written into err (err may be NULL; errlen
 *              is its size); and tf_event_fields, which checks values
 *              against a function's fields and has no message to give.
 *   int        the next item of a reader: 1 and the item, 0 at the end, -1
 *              when the data turns out malformed while reading, or memory
 *              runs short (tf_file_next, tf_rank_cursor_next,
 *              tf_timeline_find; the reader's *_error function says why);
 *              a question: 1 yes, 0 no (tf_trace_rank, tf_node_has_rank,
 *              tf_node_values_of);
 *              an operation that fills an out-parameter: 0 done, -1 not
 *              possible (tf_node_path).
 *   uint32_t   counts: how many items exist (tf_trace_top, tf_node_values,
 *              tf_node_paths); 0 when there are none.
 *   other      values, never errors: tf_version_number, tf_timeline_end.
 *   pointers   getters return memory owned by the object they are given,
 *              valid until it is closed; never NULL unless the comment says
 *              so. Names (tf_*_name) are static strings, "?" (or "unknown
 *              error") when out of range.
 *   void       close functions accept NULL; formatting functions write a
 *              NUL-terminated string, truncated to the buffer's length.
 */
#ifndef TRACEFOLD_H
#define TRACEFOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- export and version ------------------------------------------------- */
#ifndef TF_API
#if defined(__GNUC__) || defined(__clang__)
#define TF_API __attribute__((visibility("default")))
#else
#define TF_API
#endif
#endif

/* The library version: the project version (src/core/CMakeLists.txt checks
 * that they agree). The file formats have their own versions below. */
#define TF_VERSION_MAJOR 0
#define TF_VERSION_MINOR 1
#define TF_VERSION_PATCH 0
#define TF_VERSION_NUMBER (TF_VERSION_MAJOR * 10000 + TF_VERSION_MINOR * 100 + TF_VERSION_PATCH)
#define TF_QUOTE_(x) #x
#define TF_EXPAND_AND_QUOTE_(x) TF_QUOTE_(x)
#define TF_VERSION_STRING TF_EXPAND_AND_QUOTE_(TF_VERSION_MAJOR.TF_VERSION_MINOR.TF_VERSION_PATCH) /* "0.1.0" */

/* TF_VERSION_NUMBER of the library linked at run time (this header's may differ). */
TF_API unsigned tf_version_number(void);

/* ---- special parameter values ------------------------------------------ */
/* Values outside any real rank offset, tag, count or id. */
#define TF_NONE        INT64_MIN               /* not significant for this call/rank */
#define TF_ANY_SOURCE  (INT64_MIN + 1)         /* MPI_ANY_SOURCE */
#define TF_PROC_NULL   (INT64_MIN + 2)         /* MPI_PROC_NULL */
#define TF_ROOT        (INT64_MIN + 3)         /* MPI_ROOT (intercommunicator root) */
#define TF_ANY_TAG     (INT64_MIN + 4)         /* MPI_ANY_TAG */
#define TF_UNDEFINED   (INT64_MIN + 5)         /* MPI_UNDEFINED (index, color, ...) */
#define TF_NULL_HANDLE (INT64_MIN + 6)         /* a null or unknown MPI object */
#define TF_SPECIAL_MAX (INT64_MIN + 6)         /* values <= this are special */

/* One-sided communication: MPI's assertion bits (MPI_MODE_*) and lock types
 * differ between MPI libraries; traces hold these portable values. */
#define TF_MODE_NOCHECK   1
#define TF_MODE_NOSTORE   2
#define TF_MODE_NOPUT     4
#define TF_MODE_NOPRECEDE 8
#define TF_MODE_NOSUCCEED 16
#define TF_LOCK_EXCLUSIVE 1
#define TF_LOCK_SHARED    2

/* ---- field kinds: what a parameter slot means ---------------------------- */
typedef enum tf_field_kind {
  TF_FIELD_INT = 0,     /* plain integer argument (color, key, ndims, ...) */
  TF_FIELD_COMM,        /* communicator id (1 world, 2 self, derived >= 16, TF_NULL_HANDLE null/unknown) */
  TF_FIELD_COMM_NEW,    /* communicator id created by the call */
  TF_FIELD_PEER,        /* peer rank as offset from the caller's rank in comm */
  TF_FIELD_ROOT,        /* root rank in comm (absolute) */
  TF_FIELD_TAG,         /* message tag */
  TF_FIELD_COUNT,       /* element count */
  TF_FIELD_DTYPE,       /* datatype id (predefined < 1000 <= derived) */
  TF_FIELD_DTYPE_NEW,   /* datatype id created by the call */
  TF_FIELD_DTSIZE,      /* datatype size in bytes (MPI_Type_size) */
  TF_FIELD_BYTES,       /* payload bytes: count x size (summed for v/w forms) */
  TF_FIELD_OP,          /* reduction op id */
  TF_FIELD_OP_NEW,      /* op id created by the call */
  TF_FIELD_REQ,         /* request id used or completed by the call */
  TF_FIELD_REQ_NEW,     /* request id created by the call */
  TF_FIELD_GROUP,       /* group id */
  TF_FIELD_GROUP_NEW,   /* group id created by the call */
  TF_FIELD_MSG,         /* matched-message id (MPI_Mrecv) */
  TF_FIELD_MSG_NEW,     /* matched-message id created (MPI_Mprobe) */
  TF_FIELD_FLAG,        /* outcome flag (MPI_Test, MPI_Iprobe, ...) */
  TF_FIELD_INDEX,       /* outcome index/indices (MPI_Waitany, MPI_Waitsome, ...) */
  TF_FIELD_SRC,         /* matched source, as offset from the caller (status) */
  TF_FIELD_MTAG,        /* matched tag (status) */
  TF_FIELD_MBYTES,      /* matched message size in bytes (status) */
  TF_FIELD_INPLACE,     /* 1 if the send buffer was MPI_IN_PLACE */
  TF_FIELD_WIN,         /* window id (one-sided communication) */
  TF_FIELD_WIN_NEW,     /* window id created by the call */
  TF_FIELD_FILE,        /* MPI-IO file id (the same on every rank that opened it together) */
  TF_FIELD_FILE_NEW,    /* file id opened by the call */
  TF_FIELD_NAME,        /* a string (file name, data representation): an array of its characters */
  TF_FIELD_KIND_COUNT
} tf_field_kind;

typedef struct tf_field_desc {
  const char *name;     /* the MPI parameter it comes from, e.g. "dest" */
  uint8_t kind;         /* tf_field_kind */
  uint8_t is_array;     /* 1: length-prefixed array */
} tf_field_desc;

typedef struct tf_func_desc {
  const char *name;     /* "MPI_Send" */
  uint32_t nfields;
  const tf_field_desc *fields;
} tf_func_desc;

typedef struct tf_event {
  uint32_t fn;
  uint32_t thread;
  uint64_t callsite;
  uint64_t compute_ns;
  uint64_t duration_ns;
  uint32_t nvals;
  const int64_t *vals;  /* owned by the reader; valid until the next call */
} tf_event;

typedef struct tf_callsite {
  uint64_t sig;         /* signature as stored in events */
  const char *module;   /* path of the module (executable or library) */
  uint64_t offset;      /* return address relative to the module's load base */
} tf_callsite;

/* ---- errors --------------------------------------------------------------- */
typedef enum tf_status {
  TF_OK = 0,
  TF_ERR_IO = -1,        /* cannot open/read/write */
  TF_ERR_FORMAT = -2,    /* not a tracefold file, or malformed content */
  TF_ERR_VERSION = -3,   /* a format version this reader does not know */
  TF_ERR_TRUNCATED = -4, /* the file ends early */
  TF_ERR_CHECKSUM = -5,  /* content does not match its checksum */
  TF_ERR_NOMEM = -6,
  TF_ERR_ARG = -7        /* bad argument */
} tf_status;

/* "ok", "I/O error", ...; "unknown error" if s is not a tf_status. */
TF_API const char *tf_status_name(tf_status s);

/* ---- an event's fields ----------------------------------------------------
 * The one way to split an event's value vector into its function's fields
 * (scalar: one value; array: its length n, then n values). */
typedef struct tf_field_value {
  const tf_field_desc *desc; /* the field: &fd->fields[k] */
  uint32_t n;                /* how many values: 1 for a scalar, the length for an array */
  const int64_t *v;          /* the first of them, inside vals (an empty array: just past its length) */
} tf_field_value;

/* Split vals (nvals values of an event of function fd, e.g. tf_event.vals
 * and .nvals) into fd's fields: field k into out[k]. out has room for
 * fd->nfields entries, or is NULL to only check. Returns TF_OK when the
 * values fit the fields exactly; TF_ERR_FORMAT when they do not (a field
 * finds no value left, an array length is negative or longer than the
 * values after it, or values remain after the last field): out then holds
 * every field up to the first that does not fit, and that one and the
 * ones after it have n = 0 and v = NULL (desc is always set). TF_ERR_ARG
 * if fd is NULL, or vals is NULL with nvals > 0. Nothing is copied: out
 * points into vals. */
TF_API tf_status tf_event_fields(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, tf_field_value *out);

/* 1 if field f is best shown as "text": a string field (TF_FIELD_NAME: an
 * MPI-IO file name) of printable ASCII characters other than '"' and '\\'
 * (tracefold dump/unroll and the event flow graph checks print it so);
 * else 0 (print its values). */
TF_API int tf_field_is_text(const tf_field_value *f);

/* Human-readable kind name ("peer", "tag", ...); "?" if out of range. */
TF_API const char *tf_field_kind_name(unsigned kind);

/* Format a parameter value for display ("ANY_SOURCE", "-1", "-" for TF_NONE, ...). */
TF_API void tf_format_value(int64_t v, char *buf, size_t len);

/* ---- per-rank trace files: flat (reference) or compressed ------------------
 * A flat file holds every event as it happened. A compressed file holds
 * the same events folded into nested loops whose parameters are value
 * sequences (doc/FOLDING.md); reading it unrolls them, event for event.
 * Both share one container (doc/FORMAT.md) and this reader. */
#define TF_FLAT_MAGIC "TFFLAT\r\n"
#define TF_COMP_MAGIC "TFCOMP\r\n"
#define TF_FLAT_VERSION 3 /* 3: the run's identity (doc/FORMAT.md); readers also read version 2 (TF_VERSION_OLDEST) */
#define TF_COMP_VERSION 4 /* 4: only the functions used, declared by records (doc/FORMAT.md 2.1); 3: the run's identity, streams per thread (2.7); readers also read 2 and 3 */
#define TF_VERSION_OLDEST 2 /* the oldest version of each format the readers still read */

typedef enum tf_file_kind { TF_FILE_FLAT = 0, TF_FILE_COMPRESSED = 1 } tf_file_kind;

/* Why a per-rank file was written without a merge (tf_file_info.partial). */
#define TF_PARTIAL_ABORT 1  /* the application called MPI_Abort */
#define TF_PARTIAL_SIGNAL 2 /* SIGTERM or SIGINT */
#define TF_PARTIAL_EXIT 3   /* the process exited without MPI_Finalize */
#define TF_PARTIAL_CHECKPOINT 4 /* a periodic checkpoint (TRACEFOLD_CHECKPOINT): the rank was killed before it
                                   could write more; its calls after the checkpoint are missing */

/* What a compressed trace keeps of delta times (TRACEFOLD_TIMING; doc/TIMING.md). */
typedef enum tf_timing_mode {
  TF_TIMING_NONE = 0,      /* no times */
  TF_TIMING_STATS = 1,     /* count, min, max, mean, variance per event */
  TF_TIMING_HISTOGRAM = 2, /* the same plus k balanced bins */
  TF_TIMING_PATH = 3       /* one histogram per preceding call */
} tf_timing_mode;

/* Unit of the compute delta (TRACEFOLD_VOLUME; the duration is always ns, 0 when time-independent). */
typedef enum tf_time_unit {
  TF_UNIT_NS = 0,           /* wall-clock nanoseconds */
  TF_UNIT_INSTRUCTIONS = 1, /* time-independent: instructions retired (PAPI_TOT_INS) */
  TF_UNIT_CPU_NS = 2        /* time-independent: the thread's CPU time in ns */
} tf_time_unit;

TF_API const char *tf_timing_mode_name(unsigned mode); /* "none", "stats", ...; "?" */
TF_API const char *tf_time_unit_name(unsigned unit);   /* "ns", "instructions", "cpu-ns"; "?" */

typedef struct tf_file_info {
  int32_t kind;          /* tf_file_kind */
  int32_t rank, nranks;
  int32_t thread_level;  /* MPI thread level provided */
  uint64_t start_unix_ns;
  const char *exe;       /* traced program */
  const char *mpi;       /* MPI library version string */
  uint64_t nevents;      /* from the file's end record */
  uint64_t lost_events;  /* calls not recorded after an internal failure (0 normally) */
  uint32_t nsegments;    /* compressed: folded segments (1 unless the memory cap was reached) */
  uint32_t partial;      /* not 0: written when the run stopped without MPI_Finalize (TF_PARTIAL_*) */
  uint32_t timing;       /* compressed: tf_timing_mode */
  uint32_t bins;         /* compressed: bins per histogram (histogram and path modes) */
  uint32_t unit;         /* tf_time_unit of compute deltas */
  uint32_t nfuncs;
  const tf_func_desc *funcs;
  uint32_t ncallsites;
  const tf_callsite *callsites;
  /* the run this file belongs to (version 3; 0 and 0 in version 2 files):
   * a random id drawn by rank 0 at MPI_Init and the start time of rank 0,
   * equal in every file of one run */
  uint64_t run_id;
  uint64_t run_start_unix_ns;
} tf_file_info;

typedef struct tf_file_reader tf_file_reader;

/* Open and validate a trace file of either kind (magic, version, checksum,
 * structure): TF_OK and *out, or a TF_ERR_* and a message naming the file
 * in err (may be NULL). */
TF_API tf_status tf_file_open(const char *path, tf_file_reader **out, char *err, size_t errlen);
TF_API const tf_file_info *tf_file_get_info(const tf_file_reader *r);
/* Next event: 1 and *ev filled, 0 at the end, -1 if the file turns out
 * malformed while unrolling (tf_file_error says where). Flat files are
 * validated completely at open and never give -1. For compressed files
 * compute_ns/duration_ns are the mean of the folded event's deltas. */
TF_API int tf_file_next(tf_file_reader *r, tf_event *ev);
/* Why tf_file_next gave -1 ("" before it did). */
TF_API const char *tf_file_error(const tf_file_reader *r);
/* Back to the first event. */
TF_API void tf_file_rewind(tf_file_reader *r);
TF_API void tf_file_close(tf_file_reader *r); /* NULL: nothing */

/* List the per-rank files of one kind in a trace directory
 * ("rank-<R>.flat" or "rank-<R>.tfc"), sorted by rank: TF_OK, *n of them
 * and *paths malloc'ed (free each, then the array); or a TF_ERR_* and err
 * (TF_ERR_FORMAT when the directory holds no such file). */
TF_API tf_status tf_list_dir(const char *dir, tf_file_kind kind, char ***paths, int *n, char *err, size_t errlen);

/* ---- traces: what the tools read -----------------------------------------
 * A trace is the one merged file a run writes at MPI_Finalize (TF_TRACE_FILE
 * in the trace directory: every rank's folded events in one loop structure,
 * doc/FORMAT.md part 3), or a set of per-rank files: compressed ones written
 * when a run stopped before MPI_Finalize (merged when opened) or flat
 * reference files. tf_trace_open takes a merged file, a per-rank file, or a
 * trace directory. Every rank's events come back exactly as recorded,
 * through a per-rank cursor that unrolls the loops lazily. */
#define TF_TRACE_MAGIC "TFTRACE\n"
#define TF_TRACE_VERSION 6 /* 6: one zstd frame (built-in dictionary) and one CRC for all sections; 5: compact time summaries (quantised bins); 4: FUNCS holds only the functions used; 3: the run's identity, streams, time summaries per rank group; readers also read 2 to 5 */
#define TF_TRACE_FILE "trace.tf"

typedef enum tf_trace_source {
  TF_SOURCE_MERGED = 0,     /* a merged trace file */
  TF_SOURCE_COMPRESSED = 1, /* per-rank compressed files, merged when opened */
  TF_SOURCE_FLAT = 2        /* per-rank flat (reference) files */
} tf_trace_source;

#define TF_OPEN_PREFER_FLAT 1u /* a directory with flat files: read those (the reference) */
#define TF_OPEN_MERGE_BY_KEYS 0x100u /* per-rank files: drop their loops' CST ids and merge by event keys only
                                        (the alignment without CST ids, for comparison: doc/MERGING.md) */

typedef struct tf_trace_info {
  int32_t source;        /* tf_trace_source */
  int32_t nranks;        /* ranks of the run */
  int32_t nranks_present; /* ranks present in this trace (< nranks only for a partial or single-rank input) */
  uint32_t partial;      /* not 0: the run stopped without MPI_Finalize (a TF_PARTIAL_* reason) */
  int32_t thread_level;
  uint64_t start_unix_ns;
  const char *exe, *mpi;
  uint64_t nevents;      /* all ranks */
  uint64_t lost_events;  /* all ranks: calls not recorded after an internal failure */
  uint64_t bytes;        /* size of the file(s) read */
  uint64_t merge_ns;     /* merged at MPI_Finalize: time the merge took on rank 0 (0 otherwise) */
  uint32_t timing;       /* tf_timing_mode (flat input: TF_TIMING_NONE, the events carry exact deltas) */
  uint32_t bins;         /* bins per histogram */
  uint32_t unit;         /* tf_time_unit of compute deltas */
  uint32_t nfuncs;
  const tf_func_desc *funcs;
  uint32_t ncallsites;
  const tf_callsite *callsites;
  uint64_t run_id;            /* the run the trace comes from (tf_file_info.run_id; 0 if unknown) */
  uint64_t run_start_unix_ns; /* rank 0's start time in that run (0 if unknown) */
} tf_trace_info;

typedef struct tf_trace tf_trace;

/* TF_OK and *out, or a TF_ERR_* and err. flags: TF_OPEN_*. Every file of
 * a trace must come from one run: a directory whose trace files (trace.tf,
 * rank-<R>.tfc, rank-<R>.flat) carry different run ids is refused
 * (TF_ERR_FORMAT), with a message naming the files that differ. */
TF_API tf_status tf_trace_open(const char *path, unsigned flags, tf_trace **out, char *err, size_t errlen);
/* tf_trace_open, calling progress(done, total, arg) after each of the
 * `total` per-rank files of the trace is read and merged into the others
 * (never for a merged trace file). progress may be NULL. */
typedef void (*tf_open_progress)(uint64_t done, uint64_t total, void *arg);
TF_API tf_status tf_trace_open_progress(const char *path, unsigned flags, tf_open_progress progress, void *arg,
                                        tf_trace **out, char *err, size_t errlen);
/* A merged trace file held in memory (`name` is used in messages); data is
 * not kept and may be freed after the call. */
TF_API tf_status tf_trace_open_mem(const void *data, size_t len, const char *name, tf_trace **out, char *err,
                                   size_t errlen);
TF_API const tf_trace_info *tf_trace_get_info(const tf_trace *t);
/* 1 if `rank` is present in the trace (it wrote its part, possibly with 0
 * events; its event and lost counts then in *nevents and *lost, either may
 * be NULL), else 0. */
TF_API int tf_trace_rank(const tf_trace *t, int32_t rank, uint64_t *nevents, uint64_t *lost);
/* Why `rank`'s part is partial: a TF_PARTIAL_* reason, or 0 when it is
 * complete or not present. A trace of version 2 gives every rank the
 * trace's reason (tf_trace_info.partial). */
TF_API uint32_t tf_trace_rank_partial(const tf_trace *t, int32_t rank);
/* Check what the structure says about every present rank without
 * unrolling it: each rank's projection of the loop structure is valid and
 * holds exactly the events RANKS declares for it (what tf_rank_cursor_open
 * checks for one rank, for all). TF_OK, or TF_ERR_FORMAT (or TF_ERR_NOMEM)
 * and a message naming the first rank that fails. Flat input is checked
 * completely when opened: TF_OK. */
TF_API tf_status tf_trace_validate(tf_trace *t, char *err, size_t errlen);
TF_API void tf_trace_close(tf_trace *t); /* NULL: nothing */

/* One rank's events, in order. Open: TF_OK and *out, or a TF_ERR_* and err
 * (TF_ERR_ARG when the rank is not in the trace). */
typedef struct tf_rank_cursor tf_rank_cursor;
TF_API tf_status tf_rank_cursor_open(tf_trace *t, int32_t rank, tf_rank_cursor **out, char *err, size_t errlen);
/* 1 and *ev (valid until the next call), 0 at the end, -1 when the trace
 * turns out malformed while unrolling (tf_rank_cursor_error says where).
 * For folded traces compute_ns/duration_ns are the mean of the folded
 * event's path taken, over the occurrences of the rank's group (the ranks
 * whose delays agree with its own on that path; doc/TIMING.md). */
TF_API int tf_rank_cursor_next(tf_rank_cursor *c, tf_event *ev);
/* Why tf_rank_cursor_next gave -1 ("" before it did). */
TF_API const char *tf_rank_cursor_error(const tf_rank_cursor *c);
/* What the trace keeps of the delta times of the occurrence the cursor
 * returned last (its path in path mode, else all its occurrences; see
 * "time in a trace" below): a summary that stays valid until the cursor is
 * closed and is the same pointer for every occurrence of one event and
 * path. NULL for flat input, a trace without times, before the first event
 * or when memory is short. */
struct tf_time_path;
TF_API const struct tf_time_path *tf_rank_cursor_times(tf_rank_cursor *c);
TF_API void tf_rank_cursor_close(tf_rank_cursor *c); /* NULL: nothing */

/* The loop structure of a merged (or compressed) trace. Each node is an
 * event or a loop, holds for a set of ranks, and keeps every parameter as
 * value sequences, each with the ranks it holds for. */
typedef struct tf_node tf_node;
/* The number of top-level nodes (0 for flat input), and in *nodes the
 * array of them. */
TF_API uint32_t tf_trace_top(const tf_trace *t, const tf_node *const **nodes);
typedef struct tf_node_info {
  int is_loop;
  uint32_t fn, thread;     /* event */
  uint64_t callsite;       /* event: signature (see tf_trace_info.callsites) */
  uint32_t nslots;         /* event: parameter positions (the longest occurrence's value count) */
  uint32_t nbody;          /* loop: its body */
  const tf_node *const *body;
  uint64_t occurrences;    /* summed over its ranks */
  uint32_t nranks;         /* ranks it occurs on */
  uint64_t compute_min, compute_max, compute_mean; /* ns, over all occurrences */
  uint64_t duration_min, duration_max, duration_mean;
  int64_t cst;             /* loop recorded with CST guidance: its node id in the program's CST; -1: none */
} tf_node_info;
TF_API void tf_node_get(const tf_node *n, tf_node_info *info);
/* The node's ranks as text: a rank list (doc/FORMAT.md), written as blocks
 * "<dims start count stride ...>". */
TF_API void tf_node_ranks(const tf_node *n, char *buf, size_t len);
/* A node's value sequences: which = -1 a loop's iteration counts (an
 * event's value counts), which = j >= 0 an event's parameter position j.
 * Returns the number of (values, ranks) pairs; pair k is written as text
 * into vals and ranks (either may be NULL). A pair with a rule
 * (doc/FORMAT.md 3.5) is written as the rule, "+" and its values, e.g.
 * "-r+0" (rank r's values: 0 - r) or "(r/4)+0" (the row of a 4-wide grid). */
TF_API uint32_t tf_node_values(const tf_node *n, int which, uint32_t k, char *vals, size_t vlen, char *ranks,
                               size_t rlen);
/* 1 if the node occurs on `rank`, else 0. */
TF_API int tf_node_has_rank(const tf_node *n, int32_t rank);
/* The value sequence `which` (as for tf_node_values) as it is on `rank`:
 * 1 and the text in vals (may be NULL), or 0 when the node has none there. */
TF_API int tf_node_values_of(const tf_node *n, int which, int32_t rank, char *vals, size_t vlen);

/* ---- time in a trace (doc/TIMING.md) --------------------------------------
 * An event node keeps its delta times per path (the previous call of its
 * thread, in path mode; one path otherwise) and, in a merged trace, per
 * group of ranks whose delays agree on that path: count, min, max, mean and
 * standard deviation, the ranks of the extremes and of the smallest and
 * largest per-rank mean, and (histogram and path modes) balanced bins. */
#define TF_TIME_BINS_MAX 64
#define TF_PATHS_ALL UINT32_MAX
typedef struct tf_time_bin {
  uint64_t lo, hi; /* about n samples lie in [lo, hi) (the last bin also hi); bins that
                      were split or merged hold estimates (doc/TIMING.md) */
  uint64_t n, mean;
} tf_time_bin;
typedef struct tf_time_stat {
  uint64_t n, min, max, sum;
  double mean, stddev;
  int32_t min_rank, max_rank;         /* where the smallest / largest sample occurred */
  double rank_mean_lo, rank_mean_hi;  /* smallest / largest mean of one rank's samples */
  int32_t rank_mean_lo_rank, rank_mean_hi_rank;
  uint32_t nbins;                     /* contiguous bins from min to max (empty ones at the ends left out) */
  tf_time_bin bins[TF_TIME_BINS_MAX];
} tf_time_stat;
typedef struct tf_time_path {
  int has_prev;           /* path mode: 1 if this path follows a previous call */
  uint32_t prev_fn;       /* that call's function ... */
  uint64_t prev_callsite; /* ... and call-site signature */
  tf_time_stat compute, duration;
} tf_time_path;
/* Paths of an event node (0 for loops and traces without times). */
TF_API uint32_t tf_node_paths(const tf_node *n);
/* Path i over all the event's ranks (its rank groups pooled), or with
 * i == TF_PATHS_ALL all paths summed, into *out: 0, or -1 (no such path, or
 * out of memory). */
TF_API int tf_node_path(const tf_trace *t, const tf_node *n, uint32_t i, tf_time_path *out);
/* Rank groups (doc/TIMING.md "Rank groups"): a merged trace keeps each
 * path's times per group of ranks whose delays agree. The number of groups
 * of path i (0: no such path); group g's summaries into *out and its ranks
 * as text (a rank list, as tf_node_ranks) into ranks (may be NULL): 0, or
 * -1 if there is no such group. */
TF_API uint32_t tf_node_path_groups(const tf_node *n, uint32_t i);
TF_API int tf_node_path_group(const tf_trace *t, const tf_node *n, uint32_t i, uint32_t g, tf_time_path *out,
                              char *ranks, size_t rlen);
/* The summaries `rank` takes on path i (its group's): 0, or -1 when the
 * rank did not take that path. */
TF_API int tf_node_path_rank(const tf_trace *t, const tf_node *n, uint32_t i, int32_t rank, tf_time_path *out);

/* A rank's timeline as the trace keeps it: its events in order, each call
 * starting its compute delta after the previous call ended and lasting its
 * duration (per-event means: of its path in path mode). Search in time
 * walks the loop structure (timing tree, doc/TIMING.md) without unrolling:
 * regular loops are skipped arithmetically. */
#define TF_TIME_MAXDEPTH 66
typedef struct tf_time_point {
  uint64_t index;             /* the event's position in the rank's sequence, from 0 */
  uint32_t fn, thread;
  uint64_t callsite;          /* signature */
  uint64_t start_ns, end_ns;  /* its call, from the start of the rank's timeline */
  int in_call;                /* 1: the time is inside the call; 0: in the compute before it */
  uint32_t depth;             /* loops around the event */
  uint64_t iteration[TF_TIME_MAXDEPTH]; /* the iteration of each, outermost first, from 0 */
} tf_time_point;
typedef struct tf_timeline tf_timeline;
/* TF_OK and *out, or a TF_ERR_* and err (TF_ERR_ARG when the rank is not
 * in the trace). */
TF_API tf_status tf_timeline_open(tf_trace *t, int32_t rank, tf_timeline **out, char *err, size_t errlen);
TF_API uint64_t tf_timeline_end(const tf_timeline *tl); /* when the rank's last call ends */
/* The event rank was in (or computing before) at time t_ns: 1 and *p; 0 if
 * t_ns is at or after the end; -1 malformed or out of memory (tf_timeline_error). */
TF_API int tf_timeline_find(tf_timeline *tl, uint64_t t_ns, tf_time_point *p);
/* Why tf_timeline_find gave -1 ("" before it did). */
TF_API const char *tf_timeline_error(const tf_timeline *tl);
TF_API void tf_timeline_close(tf_timeline *tl); /* NULL: nothing */

#ifdef __cplusplus
}
#endif
#endif
