/* cst_impl.h — between the parser (cst_parse.c) and the interprocedural
 * pass (cst_graph.c): the raw tree of every function and the functions
 * whose address is taken (the candidate targets of indirect calls). */
#ifndef TF_CST_IMPL_H
#define TF_CST_IMPL_H

#include "cst.h"

typedef struct cst_addr_taken {
  char *name;   /* a function of the analysed sources used other than by calling it */
  char *fntype; /* its canonical function type */
} cst_addr_taken;

typedef struct cst_raw {
  cst tree; /* every function defined in the sources with every loop, branch and call */
  cst_addr_taken *taken;
  int ntaken, captaken;
} cst_raw;

/* Add one source's functions to raw; 0, or -1 after printing the diagnostics. */
int cst_parse_file(const char *file, const char *const *args, int nargs, cst_raw *raw);
void cst_raw_free(cst_raw *raw);
/* Keep what reaches MPI; number it into out. Unresolved indirect calls noted on notes. */
int cst_reduce(const cst_raw *raw, cst *out, FILE *notes);

#endif
