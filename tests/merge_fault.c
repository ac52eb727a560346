/* merge_fault.c — a fault injector for tests/merge_mpi_error.sh, preloaded
 * ahead of libtracefold.so: the first receive of a merged trace's bytes (the
 * recorder's tag 7102, MPI_BYTE) completes, then reports an MPI error
 * through the communicator's error handler, as a library that found the
 * message damaged would. (The receive completes so that its sender, which
 * may wait for it under a rendezvous protocol, is not left hanging.) With MPI_ERRORS_ARE_FATAL (the handler a duplicate
 * of MPI_COMM_WORLD inherits) that aborts the job; the recorder must have
 * set MPI_ERRORS_RETURN on its communicator and fall back to per-rank
 * files. Every other call goes straight to MPI. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdatomic.h>

#define MERGE_DATA_TAG 7102 /* rank_merge.c: TAG_DATA */

typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static atomic_int injected;

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  static recv_fn real;
  if (!real) real = (recv_fn)dlsym(RTLD_NEXT, "PMPI_Recv");
  int rc = real(buf, count, type, source, tag, comm, status);
  if (rc != MPI_SUCCESS || tag != MERGE_DATA_TAG || type != MPI_BYTE || atomic_exchange(&injected, 1))
    return rc;
  PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}
