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
 *   compute_ns   time from the end of the previous MPI call on this thread
 *             to the start of this one (monotonic clock);
 *   duration_ns  the call's own duration;
 *   vals      the parameter vector laid out by the function's field list:
 *             a scalar field takes one value, an array field takes its
 *             length n followed by n values.
 *
 * Errors are values: every function that can fail returns a tf_status, and
 * fills a message buffer naming the file and the problem. Nothing here aborts.
 */
#ifndef TRACEFOLD_H
#define TRACEFOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TF_VERSION_STRING "0.1.0"

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

const char *tf_status_name(tf_status s);

/* Human-readable kind name ("peer", "tag", ...); "?" if out of range. */
const char *tf_field_kind_name(unsigned kind);

/* Format a parameter value for display ("ANY_SOURCE", "-1", ...). */
void tf_format_value(int64_t v, char *buf, size_t len);

/* ---- per-rank trace files: flat (reference) or compressed ------------------
 * A flat file holds every event as it happened. A compressed file holds
 * the same events folded into nested loops whose parameters are value
 * sequences (doc/FOLDING.md); reading it unrolls them, event for event.
 * Both share one container (doc/FORMAT.md) and this reader. */
#define TF_FLAT_MAGIC "TFFLAT\r\n"
#define TF_COMP_MAGIC "TFCOMP\r\n"
#define TF_FLAT_VERSION 1
#define TF_COMP_VERSION 1

typedef enum tf_file_kind { TF_FILE_FLAT = 0, TF_FILE_COMPRESSED = 1 } tf_file_kind;

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
  uint32_t nfuncs;
  const tf_func_desc *funcs;
  uint32_t ncallsites;
  const tf_callsite *callsites;
} tf_file_info;

typedef struct tf_file_reader tf_file_reader;

/* Open and validate a trace file of either kind (magic, version, checksum,
 * structure). On failure returns an error and writes a message naming the
 * file into err (may be NULL). */
tf_status tf_file_open(const char *path, tf_file_reader **out, char *err, size_t errlen);
const tf_file_info *tf_file_get_info(const tf_file_reader *r);
/* Next event: 1 and *ev filled, 0 at the end, -1 if the file turns out
 * malformed while unrolling (tf_file_error says where). Flat files are
 * validated completely at open and never give -1. For compressed files
 * compute_ns/duration_ns are the mean of the folded event's deltas. */
int tf_file_next(tf_file_reader *r, tf_event *ev);
const char *tf_file_error(const tf_file_reader *r);
void tf_file_rewind(tf_file_reader *r);
void tf_file_close(tf_file_reader *r);

/* List the per-rank files of one kind in a trace directory
 * ("rank-<R>.flat" or "rank-<R>.tfc"), sorted by rank. *paths is malloc'ed
 * (free each, then the array). */
tf_status tf_list_dir(const char *dir, tf_file_kind kind, char ***paths, int *n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
