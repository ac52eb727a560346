/* cmd_genapp.c — `tracefold genapp`: a trace into one self-contained C MPI
 * program that makes its calls again (src/genapp/, doc/GENAPP.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "genapp.h"

const char tf_help_genapp[] =
    "usage: tracefold genapp [options] TRACE\n"
    "  one C11 MPI source file that makes the trace's calls per rank, in its loops\n"
    "  -o FILE            write it to FILE (default: stdout)\n"
    "  --compute MODE     mean (default) | histogram | none: busy-waits between calls,\n"
    "                     each rank group's mean compute, or draws from its histogram\n"
    "  --scale X          multiply the compute delays by X (default 1)\n"
    "  --any-source       keep wildcard receives as MPI_ANY_SOURCE (default: the recorded source)\n"
    "  --no-resolve       name call sites by module+offset (no addr2line)\n"
    "example: tracefold genapp -o app.c tracefold-app-4p && mpicc app.c -o app && mpirun -np 4 ./app\n";

int cmd_genapp(int argc, char **argv) {
  size_t cmdlen = 32;
  for (int i = 0; i < argc; i++) cmdlen += strlen(argv[i]) + 1;
  char *command = malloc(cmdlen);
  if (!command) return fprintf(stderr, "tracefold genapp: out of memory\n"), TF_EXIT_FAILED;
  strcpy(command, "tracefold genapp");
  for (int i = 0; i < argc; i++) strcat(strcat(command, " "), argv[i]);
  const char *out_path = NULL, *compute = NULL, *scale_s = NULL;
  int any_source = 0, no_resolve = 0;
  tf_opt opts[] = {{"-o", &out_path, NULL},
                   {"--compute", &compute, NULL},
                   {"--scale", &scale_s, NULL},
                   {"--any-source", NULL, &any_source},
                   {"--no-resolve", NULL, &no_resolve}};
  int rc = tf_options(&argc, argv, "genapp", opts, (int)(sizeof opts / sizeof *opts));
  tfg_options o = {.command = command, .compute = TFG_COMPUTE_MEAN, .scale = 1, .any_source = any_source,
                   .resolve_sites = !no_resolve};
  if (!rc && compute) {
    if (strcmp(compute, "none") == 0) o.compute = TFG_COMPUTE_NONE;
    else if (strcmp(compute, "mean") == 0) o.compute = TFG_COMPUTE_MEAN;
    else if (strcmp(compute, "histogram") == 0) o.compute = TFG_COMPUTE_HISTOGRAM;
    else {
      fprintf(stderr, "tracefold genapp: --compute %s: expected mean, histogram or none\n", compute);
      rc = TF_EXIT_USAGE;
    }
  }
  if (!rc && scale_s) {
    char *end;
    errno = 0;
    o.scale = strtod(scale_s, &end);
    if (errno || end == scale_s || *end || !(o.scale >= 0) || o.scale > 1e9) {
      fprintf(stderr, "tracefold genapp: --scale %s: expected a number from 0 to 1e9\n", scale_s);
      rc = TF_EXIT_USAGE;
    }
  }
  tf_input in;
  if (rc || (rc = tf_input_open(argc, argv, 0, "genapp", &in))) {
    free(command);
    return rc;
  }
  o.trace = argv[0];
  FILE *out = out_path ? fopen(out_path, "w") : stdout;
  char err[1024] = "";
  if (!out) {
    fprintf(stderr, "tracefold genapp: %s: cannot write: %s\n", out_path, strerror(errno));
    rc = TF_EXIT_FAILED;
  } else if (tfg_write(in.t, &o, out, err, sizeof err)) {
    fprintf(stderr, "tracefold genapp: %s: %s\n", argv[0], err);
    rc = TF_EXIT_FAILED;
  }
  if (out && out != stdout && fclose(out) && !rc) {
    fprintf(stderr, "tracefold genapp: %s: cannot write: %s\n", out_path, strerror(errno));
    rc = TF_EXIT_FAILED;
  }
  if (rc && out_path && out) remove(out_path);
  tf_input_close(&in);
  free(command);
  return rc;
}
