/* cmd_extrapolate.c — `tracefold extrapolate --ranks P [-o OUT] TRACE...`:
 * one trace for P ranks from traces of the same program at 3 or more other
 * rank counts (src/core/extrap/, doc/EXTRAPOLATE.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "extrap/extrapolate.h"
#include "extrap/selfcheck.h"
#include "merge/validate.h"
#include "merge/mtrace.h"

/* the rank runs whose projections are decoded before the file is written, at most (merge/validate.h): all of
 * them for grids (a few per row), an even spread where strided rank lists make one run per rank */
#define VALIDATE_RUNS 2048

const char tf_help_extrapolate[] =
    "usage: tracefold extrapolate --ranks P [--dims AxB[xC]] [--explain] [-o FILE] TRACE TRACE TRACE...\n"
    "  from merged traces of one program at 3 or more rank counts, write one trace for P ranks that every\n"
    "  verb reads like a recorded one (ScalaExtrap's method; see doc/EXTRAPOLATE.md). Every rank list,\n"
    "  parameter and count must fit exactly; a value that does not is refused with the event and values\n"
    "  --ranks P      the target number of ranks (1 .. 2^31-1)\n"
    "  --dims AxBxC   the target's Cartesian dimension sizes (default: MPI_Dims_create's rule at P)\n"
    "  --explain      print the topology (peer offsets and corner ranks per input), the self-check (the\n"
    "                 inputs extrapolated again to their own rank counts) and every timing model chosen\n"
    "  -o FILE        where to write it (default extrapolated-P.tf); never overwrites a file\n"
    "example: tracefold extrapolate --ranks 1024 -o big.tf ring-4/trace.tf ring-8/trace.tf ring-16/trace.tf\n";

static int parse_dims(const char *s, tf_extrap_opts *o) {
  const char *p = s;
  for (o->ndims = 0; o->ndims < 3;) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 1 || v > INT32_MAX) break;
    o->dims[o->ndims++] = v;
    if (*end == 0) return 0;
    if (*end != 'x') break;
    p = end + 1;
  }
  fprintf(stderr, "tracefold extrapolate: --dims %s: expected 1 to 3 sizes like 4x4 or 2x3x4\n", s);
  return TF_EXIT_USAGE;
}

int cmd_extrapolate(int argc, char **argv) {
  const char *out = NULL, *ranks_s = NULL, *dims_s = NULL;
  int explain = 0;
  tf_opt opts[] = {{"-o", &out, NULL}, {"--ranks", &ranks_s, NULL}, {"--dims", &dims_s, NULL}, {"--explain", NULL, &explain}};
  int rc = tf_options(&argc, argv, "extrapolate", opts, 4);
  if (rc) return rc;
  tf_extrap_opts o = {0};
  long long p;
  if (!ranks_s) {
    fprintf(stderr, "tracefold extrapolate: --ranks P is required (see tracefold extrapolate --help)\n");
    return TF_EXIT_USAGE;
  }
  if ((rc = tf_opt_number("extrapolate", "--ranks", ranks_s, 1, INT32_MAX, "a number of ranks", &p))) return rc;
  o.ranks = p;
  if (dims_s && (rc = parse_dims(dims_s, &o))) return rc;
  if (o.ndims) {
    long long prod = 1;
    for (int d = 0; d < o.ndims; d++) prod *= o.dims[d];
    if (prod != p) {
      fprintf(stderr, "tracefold extrapolate: --dims %s makes %lld ranks, not --ranks %lld\n", dims_s, prod, p);
      return TF_EXIT_USAGE;
    }
  }
  if (argc < 3 || argc > 16) {
    fprintf(stderr, "tracefold extrapolate: %d traces given; it takes 3 to 16 (see tracefold extrapolate --help)\n",
            argc);
    return TF_EXIT_USAGE;
  }
  char path[64];
  if (!out) {
    snprintf(path, sizeof path, "extrapolated-%lld.tf", p);
    out = path;
  }
  struct stat sb;
  if (stat(out, &sb) == 0) {
    fprintf(stderr, "tracefold extrapolate: %s exists; not overwriting it\n", out);
    return 1;
  }
  tf_input in[16];
  tf_mtrace *mt[16];
  int n = 0;
  rc = 0;
  for (; n < argc; n++) {
    if (tf_input_open(1, argv + n, 0, "extrapolate", &in[n])) {
      rc = 1;
      break;
    }
    if (in[n].info->source != TF_SOURCE_MERGED) {
      fprintf(stderr, "tracefold extrapolate: %s is not a merged trace (trace.tf)\n", argv[n]);
      n++;
      rc = 1;
      break;
    }
    mt[n] = tf_trace_mtrace(in[n].t);
  }
  char err[1024];
  tf_buf b = {0};
  uint32_t checked = 0, nruns = 0;
  if (!rc) {
    o.explain = explain ? stdout : NULL;
    int base = tf_extrapolate_checked(mt, (const char *const *)argv, (uint32_t)argc, &o, err, sizeof err);
    if (base < 0) {
      fprintf(stderr, "tracefold extrapolate: refused: %s\n", err);
      rc = 1;
    } else if (tf_mtrace_encode(mt[base], &b, TF_TRACE_ZSTD_LEVEL)) {
      fprintf(stderr, "tracefold extrapolate: out of memory\n");
      rc = 1;
    } else {
      tf_mtrace check; /* what every reader will see: the decoder's checks, then every distinct rank projection */
      if (tf_mtrace_decode(b.data, b.len, out, &check, err, sizeof err) != TF_OK ||
          tf_mtrace_validate(&check, VALIDATE_RUNS, &checked, &nruns, err, sizeof err) != TF_OK) {
        fprintf(stderr, "tracefold extrapolate: refused: the extrapolated trace is not valid (%s); this is a bug in "
                "tracefold: please report it with the input traces\n", err);
        rc = 1;
      }
      tf_mtrace_free(&check);
    }
  }
  if (!rc) {
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
      fprintf(stderr, "tracefold extrapolate: cannot write %s\n", out);
      rc = 1;
    } else {
      printf("%s: %lld ranks (extrapolated), %zu bytes\n", out, p, b.len);
      if (checked < nruns)
        printf("  (its ranks fall into %u runs that read alike; %u of them, spread evenly, were decoded and checked)\n",
               nruns, checked);
    }
  }
  tf_buf_free(&b);
  for (int i = 0; i < n; i++) tf_input_close(&in[i]);
  return rc;
}
