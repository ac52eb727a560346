/* failure.c — an exporter's first failure and its notes (failure.h). */
#include "failure.h"

#include <stdarg.h>
#include <stdio.h>

int xp_fail(xp_failure *f, int rc, const char *fmt, ...) {
  if (f->rc) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->err, sizeof f->err, fmt, ap);
  va_end(ap);
  f->rc = rc;
  return -1;
}

void xp_note(tf_export_note note, void *arg, const char *fmt, ...) {
  if (!note) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  note(text, arg);
}
