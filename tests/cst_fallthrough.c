/* cst_fallthrough.c — branch arms without calls (tests/cst.sh --part forms):
 * a switch whose labels fall through without an MPI call, an if whose taken
 * arm makes none, and a call right after each. The calls after a branch must
 * not be taken into the node of an arm that made no call (doc/CST.md
 * "Branches"); the calls inside the arms must be in their arm's node. One
 * rank or more; prints a checksum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int x = 0;
  for (int i = 0; i < 6; i++) {
    switch (i % 3) {
    case 0: x++; /* falls through, no call */
    case 1: x += 2; break;
    default: MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (i % 2 == 0) x--;
    else MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("checksum: %d\n", x);
  MPI_Finalize();
  return 0;
}
