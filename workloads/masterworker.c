/* masterworker — dynamic task farm (the pattern of master/worker codes such
 * as parameter sweeps, Mandelbrot/ray-tracing farms, or self-scheduling
 * loops).
 *
 * Communication: rank 0 (master) sends a task id (MPI_Send of 1 int, tag
 * TAG_TASK) to every worker, then hands out a new task (or a zero-length
 * TAG_STOP message once all T tasks are out) to whichever worker returns a
 * result. A worker's result is a message of 2..5 doubles (its length and its
 * tag, 10 + task % 3, both depend on the task). The master receives results
 * alternately
 *   - by MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG), MPI_Get_count, then MPI_Recv
 *     from the probed source with the probed tag, and
 *   - by MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) directly, then MPI_Get_count.
 * Workers loop on MPI_Recv(0, MPI_ANY_TAG) until TAG_STOP. Results are stored
 * by task id and summed in task order, so the checksum does not depend on
 * the arrival order. At P = 1 the master computes every task itself.
 *
 * Counts oracle (T = 4 * iterations tasks, W = P - 1 workers, P > 1):
 *   all ranks: MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Finalize 1;
 *   master: MPI_Send T + W, MPI_Probe ceil(T/2), MPI_Get_count T,
 *           MPI_Recv T;
 *   worker w: MPI_Recv t_w + 1, MPI_Send t_w, where t_w is the number of
 *           tasks w happened to get (sum over workers = T). t_w varies from
 *           run to run; the counts file records what actually happened.
 * Options: -s N work per task (default 2000), -i I (default 20, T = 4I).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

enum { TAG_TASK = 1, TAG_STOP = 2, TAG_RESULT = 10 };
#define MAXLEN 5

/* Result of task `task`: res[0] = task id, res[1..len-1] = values. Returns len. */
static int compute_task(int task, int work, double *res) {
  int len = 2 + task % 4;
  res[0] = (double)task;
  for (int k = 1; k < len; k++) {
    double s = 0.0;
    for (int j = 0; j < work; j++) s += (double)((task * 31 + j * 7 + k) % 101) / 101.0;
    res[k] = s / (double)work;
  }
  return len;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 20, 2000, &args, &rank, &nprocs);
  const int ntasks = 4 * args.iters, work = args.size;
  double res[MAXLEN];

  if (rank == 0) {
    printf("masterworker: %d ranks, %d tasks, work %d\n", nprocs, ntasks, work);
    double *result = calloc((size_t)ntasks, sizeof *result);
    if (!result) {
      fprintf(stderr, "masterworker: out of memory\n");
      return 1;
    }
    if (nprocs == 1) {
      for (int t = 0; t < ntasks; t++) {
        int len = compute_task(t, work, res);
        for (int k = 1; k < len; k++) result[t] += res[k];
      }
    } else {
      int next = 0, outstanding = 0;
      for (int w = 1; w < nprocs; w++) {
        if (next < ntasks) {
          WL(MPI_Send, &next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
          next++;
          outstanding++;
        } else {
          WL(MPI_Send, NULL, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
      }
      for (int received = 0; outstanding > 0; received++) {
        MPI_Status st;
        int len;
        if (received % 2 == 0) {
          WL(MPI_Probe, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          WL(MPI_Get_count, &st, MPI_DOUBLE, &len);
          WL(MPI_Recv, res, len, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        } else {
          WL(MPI_Recv, res, MAXLEN, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          WL(MPI_Get_count, &st, MPI_DOUBLE, &len);
        }
        outstanding--;
        int t = (int)res[0];
        if (t < 0 || t >= ntasks || len != 2 + t % 4 || st.MPI_TAG != TAG_RESULT + t % 3) {
          fprintf(stderr, "masterworker: bad result message\n");
          WL(MPI_Abort, MPI_COMM_WORLD, 1);
        }
        for (int k = 1; k < len; k++) result[t] += res[k];
        if (next < ntasks) {
          WL(MPI_Send, &next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
          next++;
          outstanding++;
        } else {
          WL(MPI_Send, NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
      }
    }
    double sum = 0.0;
    for (int t = 0; t < ntasks; t++) sum += result[t];
    printf("checksum: %.12e\n", sum);
    fflush(stdout);
    free(result);
  } else {
    for (;;) {
      MPI_Status st;
      int task;
      WL(MPI_Recv, &task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == TAG_STOP) break;
      int len = compute_task(task, work, res);
      WL(MPI_Send, res, len, MPI_DOUBLE, 0, TAG_RESULT + task % 3, MPI_COMM_WORLD);
    }
  }
  return wl_finalize(&args, rank);
}
