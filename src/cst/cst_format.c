/* cst_format.c — the CST text format (doc/CST.md "File format"): write,
 * read, and show as a tree with function calls expanded in place.
 *
 *   tracefold-cst 1
 *   KIND ID NAME FILE:LINE:COL      one node a line, indented two spaces per level
 *
 * KIND is func, loop, branch, arm, mpi, call or indirect; a line's parent is
 * the nearest line above it that is one level less indented. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cst.h"

const char *const cst_kind_names[CST_NKINDS] = {"func", "loop", "branch", "arm", "mpi", "call", "indirect"};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int cst_add(cst *t, int parent, cst_kind kind, const char *name, const char *file, unsigned line, unsigned col) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    cst_node *nodes = realloc(t->nodes, (size_t)cap * sizeof *nodes);
    if (!nodes) return -1;
    t->nodes = nodes;
    t->cap = cap;
  }
  cst_node *n = &t->nodes[t->n];
  memset(n, 0, sizeof *n);
  n->id = t->n;
  n->parent = parent;
  n->depth = parent < 0 ? 0 : t->nodes[parent].depth + 1;
  n->kind = kind;
  n->name = dup_str(name);
  n->file = dup_str(file);
  n->line = line;
  n->col = col;
  if (!n->name || !n->file) {
    free(n->name);
    free(n->file);
    return -1;
  }
  return t->n++;
}

void cst_free(cst *t) {
  for (int i = 0; i < t->n; i++) {
    free(t->nodes[i].name);
    free(t->nodes[i].file);
    free(t->nodes[i].fntype);
  }
  free(t->nodes);
  memset(t, 0, sizeof *t);
}

static void put_node(const cst_node *n, int depth, FILE *f) {
  fprintf(f, "%*s%s %d %s ", 2 * depth, "", cst_kind_names[n->kind], n->id, n->name);
  if (strcmp(n->file, "-") == 0)
    fputs("-\n", f);
  else
    fprintf(f, "%s:%u:%u\n", n->file, n->line, n->col);
}

int cst_write(const cst *t, FILE *f) {
  fputs("tracefold-cst 1\n", f);
  for (int i = 0; i < t->n; i++) put_node(&t->nodes[i], t->nodes[i].depth, f);
  return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static int bad(const char *who, const char *path, int line, const char *what) {
  fprintf(stderr, "%s: %s:%d: %s\n", who, path, line, what);
  return -1;
}

/* "FILE:LINE:COL" (FILE may hold colons) or "-" */
static int split_location(char *loc, unsigned *line, unsigned *col) {
  if (strcmp(loc, "-") == 0) return 0;
  char *c2 = strrchr(loc, ':');
  if (!c2 || c2 == loc) return -1;
  *c2 = '\0';
  char *c1 = strrchr(loc, ':');
  if (!c1 || c1 == loc) return -1;
  *c1 = '\0';
  char *e1, *e2;
  unsigned long l = strtoul(c1 + 1, &e1, 10), c = strtoul(c2 + 1, &e2, 10);
  if (*e1 || *e2 || e1 == c1 + 1 || e2 == c2 + 1 || l == 0 || l > 0xffffffffUL || c > 0xffffffffUL) return -1;
  *line = (unsigned)l;
  *col = (unsigned)c;
  return 0;
}

