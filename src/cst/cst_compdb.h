/* cst_compdb.h — the CST of the C sources of a compile_commands.json (cst_compdb.c). */
#ifndef TF_CST_COMPDB_H
#define TF_CST_COMPDB_H

#include "cst.h"

/* `dir`: the directory holding compile_commands.json. 0, or -1 after printing why. */
int cst_analyse_compdb(const char *dir, cst *out, FILE *notes);

#endif
