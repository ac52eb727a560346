/* ids_program.c — an MPI program whose trace tests the recorder's symbolic
 * ids (run at 4 ranks under the recorder; check_ids.c reads the trace).
 *
 * It creates communicators in every way the id scheme distinguishes
 * (dup, split by parity, Cart_create, Comm_create_group of the even ranks,
 * free then dup again), and posts many Isend/Irecv/Waitall rounds: MPICH
 * reuses request handle values once a request completes, and this program
 * checks that it really does (so the request-id test is meaningful), then
 * writes "handles reused: yes|no" to stdout.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm dup1, dup2, half, cart, evens = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Group world_group, even_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int evens_ranks[64], ne = 0;
  for (int r = 0; r < size && ne < 64; r += 2) evens_ranks[ne++] = r;
  MPI_Group_incl(world_group, ne, evens_ranks, &even_group);
  if (rank % 2 == 0) MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 7, &evens);
  MPI_Comm_free(&dup1);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup2);

  /* request handle reuse */
  MPI_Request first[2], reqs[2];
  int reused = 0;
  double out = rank, in = 0;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < 50; i++) {
    MPI_Irecv(&in, 1, MPI_DOUBLE, left, 0, dup2, &reqs[0]);
    MPI_Isend(&out, 1, MPI_DOUBLE, right, 0, dup2, &reqs[1]);
    if (i == 0) {
      first[0] = reqs[0];
      first[1] = reqs[1];
    } else if (reqs[0] == first[0] || reqs[0] == first[1] || reqs[1] == first[0] || reqs[1] == first[1]) {
      reused = 1;
    }
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  }
  int any = 0;
  MPI_Allreduce(&reused, &any, 1, MPI_INT, MPI_MAX, half);
  if (rank == 0) printf("handles reused: %s\n", any ? "yes" : "no");

  if (evens != MPI_COMM_NULL) MPI_Comm_free(&evens);
  MPI_Group_free(&even_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup2);
  MPI_Finalize();
  return 0;
}
