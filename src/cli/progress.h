/* progress.h — the progress line of long operations (export, report, merge,
 * replay, simulate): on stderr, one line rewritten in place with \r, when
 * stderr is a terminal or --progress asks for it; nothing otherwise. */
#ifndef TF_CLI_PROGRESS_H
#define TF_CLI_PROGRESS_H

#include <stdint.h>

typedef struct tf_progress {
  const char *what; /* "tracefold export otf2" */
  const char *unit; /* what tf_progress_cb counts: "events" (the default), "ranks" */
  const char *note; /* tf_progress_elapsed: what is running ("bandwidth=1Gbps, 2 of 3"), or NULL */
  int on;
  double start;     /* when tf_progress_init was called (s) */
  double last;      /* when it was last printed (s) */
  int printed;      /* a line is on the screen */
} tf_progress;

/* forced: --progress was given. */
void tf_progress_init(tf_progress *p, const char *what, int forced);
/* The callback exporters take (tf_export_progress), arg a tf_progress:
 * "\rWHAT:  42.0% (21 of 50 UNIT)". */
void tf_progress_cb(uint64_t done, uint64_t total, void *arg);
/* Waiting on something whose progress is unknown (a launched job):
 * "\rWHAT: NOTE, 12.3 s elapsed", at most 4 times a second. */
void tf_progress_elapsed(tf_progress *p);
/* Ends the line (before the outcome is printed). */
void tf_progress_end(tf_progress *p);
/* The note callback exporters take (tf_export_note), arg a tf_progress:
 * "WHAT: note: TEXT" on a line of its own. */
void tf_progress_note(const char *text, void *arg);

#endif
