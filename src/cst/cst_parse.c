/* cst_parse.c — one C source to the raw CST on libclang cursors: every
 * function definition of the file with its loops (for, while, do),
 * branches (if with arms 0 = then and 1 = else; switch with one arm per
 * case label), direct calls and calls through function pointers, with the
 * byte ranges tracefold-cc rewrites. Locations are expansion locations: a
 * call made by a macro is at the macro's use. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "cst_impl.h"

typedef struct walker {
  cst_raw *raw;
  const char *text; /* the source's bytes, for checking ranges */
  size_t size;
  int failed;
} walker;

static void file_offset(CXSourceLocation loc, CXFile *file, unsigned *line, unsigned *col, unsigned *off) {
  clang_getExpansionLocation(loc, file, line, col, off);
}

static int add_at(walker *w, int parent, cst_kind kind, const char *name, CXCursor c) {
  CXFile file;
  unsigned line, col, off;
  file_offset(clang_getCursorLocation(c), &file, &line, &col, &off);
  CXString fname = clang_getFileName(file);
  const char *fn = clang_getCString(fname);
  int i = cst_add(&w->raw->tree, parent, kind, name, fn && *fn ? fn : "?", line, col);
  clang_disposeString(fname);
  if (i < 0) w->failed = 1;
  return i;
}

/* the cursor's range as offsets in the main file; 0, or -1 when it is not all there */
static int range_of(CXCursor c, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile fb, fe;
  unsigned l, col;
  file_offset(clang_getRangeStart(r), &fb, &l, &col, b);
  file_offset(clang_getRangeEnd(r), &fe, &l, &col, e);
  /* in the main file where it is expanded (an expression that a macro makes starts in the macro's file) */
  CXSourceLocation at = fb ? clang_getLocationForOffset(clang_Cursor_getTranslationUnit(c), fb, *b) : clang_getNullLocation();
  return fb && clang_File_isEqual(fb, fe) && clang_Location_isFromMainFile(at) && *b <= *e ? 0 : -1;
}

typedef struct kids {
  CXCursor c[8];
  int n;
} kids;

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  kids *k = d;
  if (k->n < 8) k->c[k->n] = c;
  k->n++;
  return CXChildVisit_Continue;
}

static kids children(CXCursor c) {
  kids k = {.n = 0};
  clang_visitChildren(c, collect_kid, &k);
  if (k.n > 8) k.n = 8;
  return k;
}

static size_t skip_blank(const walker *w, size_t i) {
  while (i < w->size) {
    if (w->text[i] == ' ' || w->text[i] == '\t' || w->text[i] == '\n' || w->text[i] == '\r' || w->text[i] == '\f')
      i++;
    else if (i + 1 < w->size && w->text[i] == '/' && w->text[i + 1] == '*') {
      const char *e = strstr(w->text + i + 2, "*/");
      i = e ? (size_t)(e - w->text) + 2 : w->size;
    } else if (i + 1 < w->size && w->text[i] == '/' && w->text[i + 1] == '/') {
      while (i < w->size && w->text[i] != '\n') i++;
    } else
      break;
  }
  return i;
}

/* does the statement end with a ';' outside its cursor's extent (an expression, return, do-while ...)? */
static int ends_with_semicolon(CXCursor c) {
  kids k;
  switch (clang_getCursorKind(c)) {
  case CXCursor_CompoundStmt: return 0;
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_SwitchStmt:
  case CXCursor_IfStmt:
  case CXCursor_LabelStmt:
  case CXCursor_CaseStmt:
  case CXCursor_DefaultStmt:
    k = children(c);
    return k.n ? ends_with_semicolon(k.c[k.n - 1]) : 1;
  case CXCursor_DeclStmt:
  case CXCursor_NullStmt: return 0;
  default: return 1;
  }
}

static int ident_char(unsigned char ch) {
  return ch == '_' || (unsigned)((ch | 32) - 'a') < 26u || (unsigned)(ch - '0') < 10u;
}

