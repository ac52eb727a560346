/* cmd_cst.c — `tracefold cst`: the program communication structure tree of
 * C sources (src/cst/, doc/CST.md), written as a CST file or shown as a tree;
 * or a CST file shown. Compiler flags (-I, -D, -std, ...) go to libclang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cst.h"
#ifdef TF_HAVE_LIBCLANG
#include "cst_compdb.h"
#endif

const char tf_help_cst[] =
    "usage: tracefold cst [-o OUT.cst] [--show] [--root FUNC] [COMPILER FLAGS] FILE.c...\n"
    "       tracefold cst [-o OUT.cst] [--show] -p DIR      (the C sources of DIR/compile_commands.json)\n"
    "       tracefold cst --show [--root FUNC] FILE.cst\n"
    "  the functions that reach MPI (across the files, through function pointers where their targets are\n"
    "  known) and in them the loops, branches and MPI call sites, with file:line (doc/CST.md)\n"
    "  -o OUT.cst     write the CST file there (default: standard output, unless --show)\n"
    "  --show         the tree, calls expanded in place from main (or FUNC)\n"
    "  --root FUNC    with --show: start from FUNC\n"
    "  -p DIR         analyse the C sources of DIR/compile_commands.json, each with its own flags\n"
    "  other options (-I DIR, -D X, -std=c11, ...) are the compiler's\n"
    "example: tracefold cst --show -I/usr/include/x86_64-linux-gnu/mpich app.c util.c\n";

static int is_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

/* compiler options whose value is the next argument */
static int takes_value(const char *a) {
  static const char *const with_value[] = {"-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-x"};
  for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
    if (strcmp(a, with_value[i]) == 0) return 1;
  return 0;
}

int cmd_cst(int argc, char **argv) {
  const char *out_path = NULL, *root = NULL, *compdb = NULL, *cst_file = NULL;
  int show = 0, nsources = 0, nflags = 0;
  const char **sources = calloc((size_t)argc + 1, sizeof *sources), **flags = calloc((size_t)argc + 1, sizeof *flags);
  int rc = TF_EXIT_USAGE;
  if (!sources || !flags) {
    fprintf(stderr, "tracefold cst: out of memory\n");
    rc = TF_EXIT_FAILED;
    goto done;
  }
  for (int i = 0; i < argc; i++) /* --help and -h answer whatever else is wrong (cli.h) */
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      rc = TF_EXIT_HELP;
      goto done;
    }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char **value = strcmp(a, "-o") == 0 ? &out_path : strcmp(a, "--root") == 0 ? &root
                                                        : strcmp(a, "-p") == 0       ? &compdb
                                                                                     : NULL;
    if (value) {
      if (i + 1 == argc) {
        fprintf(stderr, "tracefold cst: %s needs a value (see tracefold cst --help)\n", a);
        goto done;
      }
      *value = argv[++i];
    } else if (strcmp(a, "--show") == 0)
      show = 1;
    else if (a[0] == '-' && a[1] == '-' && strncmp(a, "--std", 5) != 0) {
      rc = tf_unknown_option("cst", a);
      goto done;
    } else if (a[0] == '-') {
      flags[nflags++] = a;
      if (takes_value(a) && i + 1 < argc) flags[nflags++] = argv[++i];
    } else if (is_suffix(a, ".cst"))
      cst_file = a;
    else if (is_suffix(a, ".c"))
      sources[nsources++] = a;
    else {
      fprintf(stderr, "tracefold cst: %s: expected a C source (.c) or a CST file (.cst)\n", a);
      goto done;
    }
  }
  if (cst_file && (nsources || compdb || nflags || !show)) {
    fprintf(stderr, "tracefold cst: a CST file is only read by --show, alone (see tracefold cst --help)\n");
    goto done;
  }
  if (!cst_file && !compdb == !nsources) {
    fprintf(stderr, "tracefold cst: expected C sources or -p DIR (one of them) (see tracefold cst --help)\n");
    goto done;
  }
  if (root && !show) {
    fprintf(stderr, "tracefold cst: --root goes with --show\n");
    goto done;
  }
  cst t;
  rc = TF_EXIT_FAILED;
  if (cst_file) {
    if (cst_read("tracefold cst", cst_file, &t)) goto done;
  } else {
#ifdef TF_HAVE_LIBCLANG
    if (compdb ? cst_analyse_compdb(compdb, &t, stderr) : cst_analyse(sources, nsources, flags, nflags, &t, stderr))
      goto done;
#else
    fprintf(stderr, "tracefold cst: this tracefold was built without libclang: it can only show CST files\n");
    goto done;
#endif
  }
  if (out_path || !show) {
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    int bad = !f || cst_write(&t, f) != 0;
    if (f && out_path && fclose(f) != 0) bad = 1;
    if (bad) {
      fprintf(stderr, "tracefold cst: %s: cannot write the CST\n", out_path ? out_path : "standard output");
      cst_free(&t);
      goto done;
    }
  }
  rc = show && cst_show(&t, root, stdout) ? TF_EXIT_FAILED : TF_EXIT_OK;
  cst_free(&t);
done:
  free(sources);
  free(flags);
  return rc;
}
