/* constants_program.c — an MPI program whose calls take or return the MPI
 * constants that differ between libraries (gen/portable.table): thread
 * levels, comparison results, topology kinds, split types, array orders,
 * distributions and the default darg. Traced under MPICH and under Open MPI
 * it must give the same trace (tests/constants.sh against one golden file).
 * Run at 2 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided, rank, size, result, status;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* comparisons: identical, congruent, similar, unequal */
  MPI_Comm dup, reversed;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  MPI_Comm_compare(MPI_COMM_WORLD, reversed, &result);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
  MPI_Group world, rev;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(reversed, &rev);
  MPI_Group_compare(world, world, &result);
  MPI_Group_compare(world, rev, &result);

  /* topology kinds */
  int dims[1] = {size}, periods[1] = {1}, index[2] = {1, 2}, edges[2] = {1, 0};
  MPI_Comm cart, graph, dist;
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Topo_test(cart, &status);
  MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &graph);
  MPI_Topo_test(graph, &status);
  int peer = (rank + 1) % size, weight = 1; /* weights: Open MPI's MPI_UNWEIGHTED is a 0-byte object gcc frowns at */
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &peer, &weight, 1, &peer, &weight, MPI_INFO_NULL, 0, &dist);
  MPI_Topo_test(dist, &status);

  /* split types */
  MPI_Comm node, none;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, rank, MPI_INFO_NULL, &none);

  /* array orders, distributions, the default darg */
  int sizes[2] = {8, 6}, subsizes[2] = {4, 3}, starts[2] = {0, 0};
  MPI_Datatype sub_c, sub_f, da_block, da_cyclic;
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub_c);
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub_f);
  int gsizes[2] = {8, 6}, psizes[2] = {size, 1};
  int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE}, dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG,
                                                                            MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &da_block);
  int distribs2[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, dargs2[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Type_create_darray(size, rank, 2, gsizes, distribs2, dargs2, psizes, MPI_ORDER_FORTRAN, MPI_INT, &da_cyclic);

  MPI_Type_free(&sub_c);
  MPI_Type_free(&sub_f);
  MPI_Type_free(&da_block);
  MPI_Type_free(&da_cyclic);
  MPI_Comm_free(&node);
  MPI_Comm_free(&dist);
  MPI_Comm_free(&graph);
  MPI_Comm_free(&cart);
  MPI_Group_free(&rev);
  MPI_Group_free(&world);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&dup);
  if (rank == 0) printf("constants: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
