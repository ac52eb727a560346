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
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_merge.h"

#include "format/rank_reader.h"
#include "merge/mtrace.h"
#include "runtime.h" /* tf_now_ns */
#include "util/file_io.h"

#define TAG_SIZE 7101
#define TAG_DATA 7102
#define CHUNK ((size_t)1 << 30)
#define FAILED UINT64_MAX

static void send_bytes(MPI_Comm comm, int to, const uint8_t *p, uint64_t n) {
  PMPI_Send(&n, 1, MPI_UINT64_T, to, TAG_SIZE, comm);
  if (n == FAILED) return;
  for (uint64_t off = 0; off < n; off += CHUNK) {
    uint64_t k = n - off < CHUNK ? n - off : CHUNK;
    PMPI_Send(p + off, (int)k, MPI_BYTE, to, TAG_DATA, comm);
  }
}

/* The partner's bytes (malloc'ed), or NULL if it failed (or memory is
 * short here: the message is still drained). */
static uint8_t *recv_bytes(MPI_Comm comm, int from, uint64_t *n) {
  PMPI_Recv(n, 1, MPI_UINT64_T, from, TAG_SIZE, comm, MPI_STATUS_IGNORE);
  if (*n == FAILED) return NULL;
  uint8_t *p = malloc(*n ? (size_t)*n : 1);
  uint8_t sink[4096];
  for (uint64_t off = 0; off < *n; off += CHUNK) {
    uint64_t k = *n - off < CHUNK ? *n - off : CHUNK;
    if (p) {
      PMPI_Recv(p + off, (int)k, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
    } else { /* drain in pieces */
      MPI_Status st;
      PMPI_Probe(from, TAG_DATA, comm, &st);
      int cnt;
      PMPI_Get_count(&st, MPI_BYTE, &cnt);
      uint8_t *tmp = malloc((size_t)cnt + 1);
      PMPI_Recv(tmp ? tmp : sink, tmp ? cnt : 0, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
      free(tmp);
    }
  }
  return p;
}

int tf_merge_ranks(MPI_Comm comm, int rank, int nranks, const uint8_t *mine, size_t len, tf_buf *out,
                   uint64_t *merge_ns, char *err, size_t errlen) {
  uint64_t t0 = tf_now_ns();
  int ok = 1;
  err[0] = 0;
  tf_mtrace t = {0};
  /* this rank's own file as a one-rank merged trace */
  uint8_t *copy = mine ? malloc(len ? len : 1) : NULL;
  tf_file_reader *r = NULL;
  if (!copy) {
    ok = 0;
    snprintf(err, errlen, "rank %d: no folded trace to merge", rank);
  } else {
    memcpy(copy, mine, len);
    if (tf_file_open_mem(copy, len, "this rank's trace", &r, err, errlen) != TF_OK || tf_mtrace_from_file(&t, r)) {
      ok = 0;
      if (!err[0]) snprintf(err, errlen, "rank %d: out of memory", rank);
    }
    tf_file_close(r);
  }
  for (int step = 1; step < nranks; step <<= 1) {
    if (rank % (2 * step) != 0) { /* send up and stop */
      tf_buf b = {0};
      if (ok && tf_mtrace_encode(&t, &b, 0) != 0) {
        ok = 0;
        snprintf(err, errlen, "rank %d: out of memory while encoding", rank);
      }
      send_bytes(comm, rank - step, b.data, ok ? b.len : FAILED);
      tf_buf_free(&b);
      break;
    }
    if (rank + step >= nranks) continue;
    uint64_t n;
    uint8_t *p = recv_bytes(comm, rank + step, &n);
    if (!p) {
      if (ok) snprintf(err, errlen, "rank %d or a rank merged into it could not take part", rank + step);
      ok = 0;
      continue;
    }
    tf_mtrace other;
    char name[64];
    snprintf(name, sizeof name, "ranks from %d", rank + step);
    if (ok && tf_mtrace_decode(p, (size_t)n, name, &other, err, errlen) != TF_OK) ok = 0;
    free(p);
    if (ok && tf_mtrace_merge(&t, &other, err, errlen) != 0) ok = 0;
  }
  if (rank == 0 && ok) {
    t.merge_ns = tf_now_ns() - t0;
    *merge_ns = t.merge_ns;
    if (tf_mtrace_encode(&t, out, TF_TRACE_ZSTD_LEVEL) != 0) {
      ok = 0;
      tf_buf_free(out);
      snprintf(err, errlen, "rank 0: out of memory while encoding the merged trace");
    }
  }
  tf_mtrace_free(&t);
  PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  return ok ? 0 : -1;
}
