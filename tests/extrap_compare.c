/* extrap_compare.c — `extrap_compare GOT.tf WANT.tf`: the comparison the
 * extrapolation self-check makes (src/core/extrap/selfcheck.h), on two
 * merged trace files, for tests/extrap_selfcheck.sh. Prints "equal" (exit
 * 0) or the first difference (exit 1); unreadable input: exit 2. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "extrap/selfcheck.h"
#include "merge/mtrace.h"

static int load(const char *path, tf_mtrace *t) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "extrap_compare: cannot open %s\n", path), -1;
  size_t cap = 1 << 16, len = 0, got;
  uint8_t *data = malloc(cap);
  while (data && (got = fread(data + len, 1, cap - len, f)) > 0)
    if ((len += got) == cap) {
      uint8_t *more = realloc(data, cap *= 2);
      if (!more) free(data);
      data = more;
    }
  fclose(f);
  char err[512];
  int rc = data && tf_mtrace_decode(data, len, path, t, err, sizeof err) == TF_OK ? 0 : -1;
  if (rc) fprintf(stderr, "extrap_compare: %s: %s\n", path, data ? err : "out of memory");
  free(data);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: extrap_compare GOT.tf WANT.tf\n"), 2;
  tf_mtrace got, want;
  if (load(argv[1], &got)) return 2;
  if (load(argv[2], &want)) return tf_mtrace_free(&got), 2;
  char err[1024];
  int rc = tf_extrap_compare(&got, &want, err, sizeof err);
  printf("%s\n", rc ? err : "equal");
  tf_mtrace_free(&got);
  tf_mtrace_free(&want);
  return rc ? 1 : 0;
}
