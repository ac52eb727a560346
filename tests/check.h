/* check.h — what every unit test (tests/test_*.c) is made of: checks, and
 * named cases that can be run one at a time.
 *
 * Checks. A failed CHECK(cond) or CHECKF(cond, fmt, ...) prints where and
 * what (CHECKF with a context line: seed, index, ...), counts in
 * `failures`, and the test goes on.
 *
 * Cases. Each test file ends with a main() that lists its cases, in the
 * order they run, and hands its command line to run_cases():
 *
 *     int main(int argc, char **argv) {
 *       static const test_case cases[] = {
 *           {"round_trip", test_round_trip},
 *           {"damaged", test_damaged},
 *       };
 *       return run_cases("test_flat_format", cases, TEST_NCASES(cases), argc, argv);
 *     }
 *
 * The command line is the same for every unit test (libuv style):
 *
 *     test_folding                  every case, in table order
 *     test_folding --list           the case names, one a line
 *     test_folding CASE [CASE...]   only the cases named, in that order
 *     test_folding --help           this usage
 *
 * e.g. `build/tests/test_folding hand_made`. Each case prints
 * "-- CASE: ok" or "-- CASE: FAILED" with its CPU and wall time; the last
 * line is "TEST: all checks passed" (exit 0) or "TEST: N checks failed"
 * (exit 1, on stderr). An unknown case or option runs nothing (exit 2).
 * ctest runs each test binary without arguments (unit.folding, ...):
 * every case. Some tests take more arguments (a seed to rerun, ...: see
 * the comment at the top of the test file); their main() handles those
 * before it calls run_cases().
 *
 * Needs _POSIX_C_SOURCE >= 199309L (clock_gettime), which every test
 * defines before its includes. */
#ifndef TF_TEST_CHECK_H
#define TF_TEST_CHECK_H

#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* ---- cases */

typedef struct test_case {
  const char *name;
  void (*run)(void);
} test_case;

#define TEST_NCASES(cases) (sizeof(cases) / sizeof((cases)[0]))

static inline double check_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The last line of a test, and its exit status: 0 if no check failed. */
static inline int test_result(const char *test) {
  if (failures) {
    fprintf(stderr, "%s: %d checks failed\n", test, failures);
    return 1;
  }
  printf("%s: all checks passed\n", test);
  return 0;
}

static inline const test_case *find_case(const test_case *cases, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(cases[i].name, name) == 0) return &cases[i];
  return NULL;
}

static inline void run_case(const test_case *c) {
  double cpu = check_seconds(CLOCK_PROCESS_CPUTIME_ID), wall = check_seconds(CLOCK_MONOTONIC);
  int before = failures;
  fflush(stdout);
  c->run();
  printf("-- %s: %s (%.2f s cpu, %.2f s wall)\n", c->name, failures == before ? "ok" : "FAILED",
         check_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu, check_seconds(CLOCK_MONOTONIC) - wall);
  fflush(stdout);
}

/* The command line above: argv[1..] are case names or --list / --help.
 * Returns the exit status. */
static inline int run_cases(const char *test, const test_case *cases, size_t n, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--list") == 0 && argc == 2) {
      for (size_t k = 0; k < n; k++) printf("%s\n", cases[k].name);
      return 0;
    }
    if (strcmp(argv[i], "--help") == 0 && argc == 2) {
      printf("usage: %s [CASE...]   (no CASE: every case)\n       %s --list\ncases:", test, test);
      for (size_t k = 0; k < n; k++) printf(" %s", cases[k].name);
      printf("\n");
      return 0;
    }
    if (!find_case(cases, n, argv[i])) {
      fprintf(stderr, "%s: %s '%s' (%s --list lists the cases)\n", test,
              argv[i][0] == '-' ? "unknown option" : "no case named", argv[i], test);
      return 2;
    }
  }
  double cpu = check_seconds(CLOCK_PROCESS_CPUTIME_ID), wall = check_seconds(CLOCK_MONOTONIC);
  if (argc > 1)
    for (int i = 1; i < argc; i++) run_case(find_case(cases, n, argv[i]));
  else
    for (size_t k = 0; k < n; k++) run_case(&cases[k]);
  printf("total %.2f s cpu, %.2f s wall\n", check_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu,
         check_seconds(CLOCK_MONOTONIC) - wall);
  return test_result(test);
}

#endif
