/* cmd_merge.c — `tracefold merge DIR [-o FILE]`: merge a set of per-rank
 * compressed files (a run that stopped before MPI_Finalize, or one whose
 * merge failed) into one merged trace file, as MPI_Finalize would have.
 * The ranks merged so far on a progress line (a terminal, or --progress). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char tf_help_merge[] =
    "usage: tracefold merge [--progress] [--by-keys] DIR [-o FILE]\n"
    "  merge the per-rank compressed files (rank-<R>.tfc) of a run that stopped before MPI_Finalize, or\n"
    "  whose merge failed, into one trace file, as MPI_Finalize would have; never overwrites a file\n"
    "  -o FILE      where to write it (default DIR/trace.tf)\n"
    "  --progress   a progress line on stderr (ranks merged) even when it is not a terminal\n"
    "  --by-keys    align ranks by event keys only, ignoring the loops' CST ids (for comparison)\n"
    "example: tracefold merge tracefold-app-64p && tracefold show tracefold-app-64p/trace.tf\n";
#include "merge/mtrace.h"

int cmd_merge(int argc, char **argv) {
  const char *out = NULL;
  int progress = 0;
  int by_keys = 0;
  tf_opt opts[] = {{"-o", &out, NULL}, {"--progress", NULL, &progress}, {"--by-keys", NULL, &by_keys}};
  int rc = tf_options(&argc, argv, "merge", opts, 3);
  if (rc) return rc;
  if (argc != 1) {
    fprintf(stderr, "tracefold merge: %s (see tracefold merge --help)\n", argc ? "one directory at a time" : "no directory given");
    return TF_EXIT_USAGE;
  }
  tf_progress p;
  tf_progress_init(&p, "tracefold merge", progress);
  p.unit = "ranks";
  tf_input in;
  if ((rc = tf_input_open_progress(argc, argv, TF_INPUT_VALIDATE | (by_keys ? TF_OPEN_MERGE_BY_KEYS : 0), "merge", &p, &in))) return rc;
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
