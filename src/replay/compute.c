/* compute.c — the one place the replay spends compute time: a busy-wait on
 * the monotonic clock (the default: it keeps the core as the application
 * did) or a sleep, until `seconds` after `from` (the return of the previous
 * call): the engine's own work between two calls is part of the delay, not
 * added to it. A simulation build replaces this file's work with the
 * simulator's. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "replay.h"

double rp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rp_compute(double from, double seconds, int sleep) {
  if (seconds <= 0) return;
  seconds -= rp_now() - from;
  if (seconds <= 0) return;
  if (sleep) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
    return;
  }
  double end = rp_now() + seconds;
  while (rp_now() < end) {
  }
}
