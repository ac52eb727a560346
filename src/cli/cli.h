/* cli.h — shared pieces of the tracefold command-line verbs. */
#ifndef TF_CLI_H
#define TF_CLI_H

#include "tracefold.h"

/* The per-rank files named by the arguments: each a rank file or a trace
 * directory. A directory may hold flat files, compressed files or both;
 * `want` says which a verb reads. Errors are printed (naming the file) and
 * give -1. */
typedef enum { TF_WANT_FLAT_FIRST, TF_WANT_COMPRESSED_FIRST, TF_WANT_COMPRESSED } tf_want;

typedef struct tf_input {
  int n;
  tf_file_reader **readers;
} tf_input;

int tf_input_open(int argc, char **argv, tf_want want, const char *verb, tf_input *in);
void tf_input_close(tf_input *in);
/* tf_file_next, printing the reader's error when the file is malformed. */
int tf_input_next(tf_file_reader *r, tf_event *ev);

/* Leading "--rank R" (into *rank, else -1) and "--no-time" (into *no_time,
 * if not NULL) options; 0, or 2 after printing a usage error. */
int tf_take_options(int *argc, char ***argv, const char *verb, long *rank, int *no_time);

int cmd_dump(int argc, char **argv);
int cmd_unroll(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_counts(int argc, char **argv);

#endif
