/* cli.h — shared pieces of the tracefold command-line verbs. */
#ifndef TF_CLI_H
#define TF_CLI_H

#include "tracefold.h"

/* The trace named by the one argument (a merged trace file, a trace
 * directory or a per-rank file), opened with tf_trace_open `flags`, and
 * its ranks. Errors are printed (naming the file) and give -1; notes on a
 * partial trace or lost events go to stderr. */
typedef struct tf_input {
  tf_trace *t;
  const tf_trace_info *info;
  int32_t *ranks; /* the ranks present, ascending */
  int n;
  tf_field_value *fields; /* room for the fields of any of the trace's functions (tf_event_fields) */
} tf_input;

int tf_input_open(int argc, char **argv, unsigned flags, const char *verb, tf_input *in);
void tf_input_close(tf_input *in);
/* A cursor over one rank's events, or NULL after printing why. */
tf_rank_cursor *tf_input_cursor(tf_input *in, int32_t rank);
/* tf_rank_cursor_next, printing the error when the trace is malformed. */
int tf_input_next(tf_input *in, tf_rank_cursor *c, tf_event *ev);
/* The ranks a verb reports on: all (rank < 0) or the one asked for;
 * 0, or 2 after printing that the rank is not in the trace. */
int tf_input_pick(tf_input *in, long rank, const char *verb, int32_t **ranks, int *n);

/* Leading "--rank R" (into *rank, else -1) and "--no-time" (into *no_time,
 * if not NULL) options; 0, or 2 after printing a usage error. */
int tf_take_options(int *argc, char ***argv, const char *verb, long *rank, int *no_time);

/* A delta (ns, or a volume in `unit`, tf_time_unit) as text: "1.25ms", "3.1M ins". */
void tf_fmt_delta(double v, unsigned unit, char *buf, size_t len);
/* "1.5s", "20ms", "300us", "1000ns" (no unit: seconds) -> ns; 0 or -1. */
int tf_parse_time(const char *s, uint64_t *ns);
/* An event node's delta times (every path) as indented lines: over all its
 * ranks, then each rank group's when there are several; rank >= 0: that
 * rank's group only. */
void tf_put_times(const tf_trace *t, const tf_node *n, int indent, long rank);

int cmd_dump(int argc, char **argv);
int cmd_time(int argc, char **argv);
int cmd_imbalance(int argc, char **argv);
int cmd_unroll(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_counts(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
