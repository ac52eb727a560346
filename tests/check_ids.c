/* check_ids.c — checks the symbolic ids in the trace of ids_program.
 *
 *   usage: check_ids TRACE_DIR
 *
 * Communicator ids: the communicator made by the same constructor call has
 *   the same id on every member (dup, cart, split within a colour,
 *   create_group among the evens); different live communicators on one rank
 *   have different ids; a dup after a free gets a new id.
 * Request ids: unique per rank and increasing, although the MPI library
 *   reused handle values (ids_program prints whether it did).
 * Call sites: event k has the same signature on every rank (one binary,
 *   ASLR on), distinct source lines give distinct signatures, and the site
 *   resolves to the ids_program module.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefold.h"

#define MAXEV 4096
#define MAXR 64

static int failures;
#define CHECK(cond, ...)                                                                                        \
  do {                                                                                                         \
    if (!(cond)) {                                                                                             \
      fprintf(stderr, "check_ids: " __VA_ARGS__);                                                              \
      fprintf(stderr, "\n");                                                                                   \
      failures++;                                                                                              \
    }                                                                                                          \
  } while (0)

typedef struct {
  char fn[40];
  uint64_t cs;
  int64_t newcomm, newreq, comm;
} ev_t;

static ev_t evs[MAXR][MAXEV];
static int nev[MAXR];

static int64_t field(const tf_func_desc *fd, const tf_event *ev, unsigned kind) {
  uint32_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    if (fd->fields[k].is_array) {
      pos += 1 + (uint32_t)ev->vals[pos];
      continue;
    }
    if (fd->fields[k].kind == kind) return ev->vals[pos];
    pos++;
  }
  return TF_NONE;
}

/* index of the n-th (0-based) event named fn on rank r, or -1 */
static int nth(int r, const char *fn, int n) {
  for (int i = 0; i < nev[r]; i++)
    if (strcmp(evs[r][i].fn, fn) == 0 && n-- == 0) return i;
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: check_ids TRACE_DIR\n");
    return 2;
  }
  char err[512];
  tf_trace *t;
  if (tf_trace_open(argv[1], 0, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "check_ids: %s\n", err);
    return 1;
  }
  const tf_trace_info *ti = tf_trace_get_info(t);
  int np = ti->nranks_present;
  CHECK(ti->source == TF_SOURCE_MERGED, "expected one merged trace file");
  CHECK(np <= MAXR, "too many ranks");
  const char *module0 = NULL;
  for (int r = 0; r < np && r < MAXR; r++) {
    tf_rank_cursor *rd;
    if (tf_rank_cursor_open(t, r, &rd, err, sizeof err) != TF_OK) {
      fprintf(stderr, "check_ids: %s\n", err);
      return 1;
    }
    tf_event ev;
    while (tf_rank_cursor_next(rd, &ev) == 1 && nev[r] < MAXEV) {
      const tf_func_desc *fd = &ti->funcs[ev.fn];
      ev_t *e = &evs[r][nev[r]++];
      snprintf(e->fn, sizeof e->fn, "%s", fd->name);
      e->cs = ev.callsite;
      e->newcomm = field(fd, &ev, TF_FIELD_COMM_NEW);
      e->newreq = field(fd, &ev, TF_FIELD_REQ_NEW);
      e->comm = field(fd, &ev, TF_FIELD_COMM);
      if (r == 0 && nev[r] == 1)
        for (uint32_t k = 0; k < ti->ncallsites; k++)
          if (ti->callsites[k].sig == ev.callsite) module0 = strdup(ti->callsites[k].module);
    }
    tf_rank_cursor_close(rd);
  }
  CHECK(np >= 4, "run at 4 or more ranks (got %d)", np);

  /* communicators */
  int d0 = nth(0, "MPI_Comm_dup", 0), d1 = nth(0, "MPI_Comm_dup", 1);
  int64_t dup1 = evs[0][d0].newcomm, dup2 = evs[0][d1].newcomm;
  int64_t cart = evs[0][nth(0, "MPI_Cart_create", 0)].newcomm;
  int64_t half0 = evs[0][nth(0, "MPI_Comm_split", 0)].newcomm;
  int64_t evens = evs[0][nth(0, "MPI_Comm_create_group", 0)].newcomm;
  CHECK(dup1 >= 16 && dup2 >= 16 && cart >= 16 && half0 >= 16 && evens >= 16, "derived ids must be >= 16");
  CHECK(dup1 != dup2 && dup1 != cart && dup1 != half0 && cart != half0 && evens != dup2 && evens != cart,
        "live communicators on rank 0 must have distinct ids");
  for (int r = 1; r < np; r++) {
    CHECK(evs[r][nth(r, "MPI_Comm_dup", 0)].newcomm == dup1, "rank %d: first dup id differs", r);
    CHECK(evs[r][nth(r, "MPI_Comm_dup", 1)].newcomm == dup2, "rank %d: second dup id differs", r);
    CHECK(evs[r][nth(r, "MPI_Cart_create", 0)].newcomm == cart, "rank %d: cart id differs", r);
    CHECK(evs[r][nth(r, "MPI_Comm_split", 0)].newcomm == half0, "rank %d: split id differs", r);
    int cg = nth(r, "MPI_Comm_create_group", 0);
    if (r % 2 == 0) CHECK(cg >= 0 && evs[r][cg].newcomm == evens, "rank %d: create_group id differs", r);
    else CHECK(cg < 0, "rank %d: odd rank recorded Comm_create_group it did not call", r);
  }
  /* requests */
  for (int r = 0; r < np; r++) {
    int64_t last = 0, n = 0;
    for (int i = 0; i < nev[r]; i++) {
      if (evs[r][i].newreq == TF_NONE) continue;
      CHECK(evs[r][i].newreq > last, "rank %d: request ids not strictly increasing at event %d", r, i);
      last = evs[r][i].newreq;
      n++;
    }
    CHECK(n == 100, "rank %d: expected 100 requests, got %lld", r, (long long)n);
  }
  /* call sites */
  for (int r = 1; r < np; r++) {
    CHECK(nev[r] == nev[0] || (nev[r] - nev[0] == 2 || nev[0] - nev[r] == 2), "rank %d: unexpected event count", r);
    for (int i = 0; i < 5; i++) CHECK(evs[r][i].cs == evs[0][i].cs, "rank %d: call site of event %d differs", r, i);
  }
  int ir = nth(0, "MPI_Irecv", 0), is = nth(0, "MPI_Isend", 0), ir2 = nth(0, "MPI_Irecv", 1);
  CHECK(evs[0][ir].cs != evs[0][is].cs, "Irecv and Isend lines must have distinct call sites");
  CHECK(evs[0][ir].cs == evs[0][ir2].cs, "the same Irecv line must keep its call site across iterations");
  CHECK(module0 && strstr(module0, "ids_program") != NULL, "call site module should be ids_program, got %s",
        module0 ? module0 : "(none)");
  tf_trace_close(t);
  free((void *)module0);
  if (failures) return 1;
  printf("check_ids: communicator, request and call-site ids ok on %d ranks\n", np);
  return 0;
}
