/* input.c — open the trace named on the command line; common options. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "merge/mtrace.h"

static const char *partial_reason(uint32_t why) {
  switch (why) {
  case TF_PARTIAL_ABORT: return "MPI_Abort";
  case TF_PARTIAL_SIGNAL: return "a signal (SIGTERM or SIGINT)";
  case TF_PARTIAL_EXIT: return "an exit without MPI_Finalize";
  case TF_PARTIAL_CHECKPOINT: return "the ranks were killed";
  }
  return "an unknown reason";
}

/* Calls the opened trace lost (the recorder stopped after an internal
 * failure): on how many ranks, how many in all. */
static struct {
  uint64_t calls;
  int ranks, of;
  int missing; /* ranks without a file in a trace directory (not a partial trace) */
} lossy;

int tf_input_lossy(int rc) {
  if (!lossy.calls && !lossy.missing) return rc;
  if (lossy.calls)
    fprintf(stderr, "tracefold: LOSSY: %llu calls were not recorded, on %d of %d ranks (the recorder stopped "
                    "recording after an internal failure, named in its warning at run time): what this trace holds "
                    "is incomplete\n", (unsigned long long)lossy.calls, lossy.ranks, lossy.of);
  if (lossy.missing)
    fprintf(stderr, "tracefold: LOSSY: %d of %d ranks have no file in this trace directory (their recorder could not "
                    "write one): what this trace holds is incomplete\n", lossy.missing, lossy.of);
  return rc == 0 ? TF_EXIT_LOSSY : rc;
}

/* "1, 3, 5-9" into buf (truncated with "..."). */
static void rank_list(const int32_t *r, int n, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < n && used + 16 < len; i++) {
    int j = i;
    while (j + 1 < n && r[j + 1] == r[j] + 1) j++;
    used += (size_t)snprintf(buf + used, len - used, j > i ? "%s%d-%d" : "%s%d", i ? ", " : "", r[i], r[j]);
    i = j;
    if (i + 1 < n && used + 16 >= len) snprintf(buf + used, len - used, ", ...");
  }
}

int tf_input_open(int argc, char **argv, unsigned flags, const char *verb, tf_input *in) {
  return tf_input_open_progress(argc, argv, flags, verb, NULL, in);
}

