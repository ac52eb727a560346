/* vseq_text.c — value sequences and rank lists as text, for people.
 * A value sequence (tracefold show):
 *   5            always 5
 *   7 x4         7 four times (inside a longer sequence)
 *   0..99        counting up by 1;  0..90/+10  by 10
 *   {a, b} x8    the group a, b eight times;  {..} x8 +1  each repetition adds 1
 *   [..]         several parts in order
 * A rank list: blocks "<dims start count stride ...>" (ranklist.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "tracefold.h"
#include "merge/ranklist.h"
#include "fold/vseq.h"

typedef struct out {
  char *p;
  size_t left;
} out;

static void put(out *o, const char *fmt, ...) {
  if (o->left <= 1) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->p, o->left, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  size_t used = (size_t)k < o->left ? (size_t)k : o->left - 1;
  o->p += used;
  o->left -= used;
}

static void put_value(out *o, int64_t v) {
  char b[64];
  tf_format_value(v, b, sizeof b);
  put(o, "%s", b);
}

static void put_items(out *o, const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) put(o, ", ");
    const tf_vitem *x = &it[i];
    if (x->nbody) {
      put(o, "{");
      put_items(o, x->body, x->nbody);
      put(o, "} x%" PRIu64, x->count);
      if (x->step) put(o, " %+" PRId64, x->step);
    } else if (x->count == 1) {
      put_value(o, x->base);
    } else if (x->step == 0) {
      put_value(o, x->base);
      put(o, " x%" PRIu64, x->count);
    } else {
      put_value(o, x->base);
      put(o, "..");
      put_value(o, (int64_t)((uint64_t)x->base + (uint64_t)x->step * (x->count - 1)));
      if (x->step != 1) put(o, "/%+" PRId64, x->step);
    }
  }
}

void tf_vseq_format(const tf_vseq *s, char *buf, size_t len) {
  out o = {buf, len};
  if (len) buf[0] = 0;
  int64_t c;
  if (tf_vseq_is_constant(s, &c)) { /* the same value in every occurrence */
    put_value(&o, c);
    return;
  }
  uint32_t parts = s->n + (s->tcount ? 1 : 0);
  if (parts > 1) put(&o, "[");
  put_items(&o, s->items, s->n);
  if (s->tcount) {
    tf_vitem tail = tf_vseq_tail(s);
    if (s->n) put(&o, ", ");
    put_items(&o, &tail, 1);
  }
  if (parts > 1) put(&o, "]");
}

/* ---- rank lists ---- */

/* A block: repeats of one item each, down to a run. */
static int is_block(const tf_vitem *it, uint32_t *dims) {
  *dims = 1;
  while (it->nbody) {
    if (it->nbody != 1) return 0;
    it = &it->body[0];
    (*dims)++;
  }
  return 1;
}

static void put_blocks(out *o, const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) put(o, " ");
    uint32_t dims;
    if (is_block(&it[i], &dims)) {
      put(o, "<%" PRIu32 " %" PRId64, dims, it[i].base);
      for (const tf_vitem *x = &it[i];; x = &x->body[0]) {
        put(o, " %" PRIu64 " %" PRId64, x->count, x->count > 1 ? x->step : 1);
        if (!x->nbody) break;
      }
      put(o, ">");
    } else {
      put(o, "(");
      put_blocks(o, it[i].body, it[i].nbody);
      put(o, ")x%" PRIu64 "+%" PRId64, it[i].count, it[i].step);
    }
  }
}

void tf_ranks_format(const tf_vseq *ranks, char *buf, size_t len) {
  out o = {buf, len};
  if (len) buf[0] = 0;
  put_blocks(&o, ranks->items, ranks->n);
  if (ranks->tcount) {
    if (ranks->n) put(&o, " ");
    tf_vitem t = tf_vseq_tail(ranks);
    put_blocks(&o, &t, 1);
  }
}
