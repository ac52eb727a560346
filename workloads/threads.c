/* threads — hybrid MPI + threads with MPI_THREAD_MULTIPLE (the pattern of
 * codes where several threads per rank communicate concurrently, each on
 * its own communicator, e.g. task-based runtimes or multi-threaded halo
 * exchanges).
 *
 * Communication: MPI_Init_thread requesting MPI_THREAD_MULTIPLE (if the
 * library provides less, rank 0 reports it and MPI_Abort ends the job). The
 * main thread MPI_Comm_dup's MPI_COMM_WORLD once per worker thread (2), then
 * starts 2 pthreads. Per iteration, thread t does an MPI_Sendrecv around the
 * ring on its own communicator (thread 0 sends to rank+1, thread 1 to
 * rank-1) and an MPI_Allreduce on it. After joining, the main thread frees
 * both communicators.
 *
 * Counts oracle (same on every rank, I = iterations; counts are per rank,
 * summed over its threads):
 *   MPI_Init_thread 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Comm_dup 2,
 *   MPI_Sendrecv 2I, MPI_Allreduce 2I, MPI_Comm_free 2, MPI_Finalize 1.
 * Options: -s N doubles per message (default 64), -i I iterations (default 8).
 * The default iteration count is below 20 to keep a 16-rank run oversubscribed
 * on 2 cores under ~3 s with MPICH (each collective costs tens of ms there).
 */
#define _POSIX_C_SOURCE 200809L
#include "wl_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 2

typedef struct {
  int id;
  MPI_Comm comm;
  int rank, nprocs, iters, n;
  double result; /* identical on every rank: built from Allreduce results */
} thread_arg;

static void *thread_main(void *p) {
  thread_arg *a = p;
  const int n = a->n;
  const int step = a->id == 0 ? 1 : a->nprocs - 1; /* thread 0 right, thread 1 left */
  const int dst = (a->rank + step) % a->nprocs, src = (a->rank + a->nprocs - step) % a->nprocs;
  double *sbuf = malloc(2 * (size_t)n * sizeof *sbuf);
  if (!sbuf) {
    fprintf(stderr, "threads: out of memory\n");
    exit(1);
  }
  double *rbuf = sbuf + n;
  for (int k = 0; k < n; k++) sbuf[k] = (double)(a->rank + 1) * (double)(k % 7 + a->id);

  a->result = 0.0;
  for (int it = 0; it < a->iters; it++) {
    WL(MPI_Sendrecv, sbuf, n, MPI_DOUBLE, dst, it, rbuf, n, MPI_DOUBLE, src, it, a->comm, MPI_STATUS_IGNORE);
    double local = 0.0, global;
    for (int k = 0; k < n; k++) {
      sbuf[k] = 0.5 * (sbuf[k] + rbuf[k]);
      local += sbuf[k];
    }
    WL(MPI_Allreduce, &local, &global, 1, MPI_DOUBLE, MPI_SUM, a->comm);
    a->result += global;
  }
  free(sbuf);
  return NULL;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start_multiple("threads", &argc, &argv, 8, 64, &args, &rank, &nprocs);
  if (rank == 0) printf("threads: %d ranks x %d threads, %d doubles, %d iterations\n", nprocs, NTHREADS, args.size, args.iters);

  thread_arg targ[NTHREADS];
  pthread_t tid[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    targ[t] = (thread_arg){.id = t, .rank = rank, .nprocs = nprocs, .iters = args.iters, .n = args.size};
    WL(MPI_Comm_dup, MPI_COMM_WORLD, &targ[t].comm);
  }
  for (int t = 0; t < NTHREADS; t++)
    if (pthread_create(&tid[t], NULL, thread_main, &targ[t]) != 0) {
      fprintf(stderr, "threads: pthread_create failed\n");
      WL(MPI_Abort, MPI_COMM_WORLD, 1);
    }
  for (int t = 0; t < NTHREADS; t++) pthread_join(tid[t], NULL);
  for (int t = 0; t < NTHREADS; t++) WL(MPI_Comm_free, &targ[t].comm);

  if (rank == 0) {
    for (int t = 0; t < NTHREADS; t++) printf("thread %d sum %.12e\n", t, targ[t].result);
    printf("checksum: %.12e\n", targ[0].result + targ[1].result);
    fflush(stdout);
  }
  return wl_finalize(&args, rank);
}
