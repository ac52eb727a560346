/* progress.c — the progress line; see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tf_progress_init(tf_progress *p, const char *what, int forced) {
  double t = now();
  *p = (tf_progress){.what = what, .unit = "events", .on = forced || isatty(2), .start = t, .last = t};
}

void tf_progress_cb(uint64_t done, uint64_t total, void *arg) {
  tf_progress *p = arg;
  if (!p->on) return;
  double t = now();
  if (done < total && t - p->last < 0.25 && p->printed) return;
  p->last = t;
  double pct = total ? 100.0 * (double)done / (double)total : 100.0;
  fprintf(stderr, "\r%s: %5.1f%% (%llu of %llu %s)", p->what, pct > 100 ? 100.0 : pct, (unsigned long long)done,
          (unsigned long long)total, p->unit);
  fflush(stderr);
  p->printed = 1;
}

void tf_progress_elapsed(tf_progress *p) {
  if (!p || !p->on) return;
  double t = now();
  if (t - p->last < 0.25 && p->printed) return;
  p->last = t;
  /* the trailing blanks wipe a longer line printed before */
  fprintf(stderr, "\r%s: %s%s%.1f s elapsed   ", p->what, p->note ? p->note : "", p->note ? ", " : "", t - p->start);
  fflush(stderr);
  p->printed = 1;
}

void tf_progress_end(tf_progress *p) {
  if (p->printed) fputc('\n', stderr);
  p->printed = 0;
}

void tf_progress_note(const char *text, void *arg) {
  tf_progress *p = arg;
  tf_progress_end(p);
  fprintf(stderr, "%s: note: %s\n", p->what, text);
}
