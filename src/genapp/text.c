/* text.c — growable text: the generated program's parts are built in
 * memory, then joined (genapp.c). A failed allocation marks the text,
 * which the generator reports once at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"

static int grow(tfg_text *t, size_t more) {
  if (t->failed) return -1;
  if (t->len + more + 1 <= t->cap) return 0;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more + 1) cap *= 2;
  char *p = realloc(t->p, cap);
  if (!p) return t->failed = 1, -1;
  t->p = p;
  t->cap = cap;
  return 0;
}

void tfg_put(tfg_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || grow(t, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

void tfg_puts(tfg_text *t, const char *s) {
  size_t n = strlen(s);
  if (grow(t, n)) return;
  memcpy(t->p + t->len, s, n + 1);
  t->len += n;
}

void tfg_text_free(tfg_text *t) {
  free(t->p);
  *t = (tfg_text){0};
}
