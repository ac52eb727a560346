/* export.h — the trace exporters: a trace written in another tool's format,
 * for the `tracefold export` verb and any other caller. Each takes a trace
 * (a merged trace file, a trace directory or a per-rank file, as
 * tf_trace_open) and an output directory, writes nothing to stdout or
 * stderr, and says how it went in a message. README.md here lists the
 * pieces they share. */
#ifndef TF_EXPORT_H
#define TF_EXPORT_H

#include <stddef.h>
#include <stdint.h>

/* How an export ended. The verbs (src/cli) turn it into their exit status:
 * 0, or 1 for FAILED and REFUSED alike (2 is a wrong command line there). */
typedef enum tf_export_status {
  TF_EXPORT_OK = 0,
  TF_EXPORT_FAILED = 1, /* writing failed, or memory ran out */
  TF_EXPORT_REFUSED = 2 /* the trace cannot be exported (unreadable, partial, a call the format cannot express),
                           or the output directory cannot be used (its parent is missing, it is not empty) */
} tf_export_status;

/* ---- SimGrid's time-independent actions (smpi.c; doc/EXPORT.md) ---- */
typedef struct tf_export_smpi_opts {
  double ref_speed; /* flop/s of the reference host the compute deltas are converted at (> 0) */
  int compute;      /* 1: a compute action before each call with its recorded compute delta; 0: none */
  /* notes on an export that succeeds but may replay differently (one line
   * each, without a newline); NULL: dropped */
  void (*note)(const char *text, void *arg);
  void *note_arg;
} tf_export_smpi_opts;
#define TF_EXPORT_SMPI_DEFAULTS {.ref_speed = 1e9, .compute = 1, .note = NULL, .note_arg = NULL}

/* Write trace as outdir/rank-<r>.txt (the actions of rank r, what
 * `smpirun -replay outdir/index.txt` reads) and outdir/index.txt (their
 * absolute paths in rank order). outdir appears only when complete: it is
 * written beside it and renamed; an empty directory there is replaced, any
 * other file never overwritten. msg gets what was written
 * ("<outdir>/index.txt: 4 rank files of ...") or why not ("<trace>: rank 0
 * event 6: MPI_Probe has no action ..."). */
tf_export_status tf_export_smpi(const char *trace, const char *outdir, const tf_export_smpi_opts *o, char *msg,
                                size_t msglen);

/* ---- what the exporters below share ---- */
/* Progress of a long export: done of total units (events read), now and
 * then (every few thousand events, and once at the end). NULL: none. */
typedef void (*tf_export_progress)(uint64_t done, uint64_t total, void *arg);
/* A note on an export that succeeds (one line, no newline). NULL: dropped. */
typedef void (*tf_export_note)(const char *text, void *arg);

/* ---- OTF2 (otf2.c; doc/EXPORT.md "OTF2") ---- */
typedef struct tf_export_otf2_opts {
  int flat; /* 1: a trace directory's flat files (exact times) rather than its trace.tf */
  tf_export_note note;
  void *note_arg;
  tf_export_progress progress;
  void *progress_arg;
} tf_export_otf2_opts;
#define TF_EXPORT_OTF2_DEFAULTS {.flat = 0, .note = NULL, .note_arg = NULL, .progress = NULL, .progress_arg = NULL}

/* 1 if this build writes OTF2 (the OTF2 library was found), else 0. */
int tf_export_otf2_available(void);
/* Write trace as an OTF2 archive: outdir/traces.otf2 (the anchor file, what
 * Vampir or otf2-print open), outdir/traces.def and outdir/traces/. outdir
 * as for tf_export_smpi: it appears only when complete. */
tf_export_status tf_export_otf2(const char *trace, const char *outdir, const tf_export_otf2_opts *o, char *msg,
                                size_t msglen);

/* ---- Chrome trace-event JSON (chrome.c; doc/EXPORT.md "Chrome") ---- */
/* A point in time: seconds from the start of the trace, or a percentage of its length. */
typedef struct tf_export_when {
  double value;
  int percent; /* 1: value is a percentage */
  int set;     /* 0: not given (the start or the end) */
} tf_export_when;

typedef struct tf_export_chrome_opts {
  const int32_t *ranks; /* the ranks written, ascending; NULL: all */
  size_t nranks;
  tf_export_when from, to; /* the window: events that overlap it */
  int flat;                /* as for OTF2 */
  tf_export_note note;
  void *note_arg;
  tf_export_progress progress;
  void *progress_arg;
} tf_export_chrome_opts;
#define TF_EXPORT_CHROME_DEFAULTS {.ranks = NULL, .flat = 0, .nranks = 0, .from = {0, 0, 0}, .to = {0, 0, 0}, .note = NULL, \
                                   .note_arg = NULL, .progress = NULL, .progress_arg = NULL}

/* Write trace as one JSON file in the Trace Event Format (chrome://tracing,
 * Perfetto): a process per rank, a thread per MPI thread, a slice per call
 * and per compute phase, a flow arrow per point-to-point message. The file
 * appears only when complete (written beside it, renamed); an existing file
 * is replaced. */
tf_export_status tf_export_chrome(const char *trace, const char *file, const tf_export_chrome_opts *o, char *msg,
                                  size_t msglen);

/* ---- the HTML report (report.c; doc/REPORT.md) ---- */
typedef struct tf_report_opts {
  int flat; /* as for OTF2 */
  tf_export_note note;
  void *note_arg;
  tf_export_progress progress;
  void *progress_arg;
  uint32_t graph_limit; /* the flow graph is drawn up to this many nodes (and 4x as many edges); 0: not drawn */
} tf_report_opts;
#define TF_REPORT_GRAPH_LIMIT 300 /* the default graph_limit */
#define TF_REPORT_DEFAULTS {.flat = 0, .note = NULL, .note_arg = NULL, .progress = NULL, .progress_arg = NULL, \
                            .graph_limit = TF_REPORT_GRAPH_LIMIT}

/* Write one self-contained HTML file about trace (no network: its styles,
 * script and charts are inside it). Written beside and renamed, as above. */
tf_export_status tf_report_html(const char *trace, const char *file, const tf_report_opts *o, char *msg,
                                size_t msglen);

#endif
