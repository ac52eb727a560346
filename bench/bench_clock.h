/* bench_clock.h — timing helpers shared by the benchmark programs. */
#ifndef TF_BENCH_CLOCK_H
#define TF_BENCH_CLOCK_H

#include <time.h>

static inline double bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
