/* foldcost.c — cost of the online compressor (value transform + loop folding
 * + segment encoding) per event, without MPI and without the recorder.
 *
 * Reads one rank's flat trace file (rank-R.flat, recorded from a workload),
 * loads all its events into memory, then REPS times (after one untimed
 * warm-up) feeds them through a fresh tf_compressor writing a compressed
 * file OUT, timing with clock_gettime(CLOCK_MONOTONIC):
 *   fold   tf_compressor_event for every event (what the recorder pays per
 *          call while recording, segment spills included if the cap is hit)
 *   total  fold + tf_compressor_finish (seal, encode, write the segment) +
 *          closing the file: the whole cost, spread over the events
 * and prints, as machine-readable lines (median and fastest repetition):
 *   events <n> call_sites <n> threads <n>
 *   compressed_bytes <file size> segments <n> spills <segments written at the cap>
 *   fold_ns_per_event <median> min <min>
 *   total_ns_per_event <median> min <min>
 *   roundtrip ok
 * The compressed file of the last repetition is read back with tf_file_open
 * and compared event by event (function, thread, call site, values) with
 * the flat input; a mismatch is reported and the exit status is 1.
 *
 * usage: bench_foldcost [-r REPS] [-m CAP_BYTES] [-o OUT] FLAT_FILE
 *   REPS (default 15, at most 99), CAP_BYTES memory cap (default 256 MiB,
 *   the recorder's default TRACEFOLD_MEMORY), OUT (default
 *   /tmp/tf-foldcost-<pid>.tfc, removed at exit unless -o is given).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/compressor.h"
#include "format/flat_writer.h"
#include "tracefold.h"

#include "bench_clock.h"

enum { MAX_REPS = 99 };

typedef struct ev {
  uint32_t fn, thread, site, nvals;
  uint64_t compute, duration;
  size_t off; /* into vals */
} ev;

typedef struct sitekey {
  uint64_t sig;
  uint32_t index;
} sitekey;


static int cmp_site(const void *a, const void *b) {
  uint64_t x = ((const sitekey *)a)->sig, y = ((const sitekey *)b)->sig;
  return (x > y) - (x < y);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, "foldcost: out of memory\n");
    exit(1);
  }
  return q;
}

static void usage(void) {
  fprintf(stderr, "usage: bench_foldcost [-r REPS] [-m CAP_BYTES] [-o OUT] FLAT_FILE\n");
  exit(2);
}

