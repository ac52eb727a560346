/* cli.h — shared pieces of the tracefold command-line verbs. */
#ifndef TF_CLI_H
#define TF_CLI_H

#include "progress.h"
#include "tracefold.h"

/* Exit statuses, the same for every verb (README "Exit statuses"):
 *   0  done;
 *   1  the trace is missing, unreadable, malformed, from several runs, or
 *      refused (partial where a whole run is needed, more ranks than the
 *      launch limit, a call an exporter cannot express, ...), or the work
 *      failed (a file could not be written, a launched job failed);
 *   2  the command line is wrong: an unknown verb or option, a missing or
 *      extra argument, an option value that is malformed or out of range
 *      (echoed as given). Nothing was read or run. */
enum { TF_EXIT_OK = 0, TF_EXIT_FAILED = 1, TF_EXIT_USAGE = 2 };
/* Not an exit status: what a verb returns when asked for --help or -h
 * (tf_options gives it). Whoever dispatched the verb prints the verb's
 * help (tf_help_*) on stdout and exits 0: tracefold.c, and cmd_export.c
 * for its formats. */
#define TF_EXIT_HELP (-1)

/* ---- options: anywhere among the arguments ----
 * An option is an argument that starts with '-' (other than "-" alone);
 * "--" ends the options. An option with a value takes the next argument
 * (or "--name=value"), whatever it looks like (--scale -1). A repeated
 * option keeps its last value. --help and -h are every verb's options. */
typedef struct tf_opt {
  const char *name;   /* "--rank", "-n" */
  const char **value; /* an option with a value: the value as given (NULL if absent) */
  int *flag;          /* a flag (value NULL): set to 1 when given (may be NULL) */
} tf_opt;
/* Take the options out of argv; the other arguments stay, in order
 * (argv[*argc] = NULL). 0; TF_EXIT_HELP when --help or -h is among the
 * options (whatever else is wrong); or TF_EXIT_USAGE after one line on stderr naming the
 * verb and pointing to `tracefold VERB --help`. */
int tf_options(int *argc, char **argv, const char *verb, const tf_opt *opts, int nopts);
/* "tracefold VERB: unknown option "OPT" (see tracefold VERB --help)" on
 * stderr; TF_EXIT_USAGE. For verbs that parse some options themselves. */
int tf_unknown_option(const char *verb, const char *opt);
/* A whole number in [lo, hi] ("a rank", "a count": what); 0, or
 * TF_EXIT_USAGE after "tracefold VERB: OPT S: expected WHAT, a whole
 * number from LO to HI" with S as given. */
int tf_opt_number(const char *verb, const char *opt, const char *s, long long lo, long long hi, const char *what,
                  long long *out);
/* --rank S (NULL: not given, *rank = -1): 0 .. 2^31-1; 0 or TF_EXIT_USAGE. */
int tf_opt_rank(const char *verb, const char *s, long *rank);

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

#define TF_INPUT_VALIDATE (1u << 16) /* tf_input_open: check every rank before anything is printed (tf_trace_validate) */
/* 0; TF_EXIT_USAGE when argv is not one trace; TF_EXIT_FAILED when the
 * trace cannot be read (or, with TF_INPUT_VALIDATE, fails validation). */
int tf_input_open(int argc, char **argv, unsigned flags, const char *verb, tf_input *in);
/* tf_input_open, the per-rank files it merges counted on the progress line
 * (progress->unit "ranks"; the line ended once the trace is open). */
int tf_input_open_progress(int argc, char **argv, unsigned flags, const char *verb, tf_progress *progress,
                           tf_input *in);
/* The exit status of a verb that read a trace with lost calls (the
 * recorder stopped recording after an internal failure): its output is
 * what the trace holds, and incomplete. */
#define TF_EXIT_LOSSY 3
/* After the verb (rc: its exit status): if the trace it opened lost calls,
 * a "LOSSY" line on stderr, and TF_EXIT_LOSSY instead of 0; else rc. */
