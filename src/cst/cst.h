/* cst.h — the program communication structure tree (CST) of C sources:
 * the functions that reach MPI and, in them, the loops, branches and MPI
 * call sites on the way (doc/CST.md). Built by static analysis on libclang
 * (cst_parse.c, cst_graph.c), written and read as text (cst_format.c), and
 * used by tracefold-cc to rewrite sources with markers (cst_rewrite.c). */
#ifndef TF_CST_H
#define TF_CST_H

#include <stdio.h>

typedef enum cst_kind {
  CST_FUNC,     /* a function definition that reaches MPI (a root) */
  CST_LOOP,     /* for, while, do */
  CST_BRANCH,   /* if, switch */
  CST_ARM,      /* one arm of a branch: if 0 = then, 1 = else; switch k = k-th case label */
  CST_MPI,      /* a call of an MPI_ / PMPI_ function */
  CST_CALL,     /* a call of a function of the analysed sources that reaches MPI */
  CST_INDIRECT, /* a call through a function pointer; its CST_CALL children are the resolved targets */
  CST_NKINDS
} cst_kind;

typedef struct cst_node {
  int id;     /* its number in the file: 0, 1, ... in file order */
  int parent; /* index of the parent node, -1 for a function */
  int depth;
  cst_kind kind;
  char *name;   /* function/callee name; loop "for"/"while"/"do"; branch "if"/"switch"; arm its number */
  char *file;   /* where it is (the expansion location of a macro), "-" for an implicit else */
  unsigned line, col;
  /* source ranges for the rewrite (byte offsets in the file; not in the text format) */
  unsigned begin, end;           /* the statement (loop, branch) */
  unsigned body_begin, body_end; /* a loop's body; a branch's condition or switch's operand; an arm's statement */
  int body_compound;             /* the body is a { } block */
  int has_ranges;
  char *fntype; /* an indirect call's function type (canonical spelling); analysis only */
} cst_node;

typedef struct cst {
  cst_node *nodes; /* parents before children, children in source order */
  int n, cap;
} cst;

extern const char *const cst_kind_names[CST_NKINDS];

/* ---- cst_format.c: the text format (doc/CST.md) */
/* Write the CST; 0, or -1 (errno) when writing failed. */
int cst_write(const cst *t, FILE *f);
/* Read a CST file; 0, or -1 after one line on stderr naming the file, line
 * and the problem, after `who` (the command: "tracefold show"). */
int cst_read(const char *who, const char *path, cst *t);
/* The tree as indented lines, calls of functions expanded in place from
 * `root` ("main" when NULL and there is one; otherwise every function). */
int cst_show(const cst *t, const char *root, FILE *f);
/* Append a node (strings copied); its index, or -1 when out of memory. */
int cst_add(cst *t, int parent, cst_kind kind, const char *name, const char *file, unsigned line, unsigned col);
void cst_free(cst *t);
/* The index of the func node `name`, or -1. */
int cst_find_func(const cst *t, const char *name);

/* ---- cst_parse.c + cst_graph.c: the analysis */
/* Parse `nfiles` sources with the compiler flags `args` (-I, -D, -std ...),
 * keep what reaches MPI (interprocedurally, across the files), number the
 * nodes. 0, or -1 after printing the parse errors. Notes on what could not
 * be resolved (indirect calls without a target) go to `notes` (may be NULL). */
int cst_analyse(const char *const *files, int nfiles, const char *const *args, int nargs, cst *out, FILE *notes);

/* ---- cst_rewrite.c: tracefold-cc's copy of a source with CST markers */
/* A file's bytes (NUL-terminated, *size without it), or NULL (errno). */
char *cst_read_text(const char *path, size_t *size);
/* Write `src`'s text with the markers of the CST's loops and branches in
 * that file to `out_path`, starting with the marker header and a #line 1
 * directive so that every line keeps its number and file name. 0 or -1. */
int cst_rewrite_file(const cst *t, const char *src, const char *out_path);

#endif
