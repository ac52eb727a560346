/* tracefold_cc.c — `tracefold-cc COMPILER ARGS...`: compile C sources with
 * CST markers. Runs the analyser on all the C sources of the command line
 * together (with their -I/-D/-U/-std flags and the MPI wrapper's include
 * directories), writes a rewritten copy of each (cst_rewrite.c) into a
 * temporary directory with include/tracefold_cst.h beside it, and runs
 * COMPILER with the copies in place of the sources (quote includes still
 * found in each source's own directory: -iquote). Its exit status is the
 * compiler's. TRACEFOLD_CC_CST=FILE also writes the CST there;
 * TRACEFOLD_CC_KEEP=1 keeps (and names) the temporary directory. Fortran
 * sources are compiled as they are, with a note: they are not analysed,
 * their calls fold dynamically. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cst.h"

extern const char tf_cst_header[]; /* include/tracefold_cst.h, embedded (cmake/TfEmbed.cmake) */

static int is_c_source(const char *a) {
  size_t n = strlen(a);
  return a[0] != '-' && n > 2 && strcmp(a + n - 2, ".c") == 0;
}

/* .f .F .for .f77 .f90 .F90 .f95 .f03 .F03 .f08 .F08 */
static int is_fortran_source(const char *a) {
  static const char *const ext[] = {".f", ".F", ".for", ".f77", ".f90", ".F90", ".f95", ".f03", ".F03", ".f08", ".F08"};
  size_t n = strlen(a);
  if (a[0] == '-') return 0;
  for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
    size_t m = strlen(ext[k]);
    if (n > m && strcmp(a + n - m, ext[k]) == 0) return 1;
  }
  return 0;
}

static int flag_with_value(const char *a) {
  return strcmp(a, "-I") == 0 || strcmp(a, "-D") == 0 || strcmp(a, "-U") == 0 || strcmp(a, "-include") == 0 ||
         strcmp(a, "-isystem") == 0 || strcmp(a, "-iquote") == 0 || strcmp(a, "-idirafter") == 0;
}

/* the flags that matter to parsing: -I, -D, -U, -std=, -include, -isystem, -iquote, -idirafter */
static int parse_flag(const char *a) {
  return strncmp(a, "-I", 2) == 0 || strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0 ||
         strncmp(a, "-std=", 5) == 0 || flag_with_value(a);
}

/* the MPI wrapper's include flags: `CC -show` (MPICH) or `CC --showme:compile` (Open MPI); appended to flags */
static void wrapper_flags(const char *cc, const char **flags, int *nflags, int cap, char **keep) {
  static const char *const asks[] = {"-show", "--showme:compile"};
  for (size_t k = 0; k < 2; k++) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", cc, asks[k]);
    FILE *p = popen(cmd, "r");
    if (!p) continue;
    size_t len = 0;
    char *line = NULL;
    ssize_t got = getline(&line, &len, p);
    int st = pclose(p);
    if (got > 0 && st == 0) {
      *keep = line;
      for (char *tok = strtok(line, " \t\n"); tok && *nflags < cap; tok = strtok(NULL, " \t\n"))
        if (strncmp(tok, "-I", 2) == 0 && tok[2]) flags[(*nflags)++] = tok;
      return;
    }
    free(line);
  }
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  if (remove(path) != 0) fprintf(stderr, "tracefold-cc: could not remove %s: %s\n", path, strerror(errno));
  return 0;
}

