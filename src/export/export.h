/* export.h — the trace exporters: a trace written in another tool's format,
 * for the `tracefold export` verb and any other caller. Each takes a trace
 * (a merged trace file, a trace directory or a per-rank file, as
 * tf_trace_open) and an output directory, writes nothing to stdout or
 * stderr, and says how it went in a message. README.md here lists the
 * pieces they share. */
#ifndef TF_EXPORT_H
#define TF_EXPORT_H

#include <stddef.h>

/* How an export ended (the values are `tracefold export`'s exit status). */
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

#endif
