/* input.c — open the trace files named on the command line; common options. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static int add(tf_input *in, const char *path, tf_want want, const char *verb) {
  char err[1024];
  tf_file_reader *r;
  if (tf_file_open(path, &r, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold: %s\n", err);
    return -1;
  }
  if (want == TF_WANT_COMPRESSED && tf_file_get_info(r)->kind != TF_FILE_COMPRESSED) {
    fprintf(stderr, "tracefold %s: %s is a flat trace file; %s reads compressed ones (rank-<R>.tfc)\n", verb, path, verb);
    tf_file_close(r);
    return -1;
  }
  tf_file_reader **nr = realloc(in->readers, (size_t)(in->n + 1) * sizeof *nr);
  if (!nr) {
    tf_file_close(r);
    fprintf(stderr, "tracefold: out of memory\n");
    return -1;
  }
  in->readers = nr;
  in->readers[in->n++] = r;
  return 0;
}

static int add_dir(tf_input *in, const char *dir, tf_want want, const char *verb) {
  char **paths = NULL, err[1024];
  int n = 0;
  tf_file_kind first = want == TF_WANT_FLAT_FIRST ? TF_FILE_FLAT : TF_FILE_COMPRESSED;
  tf_status st = tf_list_dir(dir, first, &paths, &n, err, sizeof err);
  if (st == TF_ERR_FORMAT && want != TF_WANT_COMPRESSED) /* none of the preferred kind: the other */
    st = tf_list_dir(dir, first == TF_FILE_FLAT ? TF_FILE_COMPRESSED : TF_FILE_FLAT, &paths, &n, err, sizeof err);
  if (st != TF_OK) {
    if (st == TF_ERR_FORMAT && want != TF_WANT_COMPRESSED)
      fprintf(stderr, "tracefold: %s: no rank-<R>.tfc or rank-<R>.flat files in this directory\n", dir);
    else
      fprintf(stderr, "tracefold %s: %s\n", verb, err);
    return -1;
  }
  int bad = 0;
  for (int k = 0; k < n; k++) {
    if (!bad && add(in, paths[k], want, verb)) bad = 1;
    free(paths[k]);
  }
  free(paths);
  return bad ? -1 : 0;
}

int tf_input_open(int argc, char **argv, tf_want want, const char *verb, tf_input *in) {
  in->n = 0;
  in->readers = NULL;
  if (argc < 1) {
    fprintf(stderr, "tracefold %s: no trace given\n", verb);
    return -1;
  }
  for (int i = 0; i < argc; i++) {
    struct stat sb;
    int rc;
    if (stat(argv[i], &sb) != 0) {
      fprintf(stderr, "tracefold: %s: no such file or directory\n", argv[i]);
      rc = -1;
    } else {
      rc = S_ISDIR(sb.st_mode) ? add_dir(in, argv[i], want, verb) : add(in, argv[i], want, verb);
    }
    if (rc) {
      tf_input_close(in);
      return -1;
    }
  }
  for (int i = 0; i < in->n; i++) {
    const tf_file_info *fi = tf_file_get_info(in->readers[i]);
    if (fi->lost_events)
      fprintf(stderr, "tracefold: note: rank %d: %llu calls were not recorded (the recorder stopped after an "
                      "internal failure)\n", fi->rank, (unsigned long long)fi->lost_events);
  }
  return 0;
}

void tf_input_close(tf_input *in) {
  for (int i = 0; i < in->n; i++) tf_file_close(in->readers[i]);
  free(in->readers);
  in->readers = NULL;
  in->n = 0;
}

int tf_input_next(tf_file_reader *r, tf_event *ev) {
  int rc = tf_file_next(r, ev);
  if (rc < 0) fprintf(stderr, "tracefold: %s\n", tf_file_error(r));
  return rc;
}

int tf_take_options(int *argc, char ***argv, const char *verb, long *rank, int *no_time) {
  *rank = -1;
  if (no_time) *no_time = 0;
  while (*argc > 0 && (*argv)[0][0] == '-') {
    const char *opt = (*argv)[0];
    if (strcmp(opt, "--rank") == 0 && *argc >= 2) {
      char *end;
      *rank = strtol((*argv)[1], &end, 10);
      if (*end || !*(*argv)[1] || *rank < 0) {
        fprintf(stderr, "tracefold %s: --rank takes a rank number, not \"%s\"\n", verb, (*argv)[1]);
        return 2;
      }
      *argc -= 2;
      *argv += 2;
    } else if (no_time && strcmp(opt, "--no-time") == 0) {
      *no_time = 1;
      (*argc)--;
      (*argv)++;
    } else {
      fprintf(stderr, "tracefold %s: unknown option \"%s\"\n", verb, opt);
      return 2;
    }
  }
  return 0;
}
