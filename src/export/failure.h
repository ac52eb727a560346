/* failure.h — an exporter's first failure (the status it ends with and its
 * message) and the notes it passes on: shared by smpi.c, otf2.c, chrome.c
 * and report.c, whose contexts each hold one xp_failure. */
#ifndef TF_EXPORT_FAILURE_H
#define TF_EXPORT_FAILURE_H

#include "export.h"

typedef struct xp_failure {
  int rc;         /* 0 until something fails; then the status to end with */
  char err[1024]; /* what failed, for the caller's message */
} xp_failure;

/* Keep the first failure: rc and the formatted message (a later one is
 * dropped, its cause being the first). Returns -1, for `return xp_fail(...)`. */
int xp_fail(xp_failure *f, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Format a note (one line) and pass it to note(text, arg); nothing if note is NULL. */
void xp_note(tf_export_note note, void *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
