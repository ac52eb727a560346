/* input.c — open the flat trace files named on the command line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"

static int add(tf_input *in, const char *path) {
  char err[1024];
  tf_flat_reader *r;
  if (tf_flat_open(path, &r, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold: %s\n", err);
    return -1;
  }
  tf_flat_reader **nr = realloc(in->readers, (size_t)(in->n + 1) * sizeof *nr);
  if (!nr) {
    tf_flat_close(r);
    fprintf(stderr, "tracefold: out of memory\n");
    return -1;
  }
  in->readers = nr;
  in->readers[in->n++] = r;
  return 0;
}

int tf_input_open(int argc, char **argv, tf_input *in) {
  in->n = 0;
  in->readers = NULL;
  if (argc < 1) {
    fprintf(stderr, "tracefold: no trace given\n");
    return -1;
  }
  for (int i = 0; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) != 0) {
      fprintf(stderr, "tracefold: %s: no such file or directory\n", argv[i]);
      tf_input_close(in);
      return -1;
    }
    if (S_ISDIR(sb.st_mode)) {
      char **paths, err[1024];
      int n;
      if (tf_flat_list_dir(argv[i], &paths, &n, err, sizeof err) != TF_OK) {
        fprintf(stderr, "tracefold: %s\n", err);
        tf_input_close(in);
        return -1;
      }
      int bad = 0;
      for (int k = 0; k < n; k++) {
        if (!bad && add(in, paths[k])) bad = 1;
        free(paths[k]);
      }
      free(paths);
      if (bad) {
        tf_input_close(in);
        return -1;
      }
    } else if (add(in, argv[i])) {
      tf_input_close(in);
      return -1;
    }
  }
  for (int i = 0; i < in->n; i++) {
    const tf_flat_info *fi = tf_flat_get_info(in->readers[i]);
    if (fi->lost_events)
      fprintf(stderr, "tracefold: note: rank %d: %llu calls were not recorded (the recorder stopped after an "
                      "internal failure)\n", fi->rank, (unsigned long long)fi->lost_events);
  }
  return 0;
}

void tf_input_close(tf_input *in) {
  for (int i = 0; i < in->n; i++) tf_flat_close(in->readers[i]);
  free(in->readers);
  in->readers = NULL;
  in->n = 0;
}
