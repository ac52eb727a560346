/* cst_rewrite.c — a copy of a C source with CST markers (include/tracefold_cst.h)
 * on the loops and branches of the CST, inserted at libclang's source
 * ranges without adding a line, behind a #line 1 directive: every call
 * keeps its file:line.
 *
 *   loop:    { tf__cst_enter(ID); for (...) { tf__cst_iter(ID); BODY } tf__cst_exit(ID); }
 *   if:      if (tf__cst_arm(ID, (COND) ? 0 : 1) == 0) ...
 *   switch:  case X: tf__cst_arm(ID, K); ...
 * Nodes without ranges (made by a macro) are left as they are. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cst.h"

typedef struct insertion {
  unsigned at;
  int close; /* ends something: before the opens at the same place, innermost first */
  int rank;  /* nesting: 4 * depth + part */
  int seq;
  char text[64];
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

static void put(plan *p, unsigned at, int close, int rank, const char *fmt, int id, int arg) {
  insertion *s = &p->v[p->n];
  s->at = at;
  s->close = close;
  s->rank = rank;
  s->seq = p->n++;
  snprintf(s->text, sizeof s->text, fmt, id, arg);
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
  plan p = {calloc(3 * (size_t)t->n + 1, sizeof(insertion)), 0};
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
      put(&p, n->begin, 0, r, "{ tf__cst_enter(%d); ", n->id, 0);
      put(&p, n->end, 1, r, " tf__cst_exit(%d); }", n->id, 0);
      if (n->body_compound)
        put(&p, n->body_begin + 1, 0, r + 2, " tf__cst_iter(%d);", n->id, 0);
      else {
        put(&p, n->body_begin, 0, r + 2, "{ tf__cst_iter(%d); ", n->id, 0);
        put(&p, n->body_end, 1, r + 2, " }", 0, 0);
      }
    } else if (n->kind == CST_BRANCH && strcmp(n->name, "if") == 0) {
      put(&p, n->body_begin, 0, r + 1, "tf__cst_arm(%d, (", n->id, 0);
      put(&p, n->body_end, 1, r + 1, ") ? 0 : 1) == 0", 0, 0);
    } else if (n->kind == CST_ARM && n->parent >= 0 && strcmp(t->nodes[n->parent].name, "switch") == 0)
      put(&p, n->body_begin, 0, r + 3, "tf__cst_arm(%d, %d); ", t->nodes[n->parent].id, atoi(n->name));
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
