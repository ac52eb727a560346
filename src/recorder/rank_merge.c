/* rank_merge.c — at MPI_Finalize, merge every rank's folded trace into one
 * file over a binomial tree of PMPI messages (doc/MERGING.md).
 *
 * Round k (k = 1, 2, 4, ...): a rank r with r % 2k == 0 receives the merged
 * trace of ranks [r+k, r+2k) from rank r+k and merges it into its own
 * (ranks [r, r+k)); rank r+k has sent and is done. After ceil(log2 P)
 * rounds rank 0 holds every rank and writes the file. Messages are merged
 * trace encodings (the file format, uncompressed), so every round is
 * decoded and validated like a file. A rank that cannot take part (out of
 * memory) sends a failure mark instead, which travels up the tree; rank 0
 * then tells everyone, and each rank writes its own per-rank file instead.
 * An MPI error is such a failure too: the recorder's communicator returns
 * errors (MPI_ERRORS_RETURN) and every PMPI call here checks its result,
 * so a failing network never aborts the application from inside the merge.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "rank_merge.h"

#include "format/rank_reader.h"
#include "merge/mtrace.h"
#include "runtime.h" /* tf_now_ns */
#include "util/file_io.h"

#define TAG_SIZE 7101
#define TAG_DATA 7102
#define CHUNK ((size_t)1 << 30)
#define FAILED UINT64_MAX

/* The text of an MPI error code, for the reason the merge failed. */
static const char *mpi_error_text(int rc, char *buf) {
  int n = 0;
  if (PMPI_Error_string(rc, buf, &n) != MPI_SUCCESS) snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
  return buf;
}

/* Every PMPI call of the merge returns its error (the recorder's
 * communicator has MPI_ERRORS_RETURN): the first failure says why in err,
 * and the merge falls back to per-rank files instead of aborting. */
static int mpi_ok(int rc, int rank, const char *what, int peer, char *err, size_t errlen) {
  if (rc == MPI_SUCCESS) return 1;
  char text[MPI_MAX_ERROR_STRING];
  if (!err[0]) snprintf(err, errlen, "rank %d: %s rank %d failed in MPI: %s", rank, what, peer, mpi_error_text(rc, text));
  return 0;
}

/* 0, or the first MPI error code. */
static int send_bytes(MPI_Comm comm, int to, const uint8_t *p, uint64_t n) {
  int rc = PMPI_Send(&n, 1, MPI_UINT64_T, to, TAG_SIZE, comm);
  if (n == FAILED) return rc;
  for (uint64_t off = 0; off < n && rc == MPI_SUCCESS; off += CHUNK) {
    uint64_t k = n - off < CHUNK ? n - off : CHUNK;
    rc = PMPI_Send(p + off, (int)k, MPI_BYTE, to, TAG_DATA, comm);
  }
  return rc;
}

/* The partner's bytes (malloc'ed), or NULL if it failed, memory is short
 * here (the message is still drained) or a receive failed (*rc: its MPI
 * error code, else MPI_SUCCESS). */
static uint8_t *recv_bytes(MPI_Comm comm, int from, uint64_t *n, int *rc) {
  *rc = PMPI_Recv(n, 1, MPI_UINT64_T, from, TAG_SIZE, comm, MPI_STATUS_IGNORE);
  if (*rc != MPI_SUCCESS || *n == FAILED) return NULL;
  uint8_t *p = malloc(*n ? (size_t)*n : 1);
  uint8_t sink[4096];
  for (uint64_t off = 0; off < *n && *rc == MPI_SUCCESS; off += CHUNK) {
    uint64_t k = *n - off < CHUNK ? *n - off : CHUNK;
    if (p) {
      *rc = PMPI_Recv(p + off, (int)k, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
    } else { /* drain in pieces */
      MPI_Status st;
      int cnt = 0;
      *rc = PMPI_Probe(from, TAG_DATA, comm, &st);
      if (*rc == MPI_SUCCESS) *rc = PMPI_Get_count(&st, MPI_BYTE, &cnt);
      if (*rc != MPI_SUCCESS) break;
      uint8_t *tmp = malloc((size_t)cnt + 1);
      *rc = PMPI_Recv(tmp ? tmp : sink, tmp ? cnt : 0, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
      free(tmp);
    }
  }
  if (*rc != MPI_SUCCESS) {
    free(p);
    return NULL;
  }
  return p;
}

int tf_merge_ranks(MPI_Comm comm, int rank, int nranks, uint8_t **mine, size_t len, int drop, tf_buf *out,
                   uint64_t *merge_ns, char *err, size_t errlen) {
  uint64_t t0 = tf_now_ns();
  int ok = 1;
  err[0] = 0;
  tf_mtrace t = {0};
  /* this rank's own file as a one-rank merged trace (read in place, not copied) */
  tf_file_reader *r = NULL;
  if (!*mine) {
    ok = 0;
    snprintf(err, errlen, "rank %d: no folded trace to merge", rank);
  } else {
    tf_status st = tf_file_open_mem_runs(*mine, len, "this rank's trace", &r, err, errlen);
    if (st != TF_OK || tf_mtrace_from_file(&t, r)) {
      ok = 0;
      if (!err[0]) snprintf(err, errlen, "rank %d: out of memory", rank);
    }
    tf_file_close(r);
  }
  for (int step = 1; step < nranks; step <<= 1) {
    if (rank % (2 * step) != 0) { /* send up and stop */
      tf_buf b = {0};
      if (ok && tf_mtrace_encode_exact(&t, &b) != 0) {
        ok = 0;
        snprintf(err, errlen, "rank %d: out of memory while encoding", rank);
      }
      if (!mpi_ok(send_bytes(comm, rank - step, b.data, ok ? b.len : FAILED), rank, "sending to", rank - step, err,
                  errlen))
        ok = 0;
      tf_buf_free(&b);
      break;
    }
    if (rank + step >= nranks) continue;
    uint64_t n;
    int rc;
    uint8_t *p = recv_bytes(comm, rank + step, &n, &rc);
    if (!p) {
      if (mpi_ok(rc, rank, "receiving from", rank + step, err, errlen) && ok)
        snprintf(err, errlen, "rank %d or a rank merged into it could not take part", rank + step);
      ok = 0;
      continue;
    }
    tf_mtrace other;
    char name[64];
    snprintf(name, sizeof name, "ranks from %d", rank + step);
    if (ok && tf_mtrace_decode_runs(p, (size_t)n, name, &other, err, errlen) != TF_OK) ok = 0;
    free(p);
    if (ok && tf_mtrace_merge(&t, &other, err, errlen) != 0) ok = 0;
  }
  if (rank == 0 && ok) {
    t.merge_ns = tf_now_ns() - t0;
    *merge_ns = t.merge_ns;
    if (tf_mtrace_encode_free(&t, out, TF_TRACE_ZSTD_LEVEL) != 0) { /* t freed before the compression */
      ok = 0;
      tf_buf_free(out);
      snprintf(err, errlen, "rank 0: out of memory while encoding the merged trace");
    }
  }
  tf_mtrace_free(&t);
  if (drop) { /* its runs' bytes were read from it until now (not copied); a file complete on disk is not needed */
    free(*mine);
    *mine = NULL;
  }
  /* a rank that cannot learn the outcome counts it as a failure (and keeps its own file) */
  if (!mpi_ok(PMPI_Bcast(&ok, 1, MPI_INT, 0, comm), rank, "learning the outcome from", 0, err, errlen)) ok = 0;
  return ok ? 0 : -1;
}