int tf_input_open_progress(int argc, char **argv, unsigned flags, const char *verb, tf_progress *progress,
                           tf_input *in) {
  *in = (tf_input){0};
  if (argc != 1) {
    fprintf(stderr, argc < 1 ? "tracefold %s: no trace given\n" : "tracefold %s: give one trace (a directory or a file)\n",
            verb);
    return TF_EXIT_USAGE;
  }
  char err[2048];
  tf_status st = tf_trace_open_progress(argv[0], flags & ~TF_INPUT_VALIDATE, progress ? tf_progress_cb : NULL, progress,
                                        &in->t, err, sizeof err);
  if (progress) tf_progress_end(progress); /* before anything else is said */
  if (st != TF_OK) {
    fprintf(stderr, "tracefold: %s\n", err);
    return TF_EXIT_FAILED;
  }
  if ((flags & TF_INPUT_VALIDATE) && tf_trace_validate(in->t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold: %s: %s\n", argv[0], err);
    tf_input_close(in);
    return TF_EXIT_FAILED;
  }
  in->info = tf_trace_get_info(in->t);
  uint32_t maxfields = 1;
  for (uint32_t f = 0; f < in->info->nfuncs; f++)
    if (in->info->funcs[f].nfields > maxfields) maxfields = in->info->funcs[f].nfields;
  in->ranks = malloc(((size_t)in->info->nranks_present + 1) * sizeof *in->ranks);
  in->fields = malloc(maxfields * sizeof *in->fields);
  if (!in->ranks || !in->fields) {
    fprintf(stderr, "tracefold: out of memory\n");
    tf_input_close(in);
    return TF_EXIT_FAILED;
  }
  /* the present ranks in one pass over their list (not a look-up per rank of the run) */
  const tf_vseq *present = &tf_trace_mtrace(in->t)->present;
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(present));
  if (!it) {
    fprintf(stderr, "tracefold: out of memory\n");
    tf_input_close(in);
    return TF_EXIT_FAILED;
  }
  tf_vseq_iter_init(it, present);
  for (int64_t r; in->n < in->info->nranks_present && tf_vseq_iter_next(it, &r);) in->ranks[in->n++] = (int32_t)r;
  free(it);
  if (in->info->partial) {
    fprintf(stderr, "tracefold: note: partial trace: the run stopped before MPI_Finalize (%s); %d of %d ranks wrote "
                    "what they had\n", partial_reason(in->info->partial), in->info->nranks_present, in->info->nranks);
    int32_t *ck = malloc(((size_t)in->n + 1) * sizeof *ck);
    int nck = 0;
    for (int i = 0; ck && i < in->n; i++)
      if (tf_trace_rank_partial(in->t, in->ranks[i]) == TF_PARTIAL_CHECKPOINT) ck[nck++] = in->ranks[i];
    if (nck) {
      char list[256];
      rank_list(ck, nck, list, sizeof list);
      fprintf(stderr, "tracefold: note: %s %s left only %s last checkpoint: %s calls after it are missing (at most "
                      "one checkpoint interval, TRACEFOLD_CHECKPOINT)\n", nck > 1 ? "ranks" : "rank", list,
              nck > 1 ? "their" : "its", nck > 1 ? "their" : "its");
    }
    free(ck);
  }
  for (int i = 0; in->info->lost_events && i < in->n; i++) {
    uint64_t lost = 0;
    tf_trace_rank(in->t, in->ranks[i], NULL, &lost);
    if (lost && lossy.ranks < 8)
      fprintf(stderr, "tracefold: note: rank %d: %llu calls were not recorded (the recorder stopped after an "
                      "internal failure)\n", in->ranks[i], (unsigned long long)lost);
    if (lost) {
      lossy.calls += lost;
      lossy.ranks++;
    }
  }
  lossy.of = in->info->nranks;
  struct stat sb;
  if (!in->info->partial && in->info->nranks_present < in->info->nranks && stat(argv[0], &sb) == 0 &&
      S_ISDIR(sb.st_mode))
    lossy.missing = in->info->nranks - in->info->nranks_present;
  return 0;
}

void tf_input_close(tf_input *in) {
  tf_trace_close(in->t);
  free(in->ranks);
  free(in->fields);
  *in = (tf_input){0};
}

tf_rank_cursor *tf_input_cursor(tf_input *in, int32_t rank) {
  char err[1024];
  tf_rank_cursor *c;
  if (tf_rank_cursor_open(in->t, rank, &c, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold: %s\n", err);
    return NULL;
  }
  return c;
}

int tf_input_next(tf_input *in, tf_rank_cursor *c, tf_event *ev) {
  (void)in;
  int rc = tf_rank_cursor_next(c, ev);
  if (rc < 0) fprintf(stderr, "tracefold: %s\n", tf_rank_cursor_error(c));
  return rc;
}

int tf_input_pick(tf_input *in, long rank, const char *verb, int32_t **ranks, int *n) {
  if (rank < 0) {
    *ranks = in->ranks;
    *n = in->n;
    return 0;
  }
  int64_t i = rank <= INT32_MAX ? tf_mtrace_rank_index(tf_trace_mtrace(in->t), (int32_t)rank) : -1;
  if (i >= 0 && i < in->n && in->ranks[i] == rank) {
    *ranks = &in->ranks[i];
    *n = 1;
    return 0;
  }
  char list[256];
  rank_list(in->ranks, in->n, list, sizeof list);
  fprintf(stderr, "tracefold %s: rank %ld is not in the trace (its ranks: %s)\n", verb, rank, list);
  return TF_EXIT_FAILED;
}
