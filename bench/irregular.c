/* irregular.c — an MPI program whose calls do not fold: a seeded random mix
 * of nonblocking collectives and completion calls, for the recorder's cost
 * on irregular streams (bench/irregular.sh).
 *
 * One or more ranks; every rank draws the same pseudo-random sequence, so
 * the collectives match. Each step either starts a nonblocking collective
 * (MPI_Ibarrier, MPI_Iallreduce or MPI_Ibcast of 1-8 ints) while fewer
 * than 8 are outstanding, or completes some (MPI_Wait of a random one,
 * MPI_Test, MPI_Testany, MPI_Waitall of all). The counts, the request
 * chosen and the completion call are what make the stream irregular. With
 * more than one rank, whose MPI_Test flags may differ, a start that finds
 * 8 outstanding first completes them all (MPI_Waitall), so that every rank
 * starts the same collectives in the same order.
 *
 * Prints, on rank 0, as machine-readable lines:
 *   events <MPI calls made by rank 0 between MPI_Init and MPI_Finalize>
 *   run_s <seconds from after MPI_Init to before MPI_Finalize>
 *   finalize_s <seconds spent in MPI_Finalize (the recorder's merge and write)>
 *
 * With -1 RANK only rank RANK is irregular, on MPI_COMM_SELF; every other
 * rank repeats MPI_Iallreduce and MPI_Wait on MPI_COMM_SELF, STEPS / 2
 * times, a stream that folds (test mpi.flatmerge.np*).
 *
 * usage: bench_irregular [-n STEPS] [-s SEED] [-1 RANK]   (defaults 500000, 1, all ranks irregular)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_clock.h"

enum { MAX_OUT = 8 };

static uint64_t rng_state;

static uint32_t next_random(void) { /* xorshift64*: the same on every rank */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

int main(int argc, char **argv) {
  long steps = 500000;
  uint64_t seed = 1;
  int opt, alone = -1;
  while ((opt = getopt(argc, argv, "n:s:1:")) != -1) {
    if (opt == 'n') steps = atol(optarg);
    else if (opt == '1') alone = atoi(optarg);
    else if (opt == 's') seed = strtoull(optarg, NULL, 10);
    else {
      fprintf(stderr, "usage: bench_irregular [-n STEPS] [-s SEED] [-1 RANK]\n");
      return 2;
    }
  }
  if (steps < 1 || !seed) {
    fprintf(stderr, "bench_irregular: STEPS must be >= 1 and SEED non-zero\n");
    return 2;
  }
  rng_state = seed;
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Request req[MAX_OUT];
  int sendbuf[MAX_OUT][8] = {{0}}, recvbuf[MAX_OUT][8];
  int nout = 0;
  long events = 2; /* MPI_Comm_rank, MPI_Comm_size */
  MPI_Comm comm = alone < 0 ? MPI_COMM_WORLD : MPI_COMM_SELF;
  int matched = nprocs > 1 && alone < 0; /* other ranks start the same collectives */
  double t0 = bench_now_ns();
  for (long s = 0; alone >= 0 && rank != alone && s < steps / 2; s++) { /* a regular rank */
    MPI_Iallreduce(sendbuf[0], recvbuf[0], 1, MPI_INT, MPI_SUM, comm, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    events += 2;
  }
  for (long s = 0; (alone < 0 || rank == alone) && s < steps; s++) {
    uint32_t r = next_random();
    if (matched && nout == MAX_OUT && (r & 1)) { /* every rank starts this collective, whatever its flags */
      MPI_Waitall(nout, req, MPI_STATUSES_IGNORE);
      nout = 0;
      events++;
    }
    if (nout < MAX_OUT && (r & 1)) {
      int count = 1 + (int)((r >> 4) & 7);
      for (int k = 0; k < count; k++) sendbuf[nout][k] = (int)s + k;
      switch ((r >> 1) % 3) {
      case 0: MPI_Ibarrier(comm, &req[nout]); break;
      case 1: MPI_Iallreduce(sendbuf[nout], recvbuf[nout], count, MPI_INT, MPI_SUM, comm, &req[nout]); break;
      default: MPI_Ibcast(sendbuf[nout], count, MPI_INT, 0, comm, &req[nout]); break;
      }
      nout++;
      events++;
      continue;
    }
    if (!nout) continue;
    int flag = 0, idx = 0;
    switch ((r >> 1) & 3) {
    case 0: { /* wait for one at random, keep the rest packed */
      int k = (int)((r >> 3) % (uint32_t)nout);
      MPI_Wait(&req[k], MPI_STATUS_IGNORE);
      req[k] = req[--nout];
      break;
    }
    case 1: /* the oldest, if done */
      MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
      if (flag) req[0] = req[--nout];
      break;
    case 2:
      MPI_Testany(nout, req, &idx, &flag, MPI_STATUS_IGNORE);
      if (flag && idx != MPI_UNDEFINED) req[idx] = req[--nout];
      break;
    default:
      MPI_Waitall(nout, req, MPI_STATUSES_IGNORE);
      nout = 0;
      break;
    }
    events++;
  }
  if (nout) {
    MPI_Waitall(nout, req, MPI_STATUSES_IGNORE);
    events++;
  }
  double t1 = bench_now_ns();
  MPI_Finalize();
  double t2 = bench_now_ns();
  if (rank == 0) printf("events %ld\nrun_s %.3f\nfinalize_s %.3f\n", events, (t1 - t0) / 1e9, (t2 - t1) / 1e9);
  return 0;
}
