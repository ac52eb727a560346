/* cli.h — shared pieces of the tracefold command-line verbs. */
#ifndef TF_CLI_H
#define TF_CLI_H

#include "tracefold.h"

/* The flat per-rank files named by the arguments: each a rank file or a
 * trace directory. Errors are printed (naming the file) and give NULL. */
typedef struct tf_input {
  int n;
  tf_flat_reader **readers;
} tf_input;

int tf_input_open(int argc, char **argv, tf_input *in);
void tf_input_close(tf_input *in);

int cmd_dump(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_counts(int argc, char **argv);

#endif
