/* io.c — MPI-IO in the replay (io.h): the scratch directory, file names
 * mapped into it, and --io skip.
 *
 * The replayed I/O calls run with the scratch directory as the working
 * directory (a chdir around each call, back after it; with threads, around
 * the calls in progress): the recorded name
 * of a plain file ("data.bin") is then passed unchanged, so the replay's
 * own trace records the same name (the fixed point of tests/replay.sh),
 * and whatever the MPI library makes beside the file (ROMIO's shared file
 * pointer file) lands there too. A name with a directory in it is
 * flattened into one file name of the scratch directory: nothing is ever
 * written outside it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

#include "io.h"

int rp_io_init(rp_engine *E, char *err, size_t errlen) {
#ifdef TF_SIMGRID
  E->opt.io_skip = 1; /* tracefold simulate never touches files (doc/SIMULATE.md) */
#endif
  if (E->opt.io_skip) return 0;
  char path[PATH_MAX] = "";
  int failed = 0;
  if (E->rank == 0) {
    if (E->opt.io_dir) {
      snprintf(path, sizeof path, "%s", E->opt.io_dir);
      if (mkdir(path, 0777) == 0) E->io_dir_made = 1;
    } else {
      const char *tmp = getenv("TMPDIR");
      snprintf(path, sizeof path, "%s/tracefold-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
      if (mkdtemp(path)) E->io_dir_made = 1;
      else failed = errno;
    }
  }
  PMPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  PMPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) return snprintf(err, errlen, "cannot make a scratch directory for MPI-IO under $TMPDIR: %s",
                              strerror(failed)), -1;
  struct stat sb;
  if (stat(path, &sb) != 0 && mkdir(path, 0777) == 0) E->io_dir_made = 1; /* another node's /tmp */
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return snprintf(err, errlen, "--io-dir %s: not a directory", path), -1;
  E->io_dir = realpath(path, NULL);
  E->cwd = getcwd(NULL, 0);
  if (!E->io_dir || !E->cwd) return snprintf(err, errlen, "--io-dir %s: %s", path, strerror(errno)), -1;
  return 0;
}

void rp_io_finish(rp_engine *E) {
  if (E->opt.io_skip) return; /* the same on every rank: the barrier is collective */
  PMPI_Barrier(MPI_COMM_WORLD); /* every rank's files closed */
  if (E->io_dir && E->io_dir_made) rp_remove_dir(E->io_dir);
  free(E->io_dir);
  free(E->cwd);
  E->io_dir = E->cwd = NULL;
}

/* --io skip: what the call would create, registered as done; its recorded duration. */
static int skip_call(rp_thread *T) {
  const tf_func_desc *d = &tf_schema[T->fn];
  for (uint32_t k = 0; k < d->nfields; k++) {
    if (d->fields[k].kind == TF_FIELD_REQ_NEW) rp_req_new(T, (int)k, MPI_REQUEST_NULL);
    if (d->fields[k].kind == TF_FIELD_GROUP_NEW) {
      MPI_Group g = MPI_GROUP_NULL;
      PMPI_Comm_group(MPI_COMM_WORLD, &g);
      rp_group_new(T, (int)k, g);
    }
  }
  T->last_return = rp_now();
  rp_compute(T, (double)T->ev.duration_ns * 1e-9, 1);
  T->last_return = rp_now();
  return MPI_SUCCESS;
}

/* The working directory is the process's: with several replaying threads,
 * it is the scratch directory from the start of the first I/O call in
 * progress to the end of the last one. */
static pthread_mutex_t cwd_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls_inside;

int rp_io_call(rp_thread *T, int (*call)(rp_thread *T)) {
  rp_engine *E = T->E;
  if (E->opt.io_skip) return skip_call(T);
  pthread_mutex_lock(&cwd_lock);
  int entered = calls_inside++ > 0 || chdir(E->io_dir) == 0;
  pthread_mutex_unlock(&cwd_lock);
  if (!entered) rp_die(T, "cannot enter the scratch directory %s: %s", E->io_dir, strerror(errno));
  int rc = call(T);
  pthread_mutex_lock(&cwd_lock);
  int back = --calls_inside > 0 || chdir(E->cwd) == 0;
  pthread_mutex_unlock(&cwd_lock);
  if (!back) rp_die(T, "cannot return to %s: %s", E->cwd, strerror(errno));
  return rc;
}
