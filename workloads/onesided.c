/* onesided — one-sided communication (MPI RMA): every kind of window and
 * every synchronisation, in a timestep loop so that the trace folds.
 *
 * Windows (made once): W_a by MPI_Win_allocate, W_c by MPI_Win_create on
 * the program's memory, W_s by MPI_Win_allocate_shared over the node's
 * ranks (MPI_Comm_split_type) with MPI_Win_shared_query (of the lowest
 * rank's segment: MPI_PROC_NULL), W_d by
 * MPI_Win_create_dynamic. Each rank accesses its right neighbour (rank + 1
 * mod P; itself at one rank). W_a and W_c hold 4 regions of N doubles and
 * two counters:
 *   A [0, N)     written by MPI_Put (fence epoch)
 *   B [N, 2N)    constants, read by MPI_Get / MPI_Rget
 *   C [2N, 3N)   MPI_Accumulate / MPI_Raccumulate / MPI_Rget_accumulate
 *                (MPI_SUM), MPI_Get_accumulate (MPI_NO_OP)
 *   D [3N, 4N)   MPI_Put of a strided datatype / MPI_Rput (passive target)
 *   4N           MPI_Fetch_and_op counter (double, MPI_SUM)
 *   4N + 1       MPI_Compare_and_swap counter (long long)
 * Per iteration: a fence epoch on W_a (MPI_MODE_NOPRECEDE ... NOSUCCEED);
 * post/start/complete/wait on W_c (MPI_Win_test right after the post, which
 * says "not yet" by construction: the origin starts only after a barrier);
 * an exclusive lock with MPI_Win_flush and MPI_Win_flush_local and a shared
 * lock on W_a; MPI_Win_lock_all on W_a with the request-based operations,
 * MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Win_flush_all,
 * MPI_Win_flush_local_all and MPI_Win_sync; load/store on W_s under
 * MPI_Win_lock_all with MPI_Win_sync and barriers; a region attached to and
 * detached from W_d around a fence. No RMA targets W_d: its displacements
 * would be addresses of the target, which a replay cannot reproduce.
 * Results of gets and fetches (deterministic: each location has one
 * writer per epoch) feed the checksum.
 *
 * Counts oracle: every call goes through WL() (wl_common.h). With -x
 * (SimGrid's SMPI) MPI_Win_test, which SMPI lacks, is left out, and the
 * shared window is over a duplicate of MPI_COMM_SELF instead of the node's
 * communicator (MPI_Comm_split_type's split type is recorded as the
 * library's own constant, which SMPI's differs from under Open MPI).
 * Options: -s N doubles per region (default 16, at least 2), -i I
 * iterations (default 6).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 6, 16, &args, &rank, &nprocs);
  const int n = args.size < 2 ? 2 : args.size;
  const int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
  const MPI_Aint words = 4 * (MPI_Aint)n + 2, bytes = words * (MPI_Aint)sizeof(double);
  const MPI_Aint fetch_at = 4 * (MPI_Aint)n, cas_at = fetch_at + 1;
  if (rank == 0) printf("onesided: %d ranks, %d doubles per region, %d iterations\n", nprocs, n, args.iters);

  /* ---- windows */
  double *a_mem = NULL;
  MPI_Win win_a, win_c, win_s, win_d;
  WL(MPI_Win_allocate, bytes, (int)sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a_mem, &win_a);
  double *c_mem = calloc((size_t)words, sizeof(double));
  double *origin = calloc((size_t)(4 * n + 8), sizeof(double)), *result = origin + 2 * n;
  double *attached = calloc((size_t)n, sizeof(double));
  if (!c_mem || !origin || !attached) {
    fprintf(stderr, "onesided: out of memory\n");
    return 1;
  }
  WL(MPI_Win_create, c_mem, bytes, (int)sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win_c);
  for (MPI_Aint k = 0; k < words; k++) a_mem[k] = c_mem[k] = 0.0;
  for (int k = 0; k < n; k++) a_mem[n + k] = c_mem[n + k] = (double)(rank * 100 + k);
  const long long zero = 0;
  memcpy(&a_mem[cas_at], &zero, sizeof zero);

  MPI_Comm node;
  int node_rank, node_size;
  if (args.smpi_subset) /* -x: split types are recorded as the library's constants, which SMPI does not share */
    WL(MPI_Comm_dup, MPI_COMM_SELF, &node);
  else
    WL(MPI_Comm_split_type, MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  WL(MPI_Comm_rank, node, &node_rank);
  WL(MPI_Comm_size, node, &node_size);
  double *s_mine = NULL, *s_next = NULL;
  WL(MPI_Win_allocate_shared, (MPI_Aint)n * (MPI_Aint)sizeof(double), (int)sizeof(double), MPI_INFO_NULL, node, &s_mine,
     &win_s);
  MPI_Aint s_size = 0;
  int s_unit = 0;
  /* MPI_PROC_NULL: the lowest rank's segment, whatever the node's ranks (a
   * simulation may place each rank on a node of its own) */
  WL(MPI_Win_shared_query, win_s, MPI_PROC_NULL, &s_size, &s_unit, &s_next);
  WL(MPI_Win_create_dynamic, MPI_INFO_NULL, MPI_COMM_WORLD, &win_d);

  /* PSCW groups: I expose W_c to my left neighbour and access my right one */
  MPI_Group win_group, expose_to, access_to;
  WL(MPI_Win_get_group, win_c, &win_group);
  WL(MPI_Group_incl, win_group, 1, &left, &expose_to);
  WL(MPI_Group_incl, win_group, 1, &right, &access_to);

  /* every other double of a region: MPI_Put's target datatype */
  MPI_Datatype strided;
  WL(MPI_Type_vector, n / 2, 1, 2, MPI_DOUBLE, &strided);
  WL(MPI_Type_commit, &strided);
  WL(MPI_Barrier, MPI_COMM_WORLD); /* every window initialised */

  double sum = 0.0;
  for (int it = 0; it < args.iters; it++) {
    for (int k = 0; k < 2 * n; k++) origin[k] = (double)(rank + k + it);

    /* fence epoch on W_a */
    WL(MPI_Win_fence, MPI_MODE_NOPRECEDE, win_a);
    WL(MPI_Put, origin, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win_a);
    WL(MPI_Get, result, n, MPI_DOUBLE, left, n, n, MPI_DOUBLE, win_a);
    WL(MPI_Accumulate, origin, n, MPI_DOUBLE, right, 2 * n, n, MPI_DOUBLE, MPI_SUM, win_a);
    WL(MPI_Win_fence, MPI_MODE_NOSUCCEED, win_a);
    for (int k = 0; k < n; k++) sum += result[k] + a_mem[k];

    /* post/start/complete/wait on W_c */
    int flag = 1;
    WL(MPI_Win_post, expose_to, 0, win_c);
    if (!args.smpi_subset) {
      WL(MPI_Win_test, win_c, &flag); /* my origin has not even started: "not yet" */
      if (flag) {
        fprintf(stderr, "onesided: MPI_Win_test completed an exposure epoch no origin has started\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    WL(MPI_Barrier, MPI_COMM_WORLD);
    WL(MPI_Win_start, access_to, 0, win_c);
    WL(MPI_Put, origin, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win_c);
    WL(MPI_Get_accumulate, NULL, 0, MPI_DOUBLE, result, n, MPI_DOUBLE, right, n, n, MPI_DOUBLE, MPI_NO_OP, win_c);
    WL(MPI_Win_complete, win_c);
    WL(MPI_Win_wait, win_c);
    for (int k = 0; k < n; k++) sum += result[k] + c_mem[k];

    /* passive target on W_a: an exclusive lock, then a shared one */
    WL(MPI_Win_lock, MPI_LOCK_EXCLUSIVE, right, 0, win_a);
    WL(MPI_Put, origin, n / 2, MPI_DOUBLE, right, 3 * n, 1, strided, win_a);
    WL(MPI_Win_flush, right, win_a);
    WL(MPI_Get, result, n, MPI_DOUBLE, right, n, n, MPI_DOUBLE, win_a);
    WL(MPI_Win_flush_local, right, win_a);
    WL(MPI_Win_unlock, right, win_a);
    for (int k = 0; k < n; k++) sum += result[k];
    WL(MPI_Win_lock, MPI_LOCK_SHARED, right, 0, win_a);
    WL(MPI_Get, result, n, MPI_DOUBLE, right, n, n, MPI_DOUBLE, win_a);
    WL(MPI_Win_unlock, right, win_a);
    for (int k = 0; k < n; k++) sum += result[k];

    /* lock_all on W_a: request-based operations and atomics */
    MPI_Request reqs[4];
    double fetched = 0.0, one = 1.0;
    long long expected = it, swapped = it + 1, before = -1;
    WL(MPI_Win_lock_all, 0, win_a); /* not NOCHECK: a left neighbour may hold an exclusive lock */
    WL(MPI_Rput, origin, n, MPI_DOUBLE, right, 3 * n, n, MPI_DOUBLE, win_a, &reqs[0]);
    WL(MPI_Rget, result, n, MPI_DOUBLE, left, n, n, MPI_DOUBLE, win_a, &reqs[1]);
    WL(MPI_Raccumulate, origin, n, MPI_DOUBLE, right, 2 * n, n, MPI_DOUBLE, MPI_SUM, win_a, &reqs[2]);
    WL(MPI_Waitall, 3, reqs, MPI_STATUSES_IGNORE);
    for (int k = 0; k < n; k++) sum += result[k];
    WL(MPI_Rget_accumulate, origin, n, MPI_DOUBLE, result, n, MPI_DOUBLE, right, 2 * n, n, MPI_DOUBLE, MPI_SUM, win_a,
       &reqs[3]);
    WL(MPI_Wait, &reqs[3], MPI_STATUS_IGNORE);
    WL(MPI_Fetch_and_op, &one, &fetched, MPI_DOUBLE, right, fetch_at, MPI_SUM, win_a);
    WL(MPI_Win_flush, right, win_a);
    WL(MPI_Compare_and_swap, &swapped, &expected, &before, MPI_LONG_LONG, right, cas_at, win_a);
    WL(MPI_Win_flush_local_all, win_a);
    WL(MPI_Win_flush_all, win_a);
    WL(MPI_Win_sync, win_a);
    WL(MPI_Win_unlock_all, win_a);
    sum += fetched + (double)before;
    WL(MPI_Barrier, MPI_COMM_WORLD); /* the next iteration's epochs start with everyone done */

    /* load/store on the shared window */
    WL(MPI_Win_lock_all, 0, win_s);
    for (int k = 0; k < n; k++) s_mine[k] = (double)(node_rank + k + it);
    WL(MPI_Win_sync, win_s);
    WL(MPI_Barrier, node);
    WL(MPI_Win_sync, win_s);
    for (int k = 0; k < n; k++) sum += s_next[k];
    WL(MPI_Win_unlock_all, win_s);
    WL(MPI_Barrier, node);

    /* a region of the dynamic window, attached for one fence epoch */
    WL(MPI_Win_attach, win_d, attached, (MPI_Aint)n * (MPI_Aint)sizeof(double));
    WL(MPI_Win_fence, 0, win_d);
    WL(MPI_Win_fence, 0, win_d);
    WL(MPI_Win_detach, win_d, attached);
  }

  double total = 0.0;
  WL(MPI_Reduce, &sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("checksum: %.6e\n", total);

  WL(MPI_Type_free, &strided);
  WL(MPI_Group_free, &access_to);
  WL(MPI_Group_free, &expose_to);
  WL(MPI_Group_free, &win_group);
  WL(MPI_Win_free, &win_d);
  WL(MPI_Win_free, &win_s);
  WL(MPI_Comm_free, &node);
  WL(MPI_Win_free, &win_c);
  WL(MPI_Win_free, &win_a);
  free(attached);
  free(origin);
  free(c_mem);
  return wl_finalize(&args, rank);
}
