/* mpiio — MPI-IO: every read and write form on a shared file, views, file
 * pointers, sizes, and the calls that ask about a file (the pattern of
 * checkpoint/restart and output phases of simulation codes).
 *
 * Two files in the working directory (or in the directory $MPIIO_DIR names,
 * for tests of names with a directory), named with rank 0's process id
 * (broadcast) so that simultaneous runs do not collide, both a few KB:
 *   data:   each iteration, each rank writes and reads back its own block of
 *           N ints in ten areas, one per access form: explicit offsets
 *           (write_at/read_at, _all, nonblocking, nonblocking _all, split
 *           collective), and the individual file pointer (seek + write/read,
 *           _all, nonblocking, nonblocking _all, split collective). What is
 *           read back is checked against what was written.
 *   shared: the shared file pointer: write_ordered/read_ordered, their split
 *           forms, and write_shared/read_shared (blocking and nonblocking)
 *           behind seek_shared; sized up front so that every read finds
 *           N ints (the order of the shared accesses between ranks is not
 *           fixed, their counts and sizes are).
 *   own:    one per rank, opened on MPI_COMM_SELF with MPI_MODE_DELETE_ON_CLOSE
 *           (independent I/O; the same file id on every rank, as one
 *           communicator id stands for all the rows of a split), written,
 *           read back and closed at the end.
 * Before the loop: open, atomicity, amode, group, preallocate, type extent,
 * view; after it: a strided view (a derived filetype: each rank's blocks of
 * 2 N ints interleaved) written and read collectively, the view put back,
 * size, sync, set_size, close, and rank 0 deletes both files.
 *
 * Counts oracle (per rank, I = iterations, P = ranks): every call goes
 * through WL() (wl_common.h), which counts it; rank 0 alone calls
 * MPI_File_delete (twice) and MPI_Reduce's result is used on rank 0 only.
 * Options: -s N ints per block (default 64), -i I iterations (default 4).
 */
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define AREAS 10

static long long mismatches;

/* The value rank r writes at element k of area a in iteration it. */
static int value_of(int r, int it, int a, int k) { return ((r * 31 + it * 7 + a * 3 + k) % 1009) + 1; }

static void fill(int *buf, int n, int r, int it, int a) {
  for (int k = 0; k < n; k++) buf[k] = value_of(r, it, a, k);
}

