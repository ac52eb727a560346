/* callcost.c — micro-benchmark for the recorder's cost per intercepted call.
 *
 * One or two ranks time, with clock_gettime(CLOCK_MONOTONIC), ITERS iterations of
 *   (a) p2p:       MPI_Irecv + MPI_Isend + MPI_Waitall(2) of one 8-byte message
 *                  exchanged with the partner rank, or with itself on 1 rank
 *                  (3 MPI calls per iteration; on 1 rank the untraced cost is
 *                  tiny, so what is measured is the tracer's own cost)
 *   (b) allreduce: MPI_Allreduce of one double       (1 MPI call per iteration)
 * REPS times each (interleaved, after a warm-up) and rank 0 prints the median
 * ns per iteration as machine-readable lines:
 *   p2p_ns_per_iter <ns> calls_per_iter 3
 *   allreduce_ns_per_iter <ns> calls_per_iter 1
 * plus the fastest repetition (p2p_min_ns_per_iter, allreduce_min_ns_per_iter).
 * bench/run.sh runs it with and without the recorder (LD_PRELOAD) and turns
 * the difference into a cost per intercepted call. It never calls MPI_Wtime
 * (that would be intercepted too and is not part of the measured loop).
 *
 * usage: bench_callcost [ITERS [REPS]]   (defaults 200000, 5)
 * bench/run.sh uses many shorter repetitions (the median then shrugs off
 * bursts of noise from other processes on a small, shared machine).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"

enum { MAX_REPS = 99 };


static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* returns the number of mismatched payloads seen (0 when all is well); not
 * inlined, so that bench/callgrind.sh finds each loop's instructions */
__attribute__((noinline)) static long p2p_loop(long iters, int partner, int rank) {
  double out = (double)rank, in = -1.0;
  long bad = 0;
  for (long i = 0; i < iters; i++) {
    MPI_Request rq[2];
    MPI_Irecv(&in, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&out, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad += in != (double)partner;
  }
  return bad;
}

__attribute__((noinline)) static long allreduce_loop(long iters, int size) {
  double one = 1.0, sum = 0.0;
  long bad = 0;
  for (long i = 0; i < iters; i++) {
    MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    bad += sum != (double)size;
  }
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (size > 2 || iters < 1 || reps < 1 || reps > MAX_REPS) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -n 1|2 bench_callcost [ITERS>=1 [REPS 1..%d]] (got %d ranks)\n", MAX_REPS, size);
    MPI_Finalize();
    return 2;
  }
  int partner = size == 2 ? 1 - rank : rank;

  /* warm-up: connection setup, page faults, caches, the recorder's buffers */
  long warm = iters / 10 > 5000 ? iters / 10 : 5000;
  long bad = p2p_loop(warm, partner, rank) + allreduce_loop(warm, size);

  double p2p[MAX_REPS], ar[MAX_REPS];
  for (int r = 0; r < reps; r++) { /* interleave the two so drift hits both alike */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now_ns();
    bad += p2p_loop(iters, partner, rank);
    p2p[r] = (bench_now_ns() - t0) / (double)iters;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now_ns();
    bad += allreduce_loop(iters, size);
    ar[r] = (bench_now_ns() - t0) / (double)iters;
  }

  long bad_all = 0;
  MPI_Reduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("iters %ld reps %d\n", iters, reps);
    printf("p2p_reps_ns");
    for (int r = 0; r < reps; r++) printf(" %.1f", p2p[r]);
    printf("\nallreduce_reps_ns");
    for (int r = 0; r < reps; r++) printf(" %.1f", ar[r]);
    printf("\n");
    /* median() sorts: v[0] is then the fastest repetition */
    printf("p2p_ns_per_iter %.1f calls_per_iter 3\n", median(p2p, reps));
    printf("allreduce_ns_per_iter %.1f calls_per_iter 1\n", median(ar, reps));
    printf("p2p_min_ns_per_iter %.1f\nallreduce_min_ns_per_iter %.1f\n", p2p[0], ar[0]);
    if (bad_all) fprintf(stderr, "bench_callcost: %ld wrong payloads\n", bad_all);
  }
  MPI_Finalize();
  return bad_all ? 1 : 0;
}