int cst_read(const char *who, const char *path, cst *t) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
    return -1;
  }
  char buf[8192];
  int lineno = 0, rc = 0;
  int stack[256]; /* the last node seen at each depth */
  while (rc == 0 && fgets(buf, sizeof buf, f)) {
    lineno++;
    size_t len = strlen(buf);
    if (len && buf[len - 1] == '\n') buf[--len] = '\0';
    else if (!feof(f)) {
      rc = bad(who, path, lineno, "line too long");
      break;
    }
    if (lineno == 1) {
      if (strcmp(buf, "tracefold-cst 1") != 0) rc = bad(who, path, lineno, "not a CST file (expected \"tracefold-cst 1\")");
      continue;
    }
    int indent = 0;
    while (buf[indent] == ' ') indent++;
    if (indent % 2 || indent / 2 >= 256) {
      rc = bad(who, path, lineno, "indentation is not two spaces a level");
      break;
    }
    int depth = indent / 2;
    char kind[16], name[4096], loc[4096];
    int id, used = 0;
    if (sscanf(buf + indent, "%15s %d %4095s %4095s%n", kind, &id, name, loc, &used) != 4 || buf[indent + used]) {
      rc = bad(who, path, lineno, "expected KIND ID NAME FILE:LINE:COL");
      break;
    }
    int k = 0;
    while (k < CST_NKINDS && strcmp(kind, cst_kind_names[k]) != 0) k++;
    if (k == CST_NKINDS) {
      rc = bad(who, path, lineno, "unknown node kind");
      break;
    }
    if ((depth == 0) != (k == CST_FUNC)) {
      rc = bad(who, path, lineno, "a func is a top-level line, every other node is inside one");
      break;
    }
    if (id != t->n) {
      rc = bad(who, path, lineno, "node ids must count 0, 1, ... in file order");
      break;
    }
    if (depth > 0 && (t->n == 0 || depth > t->nodes[t->n - 1].depth + 1)) {
      rc = bad(who, path, lineno, "indented more than one level below the line above");
      break;
    }
    unsigned line = 0, col = 0;
    if (split_location(loc, &line, &col)) {
      rc = bad(who, path, lineno, "malformed location (expected FILE:LINE:COL or -)");
      break;
    }
    int parent = depth ? stack[depth - 1] : -1;
    int i = cst_add(t, parent, (cst_kind)k, name, loc, line, col);
    if (i < 0) {
      rc = bad(who, path, lineno, "out of memory");
      break;
    }
    stack[depth] = i;
  }
  if (rc == 0 && ferror(f)) rc = bad(who, path, lineno, strerror(errno));
  if (rc == 0 && lineno == 0) rc = bad(who, path, 1, "empty file (expected \"tracefold-cst 1\")");
  fclose(f);
  if (rc) cst_free(t);
  return rc;
}

int cst_find_func(const cst *t, const char *name) {
  for (int i = 0; i < t->n; i++)
    if (t->nodes[i].kind == CST_FUNC && strcmp(t->nodes[i].name, name) == 0) return i;
  return -1;
}

/* node i's subtree (without i) at `depth`; `active` marks the functions being expanded (recursion) */
static void show_below(const cst *t, int i, int depth, char *active, FILE *f) {
  for (int j = i + 1; j < t->n && t->nodes[j].depth > t->nodes[i].depth; j++) {
    if (t->nodes[j].parent != i) continue;
    const cst_node *n = &t->nodes[j];
    fprintf(f, "%*s", 2 * depth, "");
    switch (n->kind) {
    case CST_LOOP: fprintf(f, "%d: loop (%s)", n->id, n->name); break;
    case CST_BRANCH: fprintf(f, "%d: branch (%s)", n->id, n->name); break;
    case CST_ARM: fprintf(f, "%d: arm %s", n->id, n->name); break;
    case CST_MPI: fprintf(f, "%d: %s", n->id, n->name); break;
    case CST_CALL: fprintf(f, "%d: %s()", n->id, n->name); break;
    default: fprintf(f, "%d: indirect call through %s", n->id, n->name); break;
    }
    if (strcmp(n->file, "-") == 0)
      fputs(n->kind == CST_ARM ? "  (implicit else)\n" : "\n", f);
    else
      fprintf(f, "  %s:%u\n", n->file, n->line);
    if (n->kind == CST_CALL) {
      int g = cst_find_func(t, n->name);
      if (g < 0)
        fprintf(f, "%*s(not in the CST)\n", 2 * depth + 2, "");
      else if (active[g])
        fprintf(f, "%*s(recursive: %s is being expanded above)\n", 2 * depth + 2, "", n->name);
      else {
        active[g] = 1;
        show_below(t, g, depth + 1, active, f);
        active[g] = 0;
      }
    } else
      show_below(t, j, depth + 1, active, f);
  }
}

int cst_show(const cst *t, const char *root, FILE *f) {
  char *active = calloc((size_t)t->n + 1, 1);
  if (!active) return -1;
  int r = cst_find_func(t, root ? root : "main");
  if (root && r < 0) {
    fprintf(stderr, "tracefold cst: no function %s in the CST\n", root);
    free(active);
    return -1;
  }
  for (int i = 0; i < t->n; i++) {
    if (t->nodes[i].kind != CST_FUNC || (r >= 0 && i != r)) continue;
    fprintf(f, "%d: %s  %s:%u\n", t->nodes[i].id, t->nodes[i].name, t->nodes[i].file, t->nodes[i].line);
    active[i] = 1;
    show_below(t, i, 1, active, f);
    active[i] = 0;
  }
  free(active);
  return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
