/* cst_compdb.c — the analysis driven by a compile_commands.json: every C
 * source of the compilation database, each parsed with its own flags (the
 * compiler, -c, -o and the source itself left out, in its directory). */
#include <clang-c/CXCompilationDatabase.h>
#include <stdlib.h>
#include <string.h>

#include "cst_compdb.h"
#include "cst_impl.h"

static int is_c_source(const char *f) {
  size_t n = strlen(f);
  return n > 2 && strcmp(f + n - 2, ".c") == 0;
}

/* one command's flags for libclang: -working-directory DIR, then its arguments but the compiler, -c, -o X and the source */
static int parse_command(CXCompileCommand cmd, cst_raw *raw) {
  unsigned nargs = clang_CompileCommand_getNumArgs(cmd);
  CXString dir = clang_CompileCommand_getDirectory(cmd), file = clang_CompileCommand_getFilename(cmd);
  CXString *owned = calloc(nargs + 1, sizeof *owned);
  const char **args = calloc(nargs + 3, sizeof *args);
  int n = 0, rc = -1;
  if (owned && args) {
    args[n++] = "-working-directory";
    args[n++] = clang_getCString(dir);
    const char *src = clang_getCString(file);
    for (unsigned i = 1; i < nargs; i++) {
      owned[i] = clang_CompileCommand_getArg(cmd, i);
      const char *a = clang_getCString(owned[i]);
      if (strcmp(a, "-c") == 0 || strcmp(a, src) == 0) continue;
      if (strcmp(a, "-o") == 0) {
        i++;
        if (i < nargs) owned[i] = clang_CompileCommand_getArg(cmd, i);
        continue;
      }
      args[n++] = a;
    }
    rc = is_c_source(src) ? cst_parse_file(src, args, n, raw) : 0;
    for (unsigned i = 1; i < nargs; i++)
      if (owned[i].data) clang_disposeString(owned[i]);
  } else
    fprintf(stderr, "tracefold cst: out of memory\n");
  free(owned);
  free(args);
  clang_disposeString(dir);
  clang_disposeString(file);
  return rc;
}

int cst_analyse_compdb(const char *dir, cst *out, FILE *notes) {
  CXCompilationDatabase_Error err;
  CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &err);
  if (err != CXCompilationDatabase_NoError || !db) {
    fprintf(stderr, "tracefold cst: %s: no readable compile_commands.json there\n", dir);
    return -1;
  }
  CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
  unsigned n = clang_CompileCommands_getSize(cmds);
  cst_raw raw;
  memset(&raw, 0, sizeof raw);
  int rc = n ? 0 : -1;
  if (!n) fprintf(stderr, "tracefold cst: %s/compile_commands.json: no commands\n", dir);
  for (unsigned i = 0; i < n && rc == 0; i++) rc = parse_command(clang_CompileCommands_getCommand(cmds, i), &raw);
  if (rc == 0) rc = cst_reduce(&raw, out, notes);
  cst_raw_free(&raw);
  clang_CompileCommands_dispose(cmds);
  clang_CompilationDatabase_dispose(db);
  return rc;
}
