/* cst_rewrite.c — a copy of a C source with CST markers (include/tracefold_cst.h)
 * on the loops and branches of the CST, inserted at libclang's source
 * ranges without adding a line, behind a #line 1 directive: every call
 * keeps its file:line.
 *
 *   loop:    { tf__cst_enter(ID); for (...) { tf__cst_iter(ID); BODY } tf__cst_exit(ID); }
 *   if:      { if (tf__cst_arm(ID, (COND) ? THEN : ELSE) == THEN) ... tf__cst_end(ID); }
 *   switch:  { switch (...) { case X: tf__cst_arm(ID, ARM); ... } tf__cst_end(ID); }
 * (THEN, ELSE, ARM: the arms' own ids). Nodes without ranges (made by a
 * macro) are left as they are, and so are a switch's arms then. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cst.h"

typedef struct insertion {
  unsigned at;
  int close; /* ends something: before the opens at the same place, innermost first */
  int rank;  /* nesting: 4 * depth + part */
  int seq;
  char text[80];
} insertion;

static int by_place(const void *a, const void *b) {
  const insertion *x = a, *y = b;
  if (x->at != y->at) return x->at < y->at ? -1 : 1;
  if (x->close != y->close) return x->close ? -1 : 1;
  if (x->rank != y->rank) return (x->close ? x->rank > y->rank : x->rank < y->rank) ? -1 : 1;
  return x->seq - y->seq;
}

typedef struct plan {
  insertion *v;
  int n;
} plan;

__attribute__((format(printf, 5, 6))) static void put(plan *p, unsigned at, int close, int rank, const char *fmt,
                                                      ...) {
  insertion *s = &p->v[p->n];
  s->at = at;
  s->close = close;
  s->rank = rank;
  s->seq = p->n++;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->text, sizeof s->text, fmt, ap);
  va_end(ap);
}

/* the id of arm `k` ("0", "1") of the branch at index b (children follow their parent) */
static int arm_id(const cst *t, int b, const char *k) {
  for (int j = b + 1; j < t->n; j++)
    if (t->nodes[j].parent == b && t->nodes[j].kind == CST_ARM && strcmp(t->nodes[j].name, k) == 0)
      return t->nodes[j].id;
  return -1;
}

char *cst_read_text(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0, got;
  do {
    if (n == cap) {
      char *b = realloc(buf, (cap = cap ? 2 * cap : 65536) + 1);
      if (!b) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = b;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  if (!buf && !(buf = malloc(1))) return NULL;
  buf[n] = '\0';
  *size = n;
  return buf;
}

int cst_rewrite_file(const cst *t, const char *src, const char *out_path) {
  size_t size;
  char *text = cst_read_text(src, &size);
  if (!text) {
    fprintf(stderr, "tracefold-cc: %s: %s\n", src, strerror(errno));
    return -1;
  }
  plan p = {calloc(4 * (size_t)t->n + 1, sizeof(insertion)), 0};
  if (!p.v) {
    free(text);
    fprintf(stderr, "tracefold-cc: out of memory\n");
    return -1;
  }
  for (int i = 0; i < t->n; i++) {
    const cst_node *n = &t->nodes[i];
    if (!n->has_ranges || strcmp(n->file, src) != 0 || n->body_begin > size || n->end > size) continue;
    int r = 4 * n->depth;
    if (n->kind == CST_LOOP) {
      put(&p, n->begin, 0, r, "{ tf__cst_enter(%d); ", n->id);
      put(&p, n->end, 1, r, " tf__cst_exit(%d); }", n->id);
      if (n->body_compound)
        put(&p, n->body_begin + 1, 0, r + 2, " tf__cst_iter(%d);", n->id);
      else {
        put(&p, n->body_begin, 0, r + 2, "{ tf__cst_iter(%d); ", n->id);
        put(&p, n->body_end, 1, r + 2, " }");
      }
    } else if (n->kind == CST_BRANCH) {
      int then = arm_id(t, i, "0"), other = arm_id(t, i, "1");
      if (strcmp(n->name, "if") == 0 && (then < 0 || other < 0)) continue;
      put(&p, n->begin, 0, r, "{ ");
      put(&p, n->end, 1, r, " tf__cst_end(%d); }", n->id);
      if (strcmp(n->name, "if") == 0) {
        put(&p, n->body_begin, 0, r + 1, "tf__cst_arm(%d, (", n->id);
        put(&p, n->body_end, 1, r + 1, ") ? %d : %d) == %d", then, other, then);
      }
    } else if (n->kind == CST_ARM && n->parent >= 0 && strcmp(t->nodes[n->parent].name, "switch") == 0 &&
               t->nodes[n->parent].has_ranges && strcmp(t->nodes[n->parent].file, src) == 0)
      put(&p, n->body_begin, 0, r + 3, "tf__cst_arm(%d, %d); ", t->nodes[n->parent].id, n->id);
  }
  qsort(p.v, (size_t)p.n, sizeof *p.v, by_place);
  FILE *f = fopen(out_path, "w");
  int rc = -1;
  if (f) {
    fputs("#include \"tracefold_cst.h\"\n#line 1 \"", f);
    for (const char *c = src; *c; c++) {
      if (*c == '"' || *c == '\\') fputc('\\', f);
      fputc(*c, f);
    }
    fputs("\"\n", f);
    size_t at = 0;
    for (int k = 0; k < p.n; k++) {
      fwrite(text + at, 1, p.v[k].at - at, f);
      at = p.v[k].at;
      fputs(p.v[k].text, f);
    }
    fwrite(text + at, 1, size - at, f);
    rc = fclose(f) == 0 ? 0 : -1;
  }
  if (rc) fprintf(stderr, "tracefold-cc: %s: cannot write the rewritten copy: %s\n", out_path, strerror(errno));
  free(p.v);
  free(text);
  return rc;
}
