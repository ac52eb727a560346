/* compute.c — the one place the replay spends compute time: a busy-wait on
 * the monotonic clock (the default: it keeps the core as the application
 * did) or a sleep (for delays over 200 us, up to 100 us before the end:
 * sleeps overshoot), until `seconds` after `from` (the return of the
 * previous call): the engine's own work between two calls is part of the
 * delay, not added to it. The simulation build replaces this file with
 * compute_sim.c. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "replay.h"

double rp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rp_compute(rp_thread *T, double seconds, int now) {
  (void)now; /* live, a local call's compute is spent before it like any other */
  if (seconds <= 0) return;
  int sleep = T->E->opt.sleep;
  double end = T->last_return + seconds, left = end - rp_now();
  /* a sleep overshoots by tens of microseconds: sleep until shortly before
   * the end, spin the rest (short delays are spun) */
  if (sleep && left > 200e-6) {
    left -= 100e-6;
    struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  while (rp_now() < end) {
  }
}
