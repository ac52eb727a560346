/* trace_dir.c — a trace directory's per-rank files, "rank-<R>.flat" and/or
 * "rank-<R>.tfc", listed in rank order (tf_list_dir). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_io.h"
#include "tracefold.h"

typedef struct {
  long rank;
  char *path;
} entry;

static int by_rank(const void *a, const void *b) {
  long x = ((const entry *)a)->rank, y = ((const entry *)b)->rank;
  return (x > y) - (x < y);
}

tf_status tf_list_dir(const char *dir, tf_file_kind kind, char ***paths, int *n, char *err, size_t errlen) {
  *paths = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) {
    if (err) snprintf(err, errlen, "%s: cannot open trace directory: %s", dir, strerror(errno));
    return TF_ERR_IO;
  }
  entry *es = NULL;
  size_t ne = 0, cap = 0;
  struct dirent *de;
  tf_status st = TF_OK;
  const char *suffix = kind == TF_FILE_COMPRESSED ? ".tfc" : ".flat";
  while ((de = readdir(d))) {
    long rank;
    int used = 0;
    if (sscanf(de->d_name, "rank-%ld%n", &rank, &used) != 1 || strcmp(de->d_name + used, suffix) != 0 || rank < 0)
      continue;
    if (ne == cap) {
      cap = cap ? 2 * cap : 64;
      entry *ns = realloc(es, cap * sizeof *ns);
      if (!ns) {
        st = TF_ERR_NOMEM;
        break;
      }
      es = ns;
    }
    size_t len = strlen(dir) + strlen(de->d_name) + 2;
    es[ne].path = malloc(len);
    if (!es[ne].path) {
      st = TF_ERR_NOMEM;
      break;
    }
    snprintf(es[ne].path, len, "%s/%s", dir, de->d_name);
    es[ne].rank = rank;
    ne++;
  }
  closedir(d);
  if (st == TF_OK && ne == 0) {
    if (err) snprintf(err, errlen, "%s: no rank-<R>%s files in this directory", dir, suffix);
    st = TF_ERR_FORMAT;
  }
  char **out = st == TF_OK ? malloc(ne * sizeof *out) : NULL;
  if (st == TF_OK && !out) st = TF_ERR_NOMEM;
  if (st != TF_OK) {
    if (st == TF_ERR_NOMEM && err) snprintf(err, errlen, "%s: out of memory", dir);
    for (size_t i = 0; i < ne; i++) free(es[i].path);
    free(es);
    return st;
  }
  qsort(es, ne, sizeof *es, by_rank);
  for (size_t i = 0; i < ne; i++) out[i] = es[i].path;
  free(es);
  *paths = out;
  *n = (int)ne;
  return TF_OK;
}
