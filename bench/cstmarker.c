/* cstmarker.c — the cost of one CST marker (doc/CST.md "Costs"), no MPI:
 * a loop of N iterations with nothing, then with one tf__cst_iter per
 * iteration (include/tracefold_cst.h: the weak function's test, and the
 * call into libtracefold.so when it is loaded), then with the alternative
 * the marker API could have used, a thread-local counter the recorder
 * reads (in a shared library, initial-exec TLS like the recorder's own:
 * bench_cst_tls.c). Prints "variant ns-per-iteration" lines (the median
 * of 7 runs), the empty loop's cost subtracted. Run it with and without
 * LD_PRELOAD=libtracefold.so (bench/cst.sh). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "tracefold_cst.h"

extern __thread unsigned long long bench_cst_tls_counter;

static volatile unsigned long long sink;

__attribute__((noinline)) static double run(int variant, long n) {
  double t0 = bench_now_ns();
  unsigned long long s = 0;
  for (long i = 0; i < n; i++) {
    if (variant == 1) tf__cst_iter(7);
    else if (variant == 2) bench_cst_tls_counter++;
    s += (unsigned long long)i;
    __asm__ volatile("" : "+r"(s));
  }
  sink = s;
  return (bench_now_ns() - t0) / (double)n;
}

static double median(int variant, long n) {
  double v[7];
  for (int k = 0; k < 7; k++) v[k] = run(variant, n);
  qsort(v, 7, sizeof v[0], bench_cmp_double);
  return v[3];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 20000000L;
  if (n <= 0) {
    fprintf(stderr, "usage: bench_cstmarker [ITERATIONS]\n");
    return 2;
  }
  double base = median(0, n);
  printf("empty_loop %.2f\n", base);
  printf("marker_call %.2f\n", median(1, n) - base);
  printf("tls_counter %.2f\n", median(2, n) - base);
  printf("recorder_loaded %d\n", tf_cst_loop_iter != 0);
  return 0;
}