int tf_input_lossy(int rc);
void tf_input_close(tf_input *in);
/* A cursor over one rank's events, or NULL after printing why. */
tf_rank_cursor *tf_input_cursor(tf_input *in, int32_t rank);
/* tf_rank_cursor_next, printing the error when the trace is malformed. */
int tf_input_next(tf_input *in, tf_rank_cursor *c, tf_event *ev);
/* The ranks a verb reports on: all (rank < 0) or the one asked for;
 * 0, or TF_EXIT_FAILED after printing that the rank is not in the trace. */
int tf_input_pick(tf_input *in, long rank, const char *verb, int32_t **ranks, int *n);

/* The options "--rank R" (into *rank, else -1) and "--no-time" (into
 * *no_time, if not NULL; otherwise it is not an option of the verb),
 * anywhere; the arguments left in *argc, *argv. 0, or TF_EXIT_USAGE. */
int tf_take_options(int *argc, char ***argv, const char *verb, long *rank, int *no_time);

/* ---- launches (replay, simulate: launch.c) ---- */
#define TF_RANKS_LIMIT 4096 /* ranks a launch may start unless --ranks-limit raises it */
/* --ranks-limit S (NULL: the default) into *limit; 0 or TF_EXIT_USAGE. */
int tf_launch_limit(const char *verb, const char *s, long long *limit);
/* Everything that can be checked before a job is launched: the trace
 * opens (one run), has no more ranks than `limit`, equals np if np > 0,
 * is complete (every rank, not partial) and every rank's part is sound
 * (tf_trace_validate). Its rank count, or -1 after one line on stderr. */
int tf_launch_check(const char *verb, const char *trace, unsigned flags, long long np, long long limit);
/* Run args (the launcher's argv) in a process group of its own and wait;
 * stdout to /dev/null when hush. When it ends (failed or not) whatever is
 * left in its group is killed; when tracefold gets SIGINT, SIGTERM or
 * SIGHUP meanwhile, the group gets it too (SIGKILL 5 s later) and
 * tracefold then dies of it. While it runs, the elapsed time on the
 * progress line (progress may be NULL: none), ended when it ends. Its exit
 * status (128 + signal when killed), or -1 when it could not be started
 * (said on stderr). */
int tf_launch(const char *verb, char *const *args, int hush, tf_progress *progress);

/* How an export (or the report) ended, said once its progress line p is
 * ended (p may be NULL): its message on stdout when it went well (ok),
 * else on stderr after "WHAT: "; the exit status (0, or 1 whether the
 * trace was refused or writing failed). In cmd_export.c. */
int tf_export_outcome(tf_progress *p, int ok, const char *msg);

/* A delta (ns, or a volume in `unit`, tf_time_unit) as text: "1.25ms", "3.1M ins". */
void tf_fmt_delta(double v, unsigned unit, char *buf, size_t len);
/* "1.5s", "20ms", "300us", "1000ns" (no unit: seconds) -> ns; 0 or -1. */
int tf_parse_time(const char *s, uint64_t *ns);
/* An event node's delta times (every path) as indented lines: over all its
 * ranks, then each rank group's when there are several; rank >= 0: that
 * rank's group only. */
void tf_put_times(const tf_trace *t, const tf_node *n, int indent, long rank);

/* Each verb's help, printed by --help, -h and `tracefold help VERB`:
 * its usage, options and an example (in the verb's file). */
extern const char tf_help_dump[], tf_help_unroll[], tf_help_time[], tf_help_imbalance[], tf_help_show[],
    tf_help_summary[], tf_help_counts[], tf_help_stats[], tf_help_merge[], tf_help_replay[], tf_help_simulate[],
    tf_help_export[], tf_help_export_smpi[], tf_help_export_otf2[], tf_help_export_chrome[], tf_help_report[],
    tf_help_efg[], tf_help_cst[], tf_help_genapp[], tf_help_extrapolate[];

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
int cmd_export_otf2(int argc, char **argv);
int cmd_export_chrome(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_efg(int argc, char **argv);
int cmd_cst(int argc, char **argv);
int cmd_genapp(int argc, char **argv);
int cmd_extrapolate(int argc, char **argv);

#endif
