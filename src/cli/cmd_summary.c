/* cmd_summary.c — `tracefold summary` (calls by function and rank) and
 * `tracefold counts` (one rank's calls by function, the workloads' oracle
 * format: "MPI_Name count" lines sorted by name). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* calls[f * nranks + r], bytes[f]; functions indexed by the first file's table */
typedef struct tally {
  uint32_t nfuncs;
  int nranks;
  const tf_func_desc *funcs;
  uint64_t *calls, *bytes, events;
} tally;

static int count_all(tf_input *in, tally *t) {
  const tf_file_info *f0 = tf_file_get_info(in->readers[0]);
  t->nfuncs = f0->nfuncs;
  t->funcs = f0->funcs;
  t->nranks = in->n;
  t->events = 0;
  t->calls = calloc((size_t)t->nfuncs * (size_t)in->n, sizeof *t->calls);
  t->bytes = calloc(t->nfuncs, sizeof *t->bytes);
  if (!t->calls || !t->bytes) {
    fprintf(stderr, "tracefold: out of memory\n");
    return -1;
  }
  for (int r = 0; r < in->n; r++) {
    const tf_file_info *fi = tf_file_get_info(in->readers[r]);
    if (fi->nfuncs != t->nfuncs) {
      fprintf(stderr, "tracefold: rank %d was recorded with a different function table\n", fi->rank);
      return -1;
    }
    tf_event ev;
    tf_file_rewind(in->readers[r]);
    int rc;
    while ((rc = tf_input_next(in->readers[r], &ev)) == 1) {
      t->calls[(size_t)ev.fn * (size_t)in->n + (size_t)r]++;
      t->events++;
      const tf_func_desc *fd = &t->funcs[ev.fn];
      uint32_t pos = 0;
      for (uint32_t k = 0; k < fd->nfields; k++) {
        if (fd->fields[k].is_array) {
          pos += 1 + (uint32_t)ev.vals[pos];
          continue;
        }
        if (fd->fields[k].kind == TF_FIELD_BYTES && ev.vals[pos] > 0) t->bytes[ev.fn] += (uint64_t)ev.vals[pos];
        pos++;
      }
    }
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
  if (tf_input_open(argc, argv, TF_WANT_COMPRESSED_FIRST, "summary", &in)) return 1;
  tally t;
  if (count_all(&in, &t)) {
    tally_free(&t);
    tf_input_close(&in);
    return 1;
  }
  const tf_file_info *f0 = tf_file_get_info(in.readers[0]);
  printf("trace: %d of %d ranks, %" PRIu64 " events\nprogram: %s\nMPI: %s\n\n", in.n, f0->nranks, t.events, f0->exe,
         f0->mpi);
  int per_rank = in.n <= 8;
  printf("%-26s %10s", "function", "calls");
  if (per_rank)
    for (int r = 0; r < in.n; r++) printf(" %8s%d", "rank", tf_file_get_info(in.readers[r])->rank);
  else
    printf(" %10s %10s", "min/rank", "max/rank");
  printf(" %14s\n", "bytes");
  for (uint32_t f = 0; f < t.nfuncs; f++) {
    uint64_t total = 0, lo = UINT64_MAX, hi = 0;
    for (int r = 0; r < in.n; r++) {
      uint64_t c = t.calls[(size_t)f * (size_t)in.n + (size_t)r];
      total += c;
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    if (!total) continue;
    printf("%-26s %10" PRIu64, t.funcs[f].name, total);
    if (per_rank)
      for (int r = 0; r < in.n; r++) printf(" %9" PRIu64, t.calls[(size_t)f * (size_t)in.n + (size_t)r]);
    else
      printf(" %10" PRIu64 " %10" PRIu64, lo, hi);
    printf(" %14" PRIu64 "\n", t.bytes[f]);
  }
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
  if (tf_input_open(argc, argv, TF_WANT_COMPRESSED_FIRST, "counts", &in)) return 1;
  int pick = -1;
  for (int r = 0; r < in.n; r++)
    if (want < 0 ? in.n == 1 : tf_file_get_info(in.readers[r])->rank == want) pick = r;
  if (pick < 0) {
    fprintf(stderr, want < 0 ? "tracefold counts: the trace has several ranks; choose one with --rank R\n"
                             : "tracefold counts: rank %ld is not in the trace\n", want);
    tf_input_close(&in);
    return 2;
  }
  tf_input one = {1, &in.readers[pick]};
  tally t;
  int rc = count_all(&one, &t);
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