/* A statement that ends in a function-like macro's use (`WL(MPI_Send, ...);`)
 * may end, as an expansion location, where the use starts: then its end is
 * past the use's closing parenthesis (parentheses in strings and character
 * constants skipped). Anything else is left as it is. */
static size_t skip_macro_use(const walker *w, size_t i) {
  size_t j = i;
  while (j < w->size && ident_char((unsigned char)w->text[j])) j++;
  if (j == i) return i;
  j = skip_blank(w, j);
  if (j >= w->size || w->text[j] != '(') return i;
  for (int depth = 0; j < w->size; j++) {
    char ch = w->text[j];
    if (ch == '"' || ch == '\'') {
      for (j++; j < w->size && w->text[j] != ch; j++)
        if (w->text[j] == '\\') j++;
    } else if (ch == '(') {
      depth++;
    } else if (ch == ')' && --depth == 0) {
      return j + 1;
    }
  }
  return i;
}

/* the end of statement c in the file, after its ';' if it has one; 0 or -1 */
static int statement_end(const walker *w, CXCursor c, unsigned end, unsigned *out) {
  if (!ends_with_semicolon(c)) {
    *out = end;
    return 0;
  }
  size_t i = skip_blank(w, skip_macro_use(w, skip_blank(w, end)));
  if (i >= w->size || w->text[i] != ';') return -1;
  *out = (unsigned)i + 1;
  return 0;
}

static int starts_with_word(const walker *w, unsigned off, const char *word) {
  size_t n = strlen(word);
  if (off + n > w->size || memcmp(w->text + off, word, n) != 0) return 0;
  if (off + n == w->size) return 1;
  return !ident_char((unsigned char)w->text[off + n]);
}

/* a loop's statement range and its body's; a branch's, with its condition (an expression) as the body */
static void set_ranges(walker *w, int node, CXCursor stmt, const char *keyword, CXCursor body, int body_is_expr) {
  cst_node *n = &w->raw->tree.nodes[node];
  unsigned b, e, bb, be;
  if (range_of(stmt, &b, &e) || !starts_with_word(w, b, keyword) || statement_end(w, stmt, e, &e)) return;
  if (range_of(body, &bb, &be) || (!body_is_expr && statement_end(w, body, be, &be)) || bb < b || be > e) return;
  n->begin = b;
  n->end = e;
  n->body_begin = bb;
  n->body_end = be;
  n->body_compound = clang_getCursorKind(body) == CXCursor_CompoundStmt && w->text[bb] == '{' && w->text[be - 1] == '}';
  n->has_ranges = 1;
}

static void visit(walker *w, CXCursor c, int parent);

typedef struct visit_ctx {
  walker *w;
  int parent;
  int skip_first; /* a call's callee: not an address taken */
  int index;
} visit_ctx;

static enum CXChildVisitResult visit_kid(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  visit_ctx *v = d;
  if (!(v->skip_first && v->index++ == 0)) visit(v->w, c, v->parent);
  return CXChildVisit_Continue;
}

static void visit_children(walker *w, CXCursor c, int parent, int skip_first) {
  visit_ctx v = {w, parent, skip_first, 0};
  clang_visitChildren(c, visit_kid, &v);
}

static char *canonical_type(CXType t) {
  CXType ct = clang_getCanonicalType(t);
  if (ct.kind == CXType_Pointer) ct = clang_getCanonicalType(clang_getPointeeType(ct));
  CXString s = clang_getTypeSpelling(ct);
  const char *cs = clang_getCString(s);
  size_t n = strlen(cs) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, cs, n);
  clang_disposeString(s);
  return d;
}

