/* blocked_write_program.c — for tests/blocked_write.sh: while one thread's
 * call is stuck writing the trace (its flat file is a FIFO nobody reads
 * yet), another thread's MPI calls must go on: the recorder writes a full
 * buffer after releasing its lock (issue 23, point 3a).
 *
 * usage: blocked_write_program MARKER
 * Thread 0 makes MPI_Comm_rank calls until its events pass the flat
 * writer's 1 MiB flush, which blocks in the FIFO. Thread 1 waits until
 * thread 0 has made no progress for 0.3 s, times 100 MPI calls of its own,
 * prints "other thread: 100 calls in S s", then creates MARKER (the test
 * then starts reading the FIFO, which unblocks thread 0). Needs
 * MPI_THREAD_MULTIPLE; exit 0 unless MPI fails. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define CALLS 400000 /* about 4 MiB of flat events: the first flush comes well before the end */

static atomic_long progress;
static const char *marker;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *other_thread(void *arg) {
  (void)arg;
  long seen = -1;
  double still = now();
  while (now() - still < 0.3) { /* thread 0 stuck in a call: no progress for 0.3 s */
    long p = atomic_load(&progress);
    if (p != seen) seen = p, still = now();
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  double t0 = now();
  int rank;
  for (int i = 0; i < 100; i++) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("other thread: 100 calls in %.2f s\n", now() - t0);
  fflush(stdout);
  FILE *f = fopen(marker, "w");
  if (f) fclose(f);
  return NULL;
}

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE || argc < 2) {
    fprintf(stderr, "blocked_write_program: needs MPI_THREAD_MULTIPLE and a marker path\n");
    MPI_Finalize();
    return 2;
  }
  marker = argv[1];
  pthread_t t;
  pthread_create(&t, NULL, other_thread, NULL);
  for (long i = 0; i < CALLS; i++) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    atomic_store(&progress, i);
  }
  pthread_join(t, NULL);
  MPI_Finalize();
  return 0;
}
