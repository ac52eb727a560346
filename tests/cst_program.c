/* cst_program.c — the statement forms the CST analyser and tracefold-cc's
 * rewrite must get right (tests/cst.sh --part forms): calls through a
 * table of function pointers (resolved by type) and through a pointer to a
 * library function (unresolved), recursion, a switch with fall-through
 * and default, loop bodies that are not blocks (an if/else, a do-while, a
 * nested loop), a loop in a macro, break and continue. Deterministic: rank
 * 0 prints "checksum: N". Marker counts at -i 3 (one process) are stated in
 * tests/cst.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWICE(stmt) do { for (int t_ = 0; t_ < 2; t_++) stmt; } while (0)

static long total;

static void op_barrier(int x) {
  total += x;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void op_reduce(int x) {
  long in = x, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  total += out;
}

static void op_none(int x) { total -= x; }

static void (*const ops[])(int) = {op_barrier, op_reduce, op_none};

static void descend(int depth) {
  if (depth == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  descend(depth - 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, iters = argc > 2 && strcmp(argv[1], "-i") == 0 ? atoi(argv[2]) : 3;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t (*length)(const char *) = strlen;
  total = (long)length("cst");
  for (int i = 0; i < iters; i++)
    if (i % 2 == 0) MPI_Barrier(MPI_COMM_WORLD);
    else
      op_reduce(i);
  for (int i = 0; i < iters; i++) {
    switch (i % 3) {
    case 0: ops[0](i); /* falls through */
    case 1:
      ops[i % 3](i);
      break;
    default: total += 7;
    }
    if (i == 1) continue;
    descend(i);
  }
  int k = 0;
  do MPI_Barrier(MPI_COMM_WORLD);
  while (++k < 2);
  while (k > 0)
    for (int j = 0; j < k; j++) {
      if (j > 3) break;
      op_barrier(j);
      k--;
    }
  TWICE(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("checksum: %ld\n", total);
  MPI_Finalize();
  return 0;
}