static void note_address_taken(walker *w, CXCursor fn) {
  CXString s = clang_getCursorSpelling(fn);
  const char *name = clang_getCString(s);
  cst_raw *r = w->raw;
  int known = 0;
  for (int i = 0; i < r->ntaken && !known; i++) known = strcmp(r->taken[i].name, name) == 0;
  if (!known) {
    if (r->ntaken == r->captaken) {
      int cap = r->captaken ? 2 * r->captaken : 16;
      cst_addr_taken *t = realloc(r->taken, (size_t)cap * sizeof *t);
      if (!t) {
        w->failed = 1;
        clang_disposeString(s);
        return;
      }
      r->taken = t;
      r->captaken = cap;
    }
    size_t n = strlen(name) + 1;
    char *d = malloc(n);
    char *ty = canonical_type(clang_getCursorType(fn));
    if (!d || !ty) {
      free(d);
      free(ty);
      w->failed = 1;
    } else {
      memcpy(d, name, n);
      r->taken[r->ntaken].name = d;
      r->taken[r->ntaken].fntype = ty;
      r->ntaken++;
    }
  }
  clang_disposeString(s);
}

/* a callee expression's tokens, without spaces ("ops[i%3]", "s->fn"), cut at len; "?" when none */
static void callee_text(CXCursor callee, char *out, size_t len) {
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(callee);
  CXToken *toks = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(callee), &toks, &n);
  size_t used = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < n; i++) {
    CXString t = clang_getTokenSpelling(tu, toks[i]);
    const char *ts = clang_getCString(t);
    size_t tl = strlen(ts);
    if (used + tl < len) {
      memcpy(out + used, ts, tl + 1);
      used += tl;
    }
    clang_disposeString(t);
  }
  if (toks) clang_disposeTokens(tu, toks, n);
  if (!used) snprintf(out, len, "?");
}

static void visit_call(walker *w, CXCursor c, int parent) {
  visit_children(w, c, parent, 1); /* the arguments are evaluated first */
  if (parent < 0) return;
  CXCursor callee = clang_getCursorReferenced(c);
  if (clang_getCursorKind(callee) == CXCursor_FunctionDecl) {
    CXString s = clang_getCursorSpelling(callee);
    const char *name = clang_getCString(s);
    int mpi = (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0) && strcmp(name, "MPI_Wtime") &&
              strcmp(name, "MPI_Wtick");
    add_at(w, parent, mpi ? CST_MPI : CST_CALL, name, c);
    clang_disposeString(s);
    return;
  }
  kids k = children(c);
  if (k.n == 0) return;
  char spelled[256];
  callee_text(k.c[0], spelled, sizeof spelled);
  int i = add_at(w, parent, CST_INDIRECT, spelled, c);
  if (i >= 0 && !(w->raw->tree.nodes[i].fntype = canonical_type(clang_getCursorType(k.c[0])))) w->failed = 1;
}

/* a switch's body: each case or default label starts an arm (under `branch`) that holds what follows it */
typedef struct switch_ctx {
  walker *w;
  int branch, arm, narms;
} switch_ctx;

static void switch_item(switch_ctx *s, CXCursor c);

static enum CXChildVisitResult switch_kid(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  switch_item(d, c);
  return CXChildVisit_Continue;
}

static void switch_item(switch_ctx *s, CXCursor c) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt) {
    char name[16];
    snprintf(name, sizeof name, "%d", s->narms++);
    s->arm = add_at(s->w, s->branch, CST_ARM, name, c);
    if (s->arm < 0) return;
    kids sub = children(c);
    if (sub.n == 0) return;
    CXCursor body = sub.c[sub.n - 1]; /* the labelled statement */
    cst_node *n = &s->w->raw->tree.nodes[s->arm];
    unsigned b, e;
    if (range_of(body, &b, &e) == 0) {
      n->body_begin = b;
      n->has_ranges = 1;
    }
    switch_item(s, body);
  } else if (k == CXCursor_CompoundStmt && s->arm < 0 && s->narms == 0)
    clang_visitChildren(c, switch_kid, s); /* the switch's { } */
  else
    visit(s->w, c, s->arm >= 0 ? s->arm : s->branch);
}

