/* genapp.h — `tracefold genapp`: a trace into one self-contained C MPI
 * program that makes the trace's calls again (doc/GENAPP.md).
 *
 * The program's control flow is the merged trace's loop structure: a loop
 * is a `for` loop over its recorded trip counts, a node held by fewer
 * ranks than its parent a branch on its rank list, each top-level loop
 * nest a function named after its first call site. Parameters are the
 * trace's value sequences: a constant is a literal, anything else a table
 * of the sequence's items (runs and repeats, never unrolled) read in
 * order. Each call goes through the replay engine's code for its function
 * (generated from gen/mpi.table), which the program carries as text, with
 * a small runtime (app_runtime.c) for objects, buffers and compute. */
#ifndef TF_GENAPP_H
#define TF_GENAPP_H

#include <stddef.h>
#include <stdio.h>

#include "tracefold.h"

typedef enum tfg_compute { TFG_COMPUTE_NONE, TFG_COMPUTE_MEAN, TFG_COMPUTE_HISTOGRAM } tfg_compute;

typedef struct tfg_options {
  const char *trace;    /* its name, for the header comment */
  const char *command;  /* the command line that made the program, for the header comment */
  tfg_compute compute;  /* compute between calls: busy-waits of the mean or drawn from the histogram */
  double scale;         /* compute delays are multiplied by it */
  int any_source;       /* 1: wildcard receives stay MPI_ANY_SOURCE */
  int resolve_sites;    /* 1: call sites named by file and line (addr2line) */
} tfg_options;

/* Write the program for trace t to out. 0, or -1 with the reason in err
 * (a function the generator does not support, named; a threaded trace;
 * memory; writing). */
int tfg_write(tf_trace *t, const tfg_options *o, FILE *out, char *err, size_t errlen);

#endif
