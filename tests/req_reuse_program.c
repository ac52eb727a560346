/* req_reuse_program.c — request ids when a request handle is reused
 * between threads (issue 23, point 3b), on the recorder's object tables
 * (src/recorder/object_ids.c) directly, one step of each thread at a time:
 *
 *   thread A enters MPI_Wait(r): its snapshot says id a;
 *   MPI completes A's request and gives the handle value r to thread B's
 *   MPI_Isend before A's wrapper has forgotten a: B records a new id b;
 *   B enters MPI_Wait(r): its snapshot must say b, not a;
 *   both wrappers forget their requests: afterwards no record of r is
 *   left, so the next request with handle r gets a fresh id again.
 *
 * Also the case without threads that must not change: two live requests
 * sharing one handle (MPICH's MPI_PROC_NULL receives) are used oldest
 * first. Run at 1 rank; exit 0 when every check passes. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "object_ids.h"

static int failures;
#define EXPECT(cond)                                                                                            \
  do {                                                                                                         \
    if (!(cond)) {                                                                                             \
      fprintf(stderr, "req_reuse_program:%d: FAILED: %s\n", __LINE__, #cond);                                  \
      failures++;                                                                                              \
    }                                                                                                          \
  } while (0)

static MPI_Request handle(int v) { /* a handle value (an int under MPICH, a pointer under Open MPI) */
  MPI_Request r;
  memset(&r, 0, sizeof r);
  memcpy(&r, &v, sizeof v);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (tf_object_ids_init() != 0) return 2;
  tf_comm_info world = tf_comm_get(MPI_COMM_WORLD);
  MPI_Request r = handle(0x2c000001);

  /* reused between threads */
  int64_t a = tf_req_new(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_a = tf_req_get(r, 1);
  int64_t b = tf_req_new(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_b = tf_req_get(r, 1);
  EXPECT(wait_a.id == a);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_a);
  tf_req_completed(&wait_b);
  int64_t c = tf_req_new(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_c = tf_req_get(r, 1);
  EXPECT(wait_c.id == c);
  tf_req_completed(&wait_c);

  /* the same, with A's forget before B's Wait */
  a = tf_req_new(r, TF_REQ_SEND, 0, &world);
  wait_a = tf_req_get(r, 1);
  b = tf_req_new(r, TF_REQ_SEND, 0, &world);
  tf_req_completed(&wait_a);
  wait_b = tf_req_get(r, 1);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_b);

  /* a test that does not complete leaves the request as it was */
  a = tf_req_new(r, TF_REQ_SEND, 0, &world);
  tf_req_snap test_a = tf_req_get(r, 1);
  tf_req_settled(&test_a); /* MPI_Test: flag false */
  b = tf_req_new(r, TF_REQ_RECV, 0, &world); /* a second live request with the same handle: shared */
  wait_a = tf_req_get(r, 1);
  EXPECT(wait_a.id == a);
  tf_req_completed(&wait_a);
  tf_req_settled(&wait_a);
  wait_b = tf_req_get(r, 1);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_b);
  tf_req_settled(&wait_b);

  tf_object_ids_free();
  printf("req_reuse_program: %s\n", failures ? "FAILED" : "ok");
  MPI_Finalize();
  return failures ? 1 : 0;
}
