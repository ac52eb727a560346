/* options.c — the command line of every verb: options anywhere among the
 * arguments, numbers range-checked and echoed as given (cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const tf_opt *find(const tf_opt *opts, int nopts, const char *a, size_t len) {
  for (int k = 0; k < nopts; k++)
    if (strlen(opts[k].name) == len && strncmp(opts[k].name, a, len) == 0) return &opts[k];
  return NULL;
}

/* --help or -h among the options (not as an option's value, not after "--"). */
static int asks_help(int argc, char **argv, const tf_opt *opts, int nopts) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) return 0;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return 1;
    const tf_opt *o = a[0] == '-' && a[1] && !strchr(a, '=') ? find(opts, nopts, a, strlen(a)) : NULL;
    if (o && o->value) i++; /* its value, whatever it looks like */
  }
  return 0;
}

int tf_options(int *argc, char **argv, const char *verb, const tf_opt *opts, int nopts) {
  if (asks_help(*argc, argv, opts, nopts)) return TF_EXIT_HELP; /* before any complaint */
  int n = 0, only_args = 0;
  for (int i = 0; i < *argc; i++) {
    char *a = argv[i];
    if (only_args || a[0] != '-' || !a[1]) { /* an argument ("-" alone is one too) */
      argv[n++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_args = 1;
      continue;
    }
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL; /* --name=value */
    const tf_opt *o = find(opts, nopts, a, eq ? (size_t)(eq - a) : strlen(a));
    if (!o) return tf_unknown_option(verb, a);
    if (!o->value) {
      if (eq) {
        fprintf(stderr, "tracefold %s: %.*s takes no value (see tracefold %s --help)\n", verb, (int)(eq - a), a, verb);
        return TF_EXIT_USAGE;
      }
      if (o->flag) *o->flag = 1;
      continue;
    }
    if (eq) {
      *o->value = eq + 1;
    } else if (i + 1 < *argc) {
      *o->value = argv[++i];
    } else {
      fprintf(stderr, "tracefold %s: %s needs a value (see tracefold %s --help)\n", verb, a, verb);
      return TF_EXIT_USAGE;
    }
  }
  argv[n] = NULL;
  *argc = n;
  return 0;
}

int tf_unknown_option(const char *verb, const char *opt) {
  fprintf(stderr, "tracefold %s: unknown option \"%s\" (see tracefold %s --help)\n", verb, opt, verb);
  return TF_EXIT_USAGE;
}

int tf_opt_number(const char *verb, const char *opt, const char *s, long long lo, long long hi, const char *what,
                  long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) {
    fprintf(stderr, "tracefold %s: %s %s: expected %s, a whole number from %lld to %lld\n", verb, opt, s, what, lo, hi);
    return TF_EXIT_USAGE;
  }
  *out = v;
  return 0;
}

int tf_opt_rank(const char *verb, const char *s, long *rank) {
  *rank = -1;
  if (!s) return 0;
  long long v;
  if (tf_opt_number(verb, "--rank", s, 0, INT32_MAX, "a rank", &v)) return TF_EXIT_USAGE;
  *rank = (long)v;
  return 0;
}

int tf_take_options(int *argc, char ***argv, const char *verb, long *rank, int *no_time) {
  const char *r = NULL;
  tf_opt opts[] = {{"--rank", &r, NULL}, {"--no-time", NULL, no_time}};
  if (no_time) *no_time = 0;
  int rc = tf_options(argc, *argv, verb, opts, no_time ? 2 : 1);
  return rc ? rc : tf_opt_rank(verb, r, rank);
}