static void visit(walker *w, CXCursor c, int parent) {
  if (w->failed) return;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (parent < 0 && k != CXCursor_DeclRefExpr) { /* outside functions: only addresses taken */
    visit_children(w, c, parent, 0);
    return;
  }
  switch (k) {
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt: {
    const char *kw = k == CXCursor_ForStmt ? "for" : k == CXCursor_WhileStmt ? "while" : "do";
    int i = add_at(w, parent, CST_LOOP, kw, c);
    if (i < 0) return;
    kids kd = children(c);
    if (kd.n) set_ranges(w, i, c, kw, k == CXCursor_DoStmt ? kd.c[0] : kd.c[kd.n - 1], 0);
    visit_children(w, c, i, 0);
    return;
  }
  case CXCursor_IfStmt: {
    int i = add_at(w, parent, CST_BRANCH, "if", c);
    if (i < 0) return;
    kids kd = children(c);
    if (kd.n < 2) return;
    set_ranges(w, i, c, "if", kd.c[0], 1); /* the body range of an if: its condition */
    visit(w, kd.c[0], i);
    int a0 = add_at(w, i, CST_ARM, "0", kd.c[1]);
    if (a0 < 0) return;
    visit(w, kd.c[1], a0);
    int a1 = kd.n > 2 ? add_at(w, i, CST_ARM, "1", kd.c[2]) : cst_add(&w->raw->tree, i, CST_ARM, "1", "-", 0, 0);
    if (a1 < 0) {
      w->failed = 1;
      return;
    }
    if (kd.n > 2) visit(w, kd.c[2], a1);
    return;
  }
  case CXCursor_SwitchStmt: {
    int i = add_at(w, parent, CST_BRANCH, "switch", c);
    if (i < 0) return;
    kids kd = children(c);
    if (kd.n < 2) return;
    set_ranges(w, i, c, "switch", kd.c[0], 1);
    visit(w, kd.c[0], i);
    switch_ctx s = {w, i, -1, 0};
    switch_item(&s, kd.c[kd.n - 1]);
    return;
  }
  case CXCursor_CallExpr: visit_call(w, c, parent); return;
  case CXCursor_DeclRefExpr:
    if (clang_getCursorKind(clang_getCursorReferenced(c)) == CXCursor_FunctionDecl)
      note_address_taken(w, clang_getCursorReferenced(c));
    return;
  default: visit_children(w, c, parent, 0); return;
  }
}

static enum CXChildVisitResult visit_top(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  walker *w = d;
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
  if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
    CXString s = clang_getCursorSpelling(c);
    int f = add_at(w, -1, CST_FUNC, clang_getCString(s), c);
    clang_disposeString(s);
    if (f >= 0) visit_children(w, c, f, 0);
  } else
    visit(w, c, -1);
  return w->failed ? CXChildVisit_Break : CXChildVisit_Continue;
}

int cst_parse_file(const char *file, const char *const *args, int nargs, cst_raw *raw) {
  walker w = {raw, NULL, 0, 0};
  w.text = cst_read_text(file, &w.size);
  if (!w.text) {
    fprintf(stderr, "tracefold cst: %s: cannot read the file\n", file);
    return -1;
  }
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = NULL;
  enum CXErrorCode ec = clang_parseTranslationUnit2(index, file, args, nargs, NULL, 0, CXTranslationUnit_None, &tu);
  int rc = 0;
  if (ec != CXError_Success || !tu) {
    fprintf(stderr, "tracefold cst: %s: libclang could not parse the file (error %d)\n", file, (int)ec);
    rc = -1;
  } else {
    unsigned nd = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < nd; i++) {
      CXDiagnostic d = clang_getDiagnostic(tu, i);
      enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
      if (sev >= CXDiagnostic_Error) {
        CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
        fprintf(stderr, "tracefold cst: %s\n", clang_getCString(s));
        clang_disposeString(s);
        rc = -1;
      }
      clang_disposeDiagnostic(d);
    }
    if (rc == 0) {
      clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_top, &w);
      if (w.failed) {
        fprintf(stderr, "tracefold cst: %s: out of memory\n", file);
        rc = -1;
      }
    }
    clang_disposeTranslationUnit(tu);
  }
  clang_disposeIndex(index);
  free((char *)w.text);
  return rc;
}
