/* cmd_summary.c — `tracefold summary` (calls by function and rank) and
 * `tracefold counts` (one rank's calls by function, the workloads' oracle
 * format: "MPI_Name count" lines sorted by name). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge/rank_runs.h"

const char tf_help_summary[] =
    "usage: tracefold summary TRACE\n"
    "  calls and bytes by function and rank (no options)\n"
    "example: tracefold summary tracefold-app-16p\n";

const char tf_help_counts[] =
    "usage: tracefold counts [--rank R] TRACE\n"
    "  one rank's calls by function, \"MPI_Name count\" lines sorted by name\n"
    "  --rank R    the rank (needed when the trace has several ranks)\n"
    "example: tracefold counts --rank 0 tracefold-app-16p\n";

/* calls[f * n + i] for one rank of the i-th run of ranks counted (each of its ranks has those calls:
 * merge/rank_runs.h), bytes[f] and events over all the ranks */
typedef struct tally {
  uint32_t nfuncs;
  int n;
  const tf_func_desc *funcs;
  uint64_t *calls, *bytes, events;
} tally;

static int count_all(tf_input *in, const tf_rank_run *runs, int n, tally *t) {
  t->nfuncs = in->info->nfuncs;
  t->funcs = in->info->funcs;
  t->n = n;
  t->events = 0;
  t->calls = calloc((size_t)t->nfuncs * (size_t)n + 1, sizeof *t->calls);
  t->bytes = calloc(t->nfuncs + 1, sizeof *t->bytes);
  if (!t->calls || !t->bytes) {
    fprintf(stderr, "tracefold: out of memory\n");
    return -1;
  }
  for (int r = 0; r < n; r++) {
    tf_rank_cursor *c = tf_input_cursor(in, runs[r].first);
    if (!c) return -1;
    tf_event ev;
    int rc;
    uint64_t w = (uint64_t)runs[r].n;
    while ((rc = tf_input_next(in, c, &ev)) == 1) {
      t->calls[(size_t)ev.fn * (size_t)n + (size_t)r]++;
      t->events += w;
      const tf_func_desc *fd = &t->funcs[ev.fn];
      if (tf_event_fields(fd, ev.vals, ev.nvals, in->fields) != TF_OK) { /* the readers let none through */
        fprintf(stderr, "tracefold: rank %d: the values of a %s event do not fit its fields\n", runs[r].first,
                fd->name);
        rc = -1;
        break;
      }
      for (uint32_t k = 0; k < fd->nfields; k++) {
        const tf_field_value *f = &in->fields[k];
        if (!f->desc->is_array && f->desc->kind == TF_FIELD_BYTES && f->v[0] > 0) t->bytes[ev.fn] += w * (uint64_t)f->v[0];
      }
    }
    tf_rank_cursor_close(c);
    if (rc < 0) return -1;
  }
  return 0;
}

static void tally_free(tally *t) {
  free(t->calls);
  free(t->bytes);
}

int cmd_summary(int argc, char **argv) {
  tf_input in;
  int orc = tf_options(&argc, argv, "summary", NULL, 0);
  if (orc || (orc = tf_input_open(argc, argv, 0, "summary", &in))) return orc;
  tally t = {0};
  tf_rank_run *runs = NULL;
  uint32_t nruns = 0;
  if (tf_trace_rank_runs(in.t, &runs, &nruns)) fprintf(stderr, "tracefold: out of memory\n");
  if (!runs || count_all(&in, runs, (int)nruns, &t)) {
    free(runs);
    tally_free(&t);
    tf_input_close(&in);
    return 1;
  }
  printf("trace: %d of %d ranks, %" PRIu64 " events\nprogram: %s\nMPI: %s\n\n", in.n, in.info->nranks, t.events,
         in.info->exe, in.info->mpi);
  int per_rank = in.n <= 8, n = (int)nruns;
  printf("%-26s %10s", "function", "calls");
  if (per_rank)
    for (int r = 0; r < in.n; r++) printf(" %8s%d", "rank", in.ranks[r]);
  else
    printf(" %10s %10s", "min/rank", "max/rank");
  printf(" %14s\n", "bytes");
  for (uint32_t f = 0; f < t.nfuncs; f++) {
    uint64_t total = 0, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < n; i++) {
      uint64_t c = t.calls[(size_t)f * (size_t)n + (size_t)i];
      total += c * (uint64_t)runs[i].n;
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    if (!total) continue;
    printf("%-26s %10" PRIu64, t.funcs[f].name, total);
    if (per_rank) /* every rank of run i has its calls */
      for (int i = 0; i < n; i++)
        for (int32_t k = 0; k < runs[i].n; k++) printf(" %9" PRIu64, t.calls[(size_t)f * (size_t)n + (size_t)i]);
    else
      printf(" %10" PRIu64 " %10" PRIu64, lo, hi);
    printf(" %14" PRIu64 "\n", t.bytes[f]);
  }
  free(runs);
  tally_free(&t);
  tf_input_close(&in);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const tf_func_desc *const *)a)[0]->name, ((const tf_func_desc *const *)b)[0]->name);
}

int cmd_counts(int argc, char **argv) {
  long want;
  int orc = tf_take_options(&argc, &argv, "counts", &want, NULL);
  if (orc) return orc;
  tf_input in;
  if ((orc = tf_input_open(argc, argv, 0, "counts", &in))) return orc;
  if (want < 0 && in.n != 1) {
    fprintf(stderr, "tracefold counts: the trace has several ranks; choose one with --rank R\n");
    tf_input_close(&in);
    return TF_EXIT_USAGE;
  }
  int32_t *ranks;
  int n;
  if ((orc = tf_input_pick(&in, want, "counts", &ranks, &n))) {
    tf_input_close(&in);
    return orc;
  }
  tally t = {0};
  tf_rank_run one = {.first = ranks[0], .n = 1};
  int rc = count_all(&in, &one, 1, &t);
  if (!rc) {
    const tf_func_desc **order = malloc(t.nfuncs * sizeof *order);
    for (uint32_t f = 0; order && f < t.nfuncs; f++) order[f] = &t.funcs[f];
    if (order) {
      qsort(order, t.nfuncs, sizeof *order, by_name);
      for (uint32_t k = 0; k < t.nfuncs; k++) {
        uint32_t f = (uint32_t)(order[k] - t.funcs);
        if (t.calls[f]) printf("%s %" PRIu64 "\n", t.funcs[f].name, t.calls[f]);
      }
      free(order);
    }
  }
  tally_free(&t);
  tf_input_close(&in);
  return rc ? 1 : 0;
}
