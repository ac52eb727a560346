/* check.h — the assertion macros of the unit tests: a failed CHECK prints
 * where and what, counts, and the test goes on; main returns non-zero if
 * `failures` is. */
#ifndef TF_TEST_CHECK_H
#define TF_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                             \
  do {                                                                                                         \
    if (!(cond)) {                                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                 \
      failures++;                                                                                              \
    }                                                                                                          \
  } while (0)

/* CHECK with a context line (seed, index, ...) printed on failure */
#define CHECKF(cond, ...)                                                                                       \
  do {                                                                                                         \
    if (!(cond)) {                                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                                 \
      fprintf(stderr, __VA_ARGS__);                                                                            \
      fputc('\n', stderr);                                                                                     \
      failures++;                                                                                              \
    }                                                                                                          \
  } while (0)

#endif