/* the temporary directory and what tracefold-cc wrote in it */
static void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: tracefold-cc COMPILER [ARGS...]     e.g. tracefold-cc mpicc app.c util.c -o app\n"
            "  compiles the C sources with CST markers (doc/CST.md); the program's behaviour is unchanged\n"
            "  TRACEFOLD_CC_CST=FILE  also write the CST there; TRACEFOLD_CC_KEEP=1 keep the rewritten copies\n");
    return argc < 2 ? 2 : 0;
  }
  const char *cc = argv[1];
  const char **sources = calloc((size_t)argc, sizeof *sources), **flags = calloc((size_t)argc + 256, sizeof *flags);
  char **cmd = calloc(2 * (size_t)argc + 8, sizeof *cmd);
  int nsources = 0, nflags = 0, ncmd = 0;
  if (!sources || !flags || !cmd) {
    fprintf(stderr, "tracefold-cc: out of memory\n");
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0) {
      i++;
      continue;
    }
    if (is_c_source(argv[i])) sources[nsources++] = argv[i];
    else if (is_fortran_source(argv[i]))
      fprintf(stderr,
              "tracefold-cc: %s: a Fortran source: not analysed, compiled as it is (its MPI calls fold "
              "dynamically: doc/CST.md)\n",
              argv[i]);
    else if (parse_flag(argv[i])) {
      flags[nflags++] = argv[i];
      if (flag_with_value(argv[i]) && i + 1 < argc) flags[nflags++] = argv[++i];
    }
  }
  char *wrapper_line = NULL;
  wrapper_flags(cc, flags, &nflags, argc + 255, &wrapper_line);
  char dir[4096] = "";
  int rc = 1;
  cmd[ncmd++] = (char *)cc;
  if (nsources == 0) { /* linking only */
    for (int i = 2; i < argc; i++) cmd[ncmd++] = argv[i];
  } else {
    cst t;
    if (cst_analyse(sources, nsources, flags, nflags, &t, stderr)) goto done;
    const char *cst_out = getenv("TRACEFOLD_CC_CST");
    if (cst_out && *cst_out) {
      FILE *f = fopen(cst_out, "w");
      if (!f || cst_write(&t, f) || fclose(f)) {
        fprintf(stderr, "tracefold-cc: %s: cannot write the CST\n", cst_out);
        cst_free(&t);
        goto done;
      }
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tracefold-cc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "tracefold-cc: cannot make a temporary directory (%s): %s\n", dir, strerror(errno));
      dir[0] = '\0';
      cst_free(&t);
      goto done;
    }
    int k = 0;
    for (int i = 2; i < argc; i++) {
      if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
        cmd[ncmd++] = argv[i++];
        cmd[ncmd++] = argv[i];
        continue;
      }
      if (!is_c_source(argv[i])) {
        cmd[ncmd++] = argv[i];
        continue;
      }
      char sub[4200], path[4400], hdr[4400];
      snprintf(sub, sizeof sub, "%s/%d", dir, k++);
      char *copy = strdup(argv[i]), *copy2 = strdup(argv[i]);
      if (!copy || !copy2 || mkdir(sub, 0700) != 0) {
        fprintf(stderr, "tracefold-cc: %s: %s\n", sub, strerror(errno));
        free(copy);
        free(copy2);
        cst_free(&t);
        goto done;
      }
      snprintf(path, sizeof path, "%s/%s", sub, basename(copy));
      snprintf(hdr, sizeof hdr, "%s/tracefold_cst.h", sub);
      if (write_text(hdr, tf_cst_header) || cst_rewrite_file(&t, argv[i], path)) {
        fprintf(stderr, "tracefold-cc: cannot prepare %s in %s\n", argv[i], sub);
        free(copy);
        free(copy2);
        cst_free(&t);
        goto done;
      }
      cmd[ncmd++] = "-iquote";
      cmd[ncmd++] = strdup(dirname(copy2));
      cmd[ncmd++] = strdup(path);
      free(copy);
      free(copy2);
    }
    cst_free(&t);
  }
  cmd[ncmd] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execvp(cc, cmd);
    fprintf(stderr, "tracefold-cc: cannot run %s: %s\n", cc, strerror(errno));
    _exit(127);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0)
    fprintf(stderr, "tracefold-cc: cannot run %s: %s\n", cc, strerror(errno));
  else
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
done:
  if (dir[0]) {
    const char *keep = getenv("TRACEFOLD_CC_KEEP");
    if (keep && *keep && strcmp(keep, "0") != 0)
      fprintf(stderr, "tracefold-cc: the rewritten copies are in %s\n", dir);
    else
      remove_tree(dir);
  }
  free(wrapper_line);
  free(sources);
  free(flags);
  free(cmd);
  return rc;
}
