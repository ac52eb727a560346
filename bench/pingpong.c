/* pingpong.c — this machine's MPI point-to-point latency and bandwidth,
 * for the platform that describes it to SimGrid (bench/simulate.sh).
 *
 *   mpirun -np 2 bench_pingpong
 *
 * Ranks 0 and 1 bounce a message of each size (1 B to 4 MiB) back and
 * forth with MPI_Send/MPI_Recv: after a warm-up, REPS round trips are
 * timed with MPI_Wtime and the one-way time is half the round trip (the
 * fastest of 5 batches, the least disturbed by the other processes of a
 * noisy machine). Rank 0 prints "size seconds" lines, then
 *   latency   the one-way time of a 1-byte message (s)
 *   bandwidth (4 MiB - 1 B) / (t(4 MiB) - t(1 B)) (bytes/s)
 * which is how a SimGrid link with that latency and bandwidth times a
 * message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int max = 4 << 20;
  char *buf = calloc(max, 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
  double t1 = 0, tmax = 0;
  for (int n = 1; n <= max; n *= 8) {
    int len = n == 1 ? 1 : n > max / 8 ? max : n; /* 1, 8, 64, ..., 2 MiB, then 4 MiB */
    int reps = len <= 65536 ? 2000 : 50;
    double best = 1e30;
    for (int batch = -1; batch < 5; batch++) { /* batch -1: warm-up */
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int r = 0; r < reps; r++) {
        if (rank == 0) {
          MPI_Send(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      double t = (MPI_Wtime() - t0) / reps / 2;
      if (batch >= 0 && t < best) best = t;
    }
    if (rank == 0) printf("%d %.9g\n", len, best);
    if (len == 1) t1 = best;
    if (len == max) tmax = best;
    if (len == max) break;
  }
  if (rank == 0) {
    printf("latency %.9g\n", t1);
    printf("bandwidth %.9g\n", (double)(max - 1) / (tmax - t1));
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
