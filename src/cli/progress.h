/* progress.h — the progress line of long operations (export, report): on
 * stderr, one line rewritten in place with \r, when stderr is a terminal or
 * --progress asks for it; nothing otherwise. */
#ifndef TF_CLI_PROGRESS_H
#define TF_CLI_PROGRESS_H

#include <stdint.h>

typedef struct tf_progress {
  const char *what; /* "tracefold export otf2" */
  int on;
  double last;      /* when it was last printed (s) */
  int printed;      /* a line is on the screen */
} tf_progress;

/* forced: --progress was given. */
void tf_progress_init(tf_progress *p, const char *what, int forced);
/* The callback exporters take (tf_export_progress), arg a tf_progress. */
void tf_progress_cb(uint64_t done, uint64_t total, void *arg);
/* Ends the line (before the outcome is printed). */
void tf_progress_end(tf_progress *p);

#endif