int main(int argc, char **argv) {
  int reps = 15;
  size_t cap = (size_t)256 << 20;
  const char *out = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "r:m:o:")) != -1) {
    char *end = NULL;
    switch (opt) {
      case 'r':
        reps = (int)strtol(optarg, &end, 10);
        if (*end || reps < 1 || reps > MAX_REPS) usage();
        break;
      case 'm':
        cap = (size_t)strtoull(optarg, &end, 10);
        if (*end || cap < 4096) usage();
        break;
      case 'o': out = optarg; break;
      default: usage();
    }
  }
  if (optind != argc - 1) usage();
  const char *in = argv[optind];
  char outbuf[64];
  if (!out) {
    snprintf(outbuf, sizeof outbuf, "/tmp/tf-foldcost-%ld.tfc", (long)getpid());
    out = outbuf;
  }
  int remove_out = out == outbuf;

  /* ---- load the flat file */
  char err[512];
  tf_file_reader *r = NULL;
  tf_status st = tf_file_open(in, &r, err, sizeof err);
  if (st != TF_OK) {
    fprintf(stderr, "foldcost: %s\n", err);
    return 1;
  }
  const tf_file_info *info = tf_file_get_info(r);
  if (info->kind != TF_FILE_FLAT) {
    fprintf(stderr, "foldcost: %s is not a flat trace file\n", in);
    return 1;
  }
  sitekey *sites = xrealloc(NULL, info->ncallsites * sizeof *sites);
  for (uint32_t i = 0; i < info->ncallsites; i++) sites[i] = (sitekey){info->callsites[i].sig, i};
  qsort(sites, info->ncallsites, sizeof *sites, cmp_site);

  ev *evs = NULL;
  int64_t *vals = NULL;
  size_t nev = 0, evcap = 0, nvals = 0, valcap = 0;
  uint32_t maxthread = 0;
  tf_event e;
  int rc;
  while ((rc = tf_file_next(r, &e)) == 1) {
    sitekey key = {e.callsite, 0};
    const sitekey *k = bsearch(&key, sites, info->ncallsites, sizeof *sites, cmp_site);
    if (!k) {
      fprintf(stderr, "foldcost: %s: event %zu has an undeclared call site\n", in, nev);
      return 1;
    }
    if (nev == evcap) evs = xrealloc(evs, (evcap = evcap ? 2 * evcap : 4096) * sizeof *evs);
    while (nvals + e.nvals > valcap) vals = xrealloc(vals, (valcap = valcap ? 2 * valcap : 65536) * sizeof *vals);
    evs[nev++] = (ev){e.fn, e.thread, k->index, e.nvals, e.compute_ns, e.duration_ns, nvals};
    memcpy(vals + nvals, e.vals, e.nvals * sizeof *vals);
    nvals += e.nvals;
    if (e.thread > maxthread) maxthread = e.thread;
  }
  if (rc < 0) {
    fprintf(stderr, "foldcost: %s: %s\n", in, tf_file_error(r));
    return 1;
  }
  if (nev == 0) {
    fprintf(stderr, "foldcost: %s holds no events\n", in);
    return 1;
  }

  /* ---- timed repetitions (rep 0 is the warm-up) */
  double fold[MAX_REPS], total[MAX_REPS];
  uint64_t spills = 0;
  for (int rep = 0; rep <= reps; rep++) {
    double t0 = bench_now_ns();
    tf_file_writer *w = tf_file_writer_open(out, TF_FILE_COMPRESSED, info, err, sizeof err);
    if (!w) {
      fprintf(stderr, "foldcost: %s\n", err);
      return 1;
    }
    for (uint32_t i = 0; i < info->ncallsites; i++) {
      const tf_callsite *s = &info->callsites[i];
      if (tf_file_writer_callsite(w, i, s->sig, s->module, s->offset)) {
        fprintf(stderr, "foldcost: cannot write call site %u\n", i);
        return 1;
      }
    }
    tf_compressor c;
    tf_compressor_init(&c, info->funcs, info->nfuncs, cap);
    tf_compressor_set_timing(&c, (tf_timing_mode)info->timing, info->bins);
    double t1 = bench_now_ns();
    for (size_t i = 0; i < nev; i++) {
      const ev *x = &evs[i];
      if (tf_compressor_event(&c, w, x->fn, x->thread, x->site, x->compute, x->duration, x->nvals, vals + x->off) <
          0) {
        fprintf(stderr, "foldcost: tf_compressor_event failed at event %zu\n", i);
        return 1;
      }
    }
    double t2 = bench_now_ns();
    if (tf_compressor_finish(&c, w) != 0) {
      fprintf(stderr, "foldcost: tf_compressor_finish failed\n");
      return 1;
    }
    spills = c.spills;
    tf_compressor_free(&c);
    if (tf_file_writer_close(w, err, sizeof err) != TF_OK) {
      fprintf(stderr, "foldcost: %s\n", err);
      return 1;
    }
    double t3 = bench_now_ns();
    if (rep > 0) {
      fold[rep - 1] = (t2 - t1) / (double)nev;
      total[rep - 1] = (t3 - t0) / (double)nev;
    }
  }

  /* ---- check the last output against the input */
  tf_file_reader *rc_r = NULL;
  if (tf_file_open(out, &rc_r, err, sizeof err) != TF_OK) {
    fprintf(stderr, "foldcost: reading back: %s\n", err);
    return 1;
  }
  const tf_file_info *oinfo = tf_file_get_info(rc_r);
  size_t i = 0;
  int bad = 0;
  while (!bad && (rc = tf_file_next(rc_r, &e)) == 1) {
    const ev *x = i < nev ? &evs[i] : NULL;
    if (!x || e.fn != x->fn || e.thread != x->thread || e.callsite != info->callsites[x->site].sig ||
        e.nvals != x->nvals || (e.nvals && memcmp(e.vals, vals + x->off, e.nvals * sizeof *vals) != 0)) {
      fprintf(stderr, "foldcost: round trip differs at event %zu\n", i);
      bad = 1;
    }
    i++;
  }
  if (!bad && rc < 0) {
    fprintf(stderr, "foldcost: reading back: %s\n", tf_file_error(rc_r));
    bad = 1;
  }
  if (!bad && i != nev) {
    fprintf(stderr, "foldcost: round trip has %zu events, input %zu\n", i, nev);
    bad = 1;
  }
  uint32_t nseg = oinfo->nsegments;
  tf_file_close(rc_r);
  struct stat sb;
  long long outsize = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
  if (remove_out) unlink(out);

  qsort(fold, (size_t)reps, sizeof *fold, bench_cmp_double);
  qsort(total, (size_t)reps, sizeof *total, bench_cmp_double);
  printf("events %zu call_sites %u threads %u\n", nev, info->ncallsites, maxthread + 1);
  printf("compressed_bytes %lld segments %u spills %llu\n", outsize, nseg, (unsigned long long)spills);
  printf("fold_ns_per_event %.1f min %.1f\n", fold[reps / 2], fold[0]);
  printf("total_ns_per_event %.1f min %.1f\n", total[reps / 2], total[0]);
  printf("roundtrip %s\n", bad ? "FAILED" : "ok");
  tf_file_close(r);
  free(sites);
  free(evs);
  free(vals);
  return bad;
}
