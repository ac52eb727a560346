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
 * first. And live requests sharing one handle between threads (MPICH's
 * lightweight requests and Open MPI's empty request: every MPI_Isend that
 * completes at once; the workload mtstress found these):
 *
 *   two threads enter a completion call on the shared handle at once:
 *   they take two different ids, not the oldest twice;
 *   a thread's MPI_Test holds a claim on the shared handle and does not
 *   complete it, while another thread's MPI_Isend gets the same handle:
 *   the new request queues, the tested one stays (it was replaced, lost,
 *   and a later call then named an id never created);
 *   MPI_Request_free claims its request like a completion call;
 *   a new request is its call's own until that call's event is recorded:
 *   another thread's call meanwhile takes another request of the handle.
 *
 * Run at 1 rank; exit 0 when every check passes. */
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

/* a request made by a call whose event is in the trace: the wrapper's tf_req_new, then tf_req_published */
static int64_t new_req(MPI_Request r, int kind, int persistent, const tf_comm_info *ci) {
  int64_t id = tf_req_new(r, kind, persistent, ci);
  tf_req_published(r, id);
  return id;
}

/* One thread's MPI_Wait on r, from its snapshot to its end: the id it completed. */
static int64_t wait_one(MPI_Request r) {
  tf_req_snap s = tf_req_get(r, 1);
  tf_req_completed(&s);
  tf_req_settled(&s);
  return s.id;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (tf_object_ids_init() != 0) return 2;
  tf_comm_info world = tf_comm_get(MPI_COMM_WORLD);
  MPI_Request r = handle(0x2c000001);

  /* reused between threads */
  int64_t a = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_a = tf_req_get(r, 1);
  int64_t b = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_b = tf_req_get(r, 1);
  EXPECT(wait_a.id == a);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_a);
  tf_req_completed(&wait_b);
  int64_t c = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_c = tf_req_get(r, 1);
  EXPECT(wait_c.id == c);
  tf_req_completed(&wait_c);

  /* the same, with A's forget before B's Wait */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  wait_a = tf_req_get(r, 1);
  b = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_completed(&wait_a);
  wait_b = tf_req_get(r, 1);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_b);

  /* a test that does not complete leaves the request as it was */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap test_a = tf_req_get(r, 1);
  tf_req_settled(&test_a); /* MPI_Test: flag false */
  b = new_req(r, TF_REQ_RECV, 0, &world); /* a second live request with the same handle: shared */
  EXPECT(wait_one(r) == a);
  EXPECT(wait_one(r) == b);

  /* a shared handle completed by two threads at once */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  b = new_req(r, TF_REQ_SEND, 0, &world);
  wait_a = tf_req_get(r, 1);
  wait_b = tf_req_get(r, 1);
  EXPECT(wait_a.id == a);
  EXPECT(wait_b.id == b);
  tf_req_completed(&wait_b);
  tf_req_settled(&wait_b);
  tf_req_completed(&wait_a);
  tf_req_settled(&wait_a);
  c = new_req(r, TF_REQ_SEND, 0, &world);
  EXPECT(wait_one(r) == c); /* nothing of a and b is left */

  /* a test that does not complete, while another thread's new request gets the handle */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  test_a = tf_req_get(r, 1);
  b = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap wait_other = tf_req_get(r, 1); /* a third thread's MPI_Wait meanwhile: not the claimed one */
  EXPECT(wait_other.id == b);
  tf_req_completed(&wait_other);
  tf_req_settled(&wait_other);
  tf_req_settled(&test_a); /* MPI_Test: flag false */
  EXPECT(wait_one(r) == a); /* still there */
  c = new_req(r, TF_REQ_SEND, 0, &world);
  EXPECT(wait_one(r) == c);

  /* a shared handle named twice in one call: the two oldest */
  a = new_req(r, TF_REQ_RECV, 0, &world);
  b = new_req(r, TF_REQ_RECV, 0, &world);
  c = new_req(r, TF_REQ_RECV, 0, &world);
  tf_call call;
  tf_call_init(&call, 0, NULL);
  tf_req_snap *both = tf_req_get_all(&call, (MPI_Request[]){r, r}, 2, 1);
  EXPECT(both && both[0].id == a && both[1].id == b);
  for (int i = 0; both && i < 2; i++) tf_req_completed(&both[i]);
  for (int i = 0; both && i < 2; i++) tf_req_settled(&both[i]);
  tf_call_done(&call);
  EXPECT(wait_one(r) == c);

  /* MPI_Request_free claims: another thread's call meanwhile takes the next one */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  b = new_req(r, TF_REQ_SEND, 0, &world);
  tf_req_snap free_a = tf_req_get(r, 1);
  wait_b = tf_req_get(r, 1);
  EXPECT(free_a.id == a);
  EXPECT(wait_b.id == b);
  tf_req_forget(&free_a);
  tf_req_settled(&free_a);
  tf_req_completed(&wait_b);
  tf_req_settled(&wait_b);

  /* a new request is its call's own until published: another thread's call
   * meanwhile takes another request that shares the handle */
  a = new_req(r, TF_REQ_SEND, 0, &world);
  b = tf_req_new(r, TF_REQ_SEND, 0, &world); /* thread B's MPI_Isend, its event not yet recorded */
  wait_a = tf_req_get(r, 1);                  /* thread A's MPI_Wait */
  EXPECT(wait_a.id == a);
  tf_req_completed(&wait_a);
  tf_req_settled(&wait_a);
  tf_req_published(r, b);
  EXPECT(wait_one(r) == b);
  b = tf_req_new(r, TF_REQ_SEND, 0, &world);
  a = new_req(r, TF_REQ_SEND, 0, &world); /* queued behind b, yet published first */
  EXPECT(wait_one(r) == a);
  tf_req_published(r, b);
  EXPECT(wait_one(r) == b);

  tf_object_ids_free();
  printf("req_reuse_program: %s\n", failures ? "FAILED" : "ok");
  MPI_Finalize();
  return failures ? 1 : 0;
}
