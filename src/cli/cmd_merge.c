/* cmd_merge.c — `tracefold merge DIR [-o FILE]`: merge a set of per-rank
 * compressed files (a run that stopped before MPI_Finalize, or one whose
 * merge failed) into one merged trace file, as MPI_Finalize would have. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "merge/mtrace.h"

int cmd_merge(int argc, char **argv) {
  const char *out = NULL;
  tf_opt opts[] = {{"-o", &out, NULL}};
  int rc = tf_options(&argc, argv, "merge", opts, 1);
  if (rc) return rc;
  if (argc != 1) {
    fprintf(stderr, "usage: tracefold merge DIR [-o FILE]\n");
    return TF_EXIT_USAGE;
  }
  tf_input in;
  if ((rc = tf_input_open(argc, argv, TF_INPUT_VALIDATE, "merge", &in))) return rc;
  if (in.info->source != TF_SOURCE_COMPRESSED) {
    fprintf(stderr, "tracefold merge: %s is %s; merge reads per-rank compressed files (rank-<R>.tfc)\n", argv[0],
            in.info->source == TF_SOURCE_MERGED ? "already merged" : "flat");
    tf_input_close(&in);
    return 1;
  }
  char path[4096];
  struct stat sb;
  if (!out) {
    snprintf(path, sizeof path, "%s/%s", argv[0], TF_TRACE_FILE);
    out = path;
  }
  if (stat(out, &sb) == 0) {
    fprintf(stderr, "tracefold merge: %s exists; not overwriting it\n", out);
    tf_input_close(&in);
    return 1;
  }
  tf_buf b = {0};
  rc = tf_mtrace_encode(tf_trace_mtrace(in.t), &b, TF_TRACE_ZSTD_LEVEL);
  FILE *f = rc ? NULL : fopen(out, "wb");
  if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
    fprintf(stderr, "tracefold merge: cannot write %s\n", out);
    rc = 1;
  } else {
    printf("%s: %d ranks, %zu bytes%s\n", out, in.info->nranks_present, b.len, in.info->partial ? " (partial)" : "");
  }
  tf_buf_free(&b);
  tf_input_close(&in);
  return rc ? 1 : 0;
}
