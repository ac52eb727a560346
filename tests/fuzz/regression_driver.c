/* regression_driver.c — fuzz inputs replayed without libFuzzer.
 *
 *   test_fuzz_regressions PATH...
 *
 * Every file named, and every file in a directory named (recursively, in
 * name order; README* files skipped), is read into a buffer of exactly its
 * size and given once to the fuzz harness's entry point,
 * LLVMFuzzerTestOneInput (fuzz_trace.c), as libFuzzer would give it. As in
 * scripts/fuzz.sh the oracle is the process itself: a reader bug is a
 * crash, or, in a sanitizer build (build-asan), an error report and exit.
 *
 * Built in the ordinary build; ctest unit.fuzz_regressions replays
 * tests/fuzz/regressions/ (inputs that once crashed a reader). By hand,
 * e.g. the seed corpus or a new finding of scripts/fuzz.sh:
 *
 *   build-asan/tests/test_fuzz_regressions build-fuzz/seeds build-fuzz/crashes/crash-...
 *
 * Exit 0 when every input ran; 2 when a path cannot be read or no input
 * was found. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
extern unsigned long tf_fuzz_verb_runs; /* fuzz_trace.c */

static int ninputs;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_path(const char *path);

static int run_dir(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    perror(path);
    return 2;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      char **more = realloc(names, cap * sizeof *names);
      if (!more) abort();
      names = more;
    }
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    if (!names[n]) abort();
    snprintf(names[n++], len, "%s/%s", path, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (rc == 0) rc = run_path(names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

static int run_file(const char *path, size_t size) {
  uint8_t *data = malloc(size ? size : 1); /* exactly the input's size: a read past it is an ASan error */
  FILE *f = fopen(path, "rb");
  if (!data || !f || fread(data, 1, size, f) != size) {
    perror(path);
    if (f) fclose(f);
    free(data);
    return 2;
  }
  fclose(f);
  printf("fuzz_regressions: %s (%zu bytes)\n", path, size);
  fflush(stdout); /* the input's name stays on record if the harness crashes */
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  ninputs++;
  return 0;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return 2;
  }
  if (S_ISDIR(st.st_mode)) return run_dir(path);
  return run_file(path, (size_t)st.st_size);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    int rc = run_path(argv[i]);
    if (rc) return rc;
  }
  if (ninputs == 0) {
    fprintf(stderr, "fuzz_regressions: no input files in the paths given\n");
    return 2;
  }
  printf("fuzz_regressions: %d inputs run through LLVMFuzzerTestOneInput (with %lu runs of the tracefold verbs), "
         "no crash\n", ninputs, tf_fuzz_verb_runs);
  return 0;
}