static void check(const int *buf, int n, int r, int it, int a) {
  for (int k = 0; k < n; k++)
    if (buf[k] != value_of(r, it, a, k)) mismatches++;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start(&argc, &argv, 4, 64, &args, &rank, &nprocs);
  const int n = args.size;
  if (rank == 0) printf("mpiio: %d ranks, %d ints per block, %d iterations\n", nprocs, n, args.iters);

  int *wbuf = malloc(2 * (size_t)n * sizeof *wbuf), *rbuf = malloc(2 * (size_t)n * sizeof *rbuf);
  if (!wbuf || !rbuf) {
    fprintf(stderr, "mpiio: out of memory\n");
    return 1;
  }
  long long pid = (long long)getpid();
  WL(MPI_Bcast, &pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const char *dir = getenv("MPIIO_DIR");
  char data_name[4096], shared_name[4096];
  snprintf(data_name, sizeof data_name, "%s%stf-mpiio-%lld.dat", dir ? dir : "", dir ? "/" : "", pid);
  snprintf(shared_name, sizeof shared_name, "%s%stf-mpiio-%lld.shared", dir ? dir : "", dir ? "/" : "", pid);
  const MPI_Offset block = (MPI_Offset)n * (MPI_Offset)sizeof(int);

  MPI_File fh, sh;
  WL(MPI_File_open, MPI_COMM_WORLD, data_name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  WL(MPI_File_open, MPI_COMM_WORLD, shared_name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &sh);
  int atomic = 1, amode = 0;
  WL(MPI_File_set_atomicity, fh, 0);
  WL(MPI_File_get_atomicity, fh, &atomic);
  WL(MPI_File_get_amode, fh, &amode);
  MPI_Group group;
  WL(MPI_File_get_group, fh, &group);
  int gsize = 0;
  WL(MPI_Group_size, group, &gsize);
  WL(MPI_Group_free, &group);
  WL(MPI_File_preallocate, fh, (MPI_Offset)AREAS * nprocs * block);
  WL(MPI_File_set_size, sh, 4 * (MPI_Offset)nprocs * block * (args.iters + 1));
  MPI_Aint extent = 0;
  WL(MPI_File_get_type_extent, fh, MPI_INT, &extent);
  MPI_Offset disp = -1;
  MPI_Datatype etype, filetype;
  char datarep[MPI_MAX_DATAREP_STRING + 1];
  WL(MPI_File_get_view, fh, &disp, &etype, &filetype, datarep); /* the default view: predefined types */

  MPI_Status st;
  MPI_Request req;
  for (int it = 0; it < args.iters; it++) {
    /* the offset of this rank's block in area a of this iteration */
#define AREA(a) ((((MPI_Offset)it * AREAS + (a)) * nprocs + rank) * block)
    /* explicit offsets */
    fill(wbuf, n, rank, it, 0);
    WL(MPI_File_write_at, fh, AREA(0), wbuf, n, MPI_INT, &st);
    WL(MPI_File_read_at, fh, AREA(0), rbuf, n, MPI_INT, &st);
    check(rbuf, n, rank, it, 0);
    fill(wbuf, n, rank, it, 1);
    WL(MPI_File_write_at_all, fh, AREA(1), wbuf, n, MPI_INT, MPI_STATUS_IGNORE);
    WL(MPI_File_read_at_all, fh, AREA(1), rbuf, n, MPI_INT, &st);
    check(rbuf, n, rank, it, 1);
    fill(wbuf, n, rank, it, 2);
    WL(MPI_File_iwrite_at, fh, AREA(2), wbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    WL(MPI_File_iread_at, fh, AREA(2), rbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    check(rbuf, n, rank, it, 2);
    fill(wbuf, n, rank, it, 3);
    WL(MPI_File_iwrite_at_all, fh, AREA(3), wbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, MPI_STATUS_IGNORE);
    WL(MPI_File_iread_at_all, fh, AREA(3), rbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    check(rbuf, n, rank, it, 3);
    fill(wbuf, n, rank, it, 4);
    WL(MPI_File_write_at_all_begin, fh, AREA(4), wbuf, n, MPI_INT);
    WL(MPI_File_write_at_all_end, fh, wbuf, &st);
    WL(MPI_File_read_at_all_begin, fh, AREA(4), rbuf, n, MPI_INT);
    WL(MPI_File_read_at_all_end, fh, rbuf, &st);
    check(rbuf, n, rank, it, 4);

    /* the individual file pointer */
    MPI_Offset pos = -1, byte_offset = -1;
    fill(wbuf, n, rank, it, 5);
    WL(MPI_File_seek, fh, AREA(5), MPI_SEEK_SET);
    WL(MPI_File_write, fh, wbuf, n, MPI_INT, &st);
    WL(MPI_File_get_position, fh, &pos);
    WL(MPI_File_get_byte_offset, fh, pos, &byte_offset);
    WL(MPI_File_seek, fh, -block, MPI_SEEK_CUR);
    WL(MPI_File_read, fh, rbuf, n, MPI_INT, &st);
    check(rbuf, n, rank, it, 5);
    fill(wbuf, n, rank, it, 6);
    WL(MPI_File_seek, fh, AREA(6), MPI_SEEK_SET);
    WL(MPI_File_write_all, fh, wbuf, n, MPI_INT, &st);
    WL(MPI_File_seek, fh, AREA(6), MPI_SEEK_SET);
    WL(MPI_File_read_all, fh, rbuf, n, MPI_INT, &st);
    check(rbuf, n, rank, it, 6);
    fill(wbuf, n, rank, it, 7);
    WL(MPI_File_seek, fh, AREA(7), MPI_SEEK_SET);
    WL(MPI_File_iwrite, fh, wbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    WL(MPI_File_seek, fh, AREA(7), MPI_SEEK_SET);
    WL(MPI_File_iread, fh, rbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    check(rbuf, n, rank, it, 7);
    fill(wbuf, n, rank, it, 8);
    WL(MPI_File_seek, fh, AREA(8), MPI_SEEK_SET);
    WL(MPI_File_iwrite_all, fh, wbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    WL(MPI_File_seek, fh, AREA(8), MPI_SEEK_SET);
    WL(MPI_File_iread_all, fh, rbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    check(rbuf, n, rank, it, 8);
    fill(wbuf, n, rank, it, 9);
    WL(MPI_File_seek, fh, AREA(9), MPI_SEEK_SET);
    WL(MPI_File_write_all_begin, fh, wbuf, n, MPI_INT);
    WL(MPI_File_write_all_end, fh, wbuf, &st);
    WL(MPI_File_seek, fh, AREA(9), MPI_SEEK_SET);
    WL(MPI_File_read_all_begin, fh, rbuf, n, MPI_INT);
    WL(MPI_File_read_all_end, fh, rbuf, &st);
    check(rbuf, n, rank, it, 9);
#undef AREA

    /* the shared file pointer: ordered (rank order), then free order */
    MPI_Offset shared_pos = -1;
    WL(MPI_File_seek_shared, sh, 0, MPI_SEEK_SET);
    fill(wbuf, n, rank, it, 10);
    WL(MPI_File_write_ordered, sh, wbuf, n, MPI_INT, &st);
    WL(MPI_File_seek_shared, sh, 0, MPI_SEEK_SET);
    WL(MPI_File_read_ordered, sh, rbuf, n, MPI_INT, &st);
    check(rbuf, n, rank, it, 10);
    fill(wbuf, n, rank, it, 11);
    WL(MPI_File_write_ordered_begin, sh, wbuf, n, MPI_INT);
    WL(MPI_File_write_ordered_end, sh, wbuf, &st);
    WL(MPI_File_seek_shared, sh, (MPI_Offset)nprocs * block, MPI_SEEK_SET);
    WL(MPI_File_read_ordered_begin, sh, rbuf, n, MPI_INT);
    WL(MPI_File_read_ordered_end, sh, rbuf, &st);
    check(rbuf, n, rank, it, 11);
    WL(MPI_File_seek_shared, sh, 0, MPI_SEEK_SET);
    WL(MPI_Barrier, MPI_COMM_WORLD); /* every rank sees the position seek_shared set */
    WL(MPI_File_get_position_shared, sh, &shared_pos);
    WL(MPI_Barrier, MPI_COMM_WORLD);
    WL(MPI_File_write_shared, sh, wbuf, n, MPI_INT, &st);
    WL(MPI_File_iwrite_shared, sh, wbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    WL(MPI_Barrier, MPI_COMM_WORLD);
    WL(MPI_File_seek_shared, sh, 0, MPI_SEEK_SET);
    WL(MPI_File_read_shared, sh, rbuf, n, MPI_INT, &st);
    WL(MPI_File_iread_shared, sh, rbuf, n, MPI_INT, &req);
    WL(MPI_Wait, &req, &st);
    WL(MPI_Barrier, MPI_COMM_WORLD);
  }

  /* a strided view: rank r's blocks of n ints at r, r + P, r + 2P, ... (in blocks) */
  MPI_Datatype contig, strided;
  WL(MPI_Type_contiguous, n, MPI_INT, &contig);
  WL(MPI_Type_create_resized, contig, 0, (MPI_Aint)nprocs * block, &strided);
  WL(MPI_Type_commit, &strided);
  const MPI_Offset view_base = (MPI_Offset)args.iters * AREAS * nprocs * block;
  WL(MPI_File_set_view, fh, view_base + rank * block, MPI_INT, strided, "native", MPI_INFO_NULL);
  fill(wbuf, 2 * n, rank, args.iters, 0);
  WL(MPI_File_write_at_all, fh, 0, wbuf, 2 * n, MPI_INT, &st);
  WL(MPI_File_read_at_all, fh, 0, rbuf, 2 * n, MPI_INT, &st);
  check(rbuf, 2 * n, rank, args.iters, 0);
  WL(MPI_File_set_view, fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  WL(MPI_File_get_view, fh, &disp, &etype, &filetype, datarep);
  WL(MPI_Type_free, &strided);
  WL(MPI_Type_free, &contig);

  /* a file of this rank's own */
  char own_name[4200];
  MPI_File own;
  snprintf(own_name, sizeof own_name, "%s.%d", data_name, rank);
  WL(MPI_File_open, MPI_COMM_SELF, own_name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
     &own);
  fill(wbuf, n, rank, args.iters, 1);
  WL(MPI_File_write_at, own, 0, wbuf, n, MPI_INT, &st);
  WL(MPI_File_read_at, own, 0, rbuf, n, MPI_INT, &st);
  check(rbuf, n, rank, args.iters, 1);
  WL(MPI_File_close, &own);

  MPI_Offset size = 0;
  WL(MPI_File_sync, fh);
  WL(MPI_File_get_size, fh, &size);
  WL(MPI_File_set_size, fh, size);
  WL(MPI_File_seek, fh, 0, MPI_SEEK_END);
  WL(MPI_File_close, &fh);
  WL(MPI_File_close, &sh);
  WL(MPI_Barrier, MPI_COMM_WORLD);
  if (rank == 0) {
    WL(MPI_File_delete, data_name, MPI_INFO_NULL);
    WL(MPI_File_delete, shared_name, MPI_INFO_NULL);
  }

  long long bad = 0;
  WL(MPI_Reduce, &mismatches, &bad, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long long expect = (long long)args.iters * AREAS * nprocs * block + 2 * nprocs * block;
    printf("group size %s, atomicity %d, extent %ld, view disp %lld\n", gsize == nprocs ? "ok" : "WRONG", atomic,
           (long)extent, (long long)disp);
    printf("file size %s\n", size == expect ? "ok" : "WRONG");
    printf("checksum: %lld\n", bad);
  }
  free(wbuf);
  free(rbuf);
  return wl_finalize(&args, rank);
}
