/* mtstress — a stress test of MPI_THREAD_MULTIPLE: 4 threads per rank
 * communicate at once on several communicators, and the requests one thread
 * starts are completed by another (the pattern of task-based runtimes and
 * progress threads, where whoever is free completes what is pending).
 *
 * Setup (main thread): MPI_Init_thread requesting MPI_THREAD_MULTIPLE (if
 * the library provides less, rank 0 says so and MPI_Abort ends the job);
 * MPI_Comm_dup of MPI_COMM_WORLD into own[t] for each worker t (its
 * point-to-point and its collectives), `shared` (point-to-point of every
 * thread at once, each thread with tags of its own) and `cshared` (the
 * collectives of thread 0 only: MPI allows one thread at a time in the
 * collectives of a communicator). Then 4 workers start; each makes
 * `mine` = MPI_Comm_dup(own[t]) (4 dups at once, on 4 parents) with two
 * persistent requests on it (MPI_Recv_init from the left rank, MPI_Send_init
 * to the right, around the ring of ranks).
 *
 * Iteration i of worker t (L, R: the left and right rank):
 *  1. waits until its requests of iteration i-1 are complete (by worker
 *     t+1), then starts: MPI_Irecv from L and MPI_Isend to R on shared (tag
 *     t), MPI_Iallreduce on own[t], its persistent pair (MPI_Startall on
 *     even i, two MPI_Start on odd i) and, worker 0 only, MPI_Ibarrier on
 *     cshared. It hands these requests to worker t+1 (mod 4) through a
 *     mutex-protected mailbox and does not touch them again.
 *  2. on own[t]: MPI_Sendrecv around the ring (even workers to the right,
 *     odd to the left); MPI_Isend to R, then MPI_Probe (even i) or MPI_Iprobe
 *     polls (odd i) from L, MPI_Recv, MPI_Wait on its MPI_Isend. On shared
 *     (tag 100+t): MPI_Isend to R, MPI_Mprobe + MPI_Mrecv (even i) or
 *     MPI_Improbe polls + MPI_Imrecv + MPI_Wait (odd i) from L, MPI_Wait on
 *     its MPI_Isend (with -x: MPI_Probe + MPI_Recv instead of the matched
 *     probes, which SimGrid's SMPI lacks).
 *  3. takes worker t-1's requests of iteration i from its mailbox and
 *     completes them, the way chosen by (i + t) mod 7: MPI_Waitall;
 *     MPI_Wait on each, last first; MPI_Waitsome until none is left;
 *     MPI_Testany polls; MPI_Test polls on each; MPI_Testall polls;
 *     MPI_Waitany until none is left. It checks
 *     what arrived (and the statuses, when it asked for them), adds it to
 *     worker t-1's sum, and tells worker t-1 they are complete.
 * At the end each worker frees its persistent requests (MPI_Request_free)
 * and `mine` (MPI_Comm_free); the main thread joins them, frees the six
 * communicators, and MPI_Allreduce's the sums for rank 0's checksum.
 *
 * Polls: a Test or probe call is repeated (with sched_yield between) until
 * it succeeds or has failed POLLS times, and then the blocking form
 * finishes the job (MPI_Wait, MPI_Waitall, MPI_Probe, MPI_Mprobe): the
 * load of the machine decides how often each path runs.
 *
 * Counts oracle: the polls run as many times as the library needs, so the
 * counts vary from run to run; the workload counts every call
 * it makes (wl_common.h), and that count is the oracle. Every other count
 * is fixed (I = iterations, per rank): MPI_Init_thread 1, MPI_Comm_rank 1,
 * MPI_Comm_size 1, MPI_Comm_dup 10, MPI_Recv_init 4, MPI_Send_init 4,
 * MPI_Irecv 4I, MPI_Isend 12I, MPI_Iallreduce 4I, MPI_Ibarrier I,
 * MPI_Sendrecv 4I, MPI_Recv 4I, MPI_Request_free 8, MPI_Comm_free 10,
 * MPI_Allreduce 1, MPI_Finalize 1.
 * The output (sums and checksum, rank 0) is the same on every run.
 * Options: -s N elements per message (default 32), -i I iterations
 * (default 12), -x (above).
 */
#define _POSIX_C_SOURCE 200809L
#include "wl_common.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define MAXREQ 6
#define NMETHODS 7
#define POLLS 8 /* a Test or probe loop blocks (Wait, Probe) after this many tries */

/* Worker t's requests of one iteration, for worker t+1 to complete. */
typedef struct mailbox {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int posted;    /* the iteration whose requests are in reqs (-1: none yet) */
  int completed; /* the last iteration whose requests worker t+1 completed */
  int n;
  MPI_Request reqs[MAXREQ];
  int is_recv[MAXREQ]; /* 1: a receive from the left rank (its status is checked) */
} mailbox;

typedef struct worker {
  int id;
  int rank, nprocs, iters, n, smpi_subset;
  MPI_Comm own, shared, cshared;
  mailbox box;
  long long *sbuf, *rbuf, *pbuf_s, *pbuf_r; /* bound to the requests worker t+1 completes */
  long long local, global;                    /* MPI_Iallreduce's */
  long long sum;                              /* written by worker t+1 only (step 3) */
  long long own_sum;                          /* what this worker received itself (step 2) */
} worker;

static worker workers[NTHREADS];

static void die(const char *what) {
  fprintf(stderr, "mtstress: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* What rank r's worker t sends in iteration i, element k (small values: sums stay exact). */
static long long value(int r, int t, int i, int k, int salt) {
  return (long long)(r + 1) * 1000 + t * 100 + (i % 50) * 3 + k % 13 + salt;
}

static void check_buffer(const long long *buf, int n, int r, int t, int i, int salt, const char *what) {
  for (int k = 0; k < n; k++)
    if (buf[k] != value(r, t, i, k, salt)) {
      char msg[200];
      snprintf(msg, sizeof msg, "worker %d, iteration %d: wrong data in %s (element %d)", t, i, what, k);
      die(msg);
    }
}

static long long sum_of(const long long *buf, int n) {
  long long s = 0;
  for (int k = 0; k < n; k++) s += buf[k];
  return s;
}

static void wait_until(mailbox *b, const int *field, int value_wanted) {
  pthread_mutex_lock(&b->lock);
  while (*field < value_wanted) pthread_cond_wait(&b->cond, &b->lock);
  pthread_mutex_unlock(&b->lock);
}

/* Step 3: complete worker p's requests of iteration i, by method m. */
static void complete(worker *p, int i, int m, int me) {
  mailbox *b = &p->box;
  wait_until(b, &b->posted, i);
  MPI_Request reqs[MAXREQ];
  MPI_Status st[MAXREQ];
  int is_recv[MAXREQ], n;
  pthread_mutex_lock(&b->lock);
  n = b->n;
  for (int k = 0; k < n; k++) reqs[k] = b->reqs[k], is_recv[k] = b->is_recv[k];
  pthread_mutex_unlock(&b->lock);
  int got_status[MAXREQ] = {0};
  int left = n, idx, flag, outcount, indices[MAXREQ];
  switch (m) {
  case 0:
    WL(MPI_Waitall, n, reqs, st);
    for (int k = 0; k < n; k++) got_status[k] = 1;
    break;
  case 1:
    for (int k = n - 1; k >= 0; k--) {
      WL(MPI_Wait, &reqs[k], &st[k]);
      got_status[k] = 1;
    }
    break;
  case 2:
    while (left > 0) {
      WL(MPI_Waitsome, n, reqs, &outcount, indices, st);
      if (outcount == MPI_UNDEFINED) die("MPI_Waitsome found no active request");
      left -= outcount;
    }
    break;
  case 3:
    for (int polls = 0; left > 0; polls++) {
      if (polls >= POLLS) {
        WL(MPI_Waitall, n, reqs, MPI_STATUSES_IGNORE);
        break;
      }
      WL(MPI_Testany, n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
      if (flag && idx == MPI_UNDEFINED) die("MPI_Testany found no active request");
      if (flag) left--;
      else sched_yield();
    }
    break;
  case 4:
    for (int k = 0; k < n; k++) {
      for (int polls = 0;; polls++) {
        if (polls == POLLS) {
          WL(MPI_Wait, &reqs[k], &st[k]);
          break;
        }
        WL(MPI_Test, &reqs[k], &flag, &st[k]);
        if (flag) break;
        sched_yield();
      }
      got_status[k] = 1;
    }
    break;
  case 5:
    for (int polls = 0;; polls++) {
      if (polls == POLLS) {
        WL(MPI_Waitall, n, reqs, st);
        break;
      }
      WL(MPI_Testall, n, reqs, &flag, st);
      if (flag) break;
      sched_yield();
    }
    for (int k = 0; k < n; k++) got_status[k] = 1;
    break;
  default:
    while (left > 0) {
      WL(MPI_Waitany, n, reqs, &idx, &st[0]);
      if (idx == MPI_UNDEFINED) die("MPI_Waitany found no active request");
      if (is_recv[idx] && (st[0].MPI_SOURCE != (p->rank + p->nprocs - 1) % p->nprocs))
        die("MPI_Waitany: a receive matched the wrong source");
      left--;
    }
    break;
  }
  const int L = (p->rank + p->nprocs - 1) % p->nprocs;
  for (int k = 0; k < n; k++)
    if (got_status[k] && is_recv[k] && st[k].MPI_SOURCE != L) die("a receive completed by another thread matched the wrong source");
  check_buffer(p->rbuf, p->n, L, p->id, i, 0, "a receive on shared");
  check_buffer(p->pbuf_r, p->n, L, p->id, i, 7, "a persistent receive");
  long long want = 0;
  for (int r = 0; r < p->nprocs; r++) want += value(r, p->id, i, 0, 3);
  if (p->global != want) die("MPI_Iallreduce gave a wrong sum");
  p->sum += sum_of(p->rbuf, p->n) + sum_of(p->pbuf_r, p->n) + p->global * (me + 1);
  pthread_mutex_lock(&b->lock);
  b->completed = i;
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->lock);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  const int t = w->id, n = w->n, r = w->rank;
  const int R = (r + 1) % w->nprocs, L = (r + w->nprocs - 1) % w->nprocs;
  long long *tmp_s = malloc(4 * (size_t)n * sizeof *tmp_s);
  if (!tmp_s) die("out of memory");
  long long *tmp_r = tmp_s + n, *mp_s = tmp_s + 2 * n, *mp_r = tmp_s + 3 * n;
  MPI_Comm mine;
  WL(MPI_Comm_dup, w->own, &mine);
  MPI_Request pers[2];
  WL(MPI_Recv_init, w->pbuf_r, n, MPI_LONG_LONG, L, 7, mine, &pers[0]);
  WL(MPI_Send_init, w->pbuf_s, n, MPI_LONG_LONG, R, 7, mine, &pers[1]);
  worker *pred = &workers[(t + NTHREADS - 1) % NTHREADS];

  for (int i = 0; i < w->iters; i++) {
    /* 1. start requests for worker t+1 to complete */
    wait_until(&w->box, &w->box.completed, i - 1);
    for (int k = 0; k < n; k++) {
      w->sbuf[k] = value(r, t, i, k, 0);
      w->pbuf_s[k] = value(r, t, i, k, 7);
    }
    w->local = value(r, t, i, 0, 3);
    MPI_Request q[MAXREQ];
    int is_recv[MAXREQ] = {1, 0, 0, 1, 0, 0}, nq = 0;
    WL(MPI_Irecv, w->rbuf, n, MPI_LONG_LONG, L, t, w->shared, &q[nq++]);
    WL(MPI_Isend, w->sbuf, n, MPI_LONG_LONG, R, t, w->shared, &q[nq++]);
    WL(MPI_Iallreduce, &w->local, &w->global, 1, MPI_LONG_LONG, MPI_SUM, w->own, &q[nq++]);
    if (i % 2 == 0) {
      WL(MPI_Startall, 2, pers);
    } else {
      WL(MPI_Start, &pers[0]);
      WL(MPI_Start, &pers[1]);
    }
    q[nq++] = pers[0];
    q[nq++] = pers[1];
    if (t == 0) WL(MPI_Ibarrier, w->cshared, &q[nq++]);
    pthread_mutex_lock(&w->box.lock);
    w->box.n = nq;
    for (int k = 0; k < nq; k++) w->box.reqs[k] = q[k], w->box.is_recv[k] = is_recv[k];
    w->box.posted = i;
    pthread_cond_broadcast(&w->box.cond);
    pthread_mutex_unlock(&w->box.lock);

    /* 2. blocking calls and probes, on its own communicator and on shared */
    const int dst = t % 2 == 0 ? R : L, src = t % 2 == 0 ? L : R;
    for (int k = 0; k < n; k++) tmp_s[k] = value(r, t, i, k, 1);
    WL(MPI_Sendrecv, tmp_s, n, MPI_LONG_LONG, dst, 1000 + i, tmp_r, n, MPI_LONG_LONG, src, 1000 + i, w->own,
       MPI_STATUS_IGNORE);
    check_buffer(tmp_r, n, src, t, i, 1, "MPI_Sendrecv");
    w->own_sum += sum_of(tmp_r, n);

    MPI_Request sreq;
    MPI_Status st;
    for (int k = 0; k < n; k++) tmp_s[k] = value(r, t, i, k, 2);
    WL(MPI_Isend, tmp_s, n, MPI_LONG_LONG, R, 2000, w->own, &sreq);
    if (i % 2 == 0) {
      WL(MPI_Probe, L, 2000, w->own, &st);
    } else {
      int flag = 0;
      for (int k = 0; !flag; k++) {
        if (k == POLLS) {
          WL(MPI_Probe, L, 2000, w->own, &st);
          break;
        }
        WL(MPI_Iprobe, L, 2000, w->own, &flag, &st);
        if (!flag) sched_yield();
      }
    }
    if (st.MPI_SOURCE != L || st.MPI_TAG != 2000) die("a probe matched the wrong message");
    WL(MPI_Recv, tmp_r, n, MPI_LONG_LONG, L, 2000, w->own, MPI_STATUS_IGNORE);
    WL(MPI_Wait, &sreq, MPI_STATUS_IGNORE);
    check_buffer(tmp_r, n, L, t, i, 2, "MPI_Recv after a probe");
    w->own_sum += 2 * sum_of(tmp_r, n);

    for (int k = 0; k < n; k++) mp_s[k] = value(r, t, i, k, 4);
    WL(MPI_Isend, mp_s, n, MPI_LONG_LONG, R, 100 + t, w->shared, &sreq);
    if (w->smpi_subset) {
      WL(MPI_Probe, L, 100 + t, w->shared, &st);
      WL(MPI_Recv, mp_r, n, MPI_LONG_LONG, L, 100 + t, w->shared, MPI_STATUS_IGNORE);
    } else if (i % 2 == 0) {
      MPI_Message msg;
      WL(MPI_Mprobe, L, 100 + t, w->shared, &msg, &st);
      WL(MPI_Mrecv, mp_r, n, MPI_LONG_LONG, &msg, MPI_STATUS_IGNORE);
    } else {
      MPI_Message msg;
      MPI_Request mreq;
      int flag = 0;
      for (int k = 0; !flag; k++) {
        if (k == POLLS) {
          WL(MPI_Mprobe, L, 100 + t, w->shared, &msg, &st);
          break;
        }
        WL(MPI_Improbe, L, 100 + t, w->shared, &flag, &msg, &st);
        if (!flag) sched_yield();
      }
      WL(MPI_Imrecv, mp_r, n, MPI_LONG_LONG, &msg, &mreq);
      WL(MPI_Wait, &mreq, MPI_STATUS_IGNORE);
    }
    if (st.MPI_SOURCE != L || st.MPI_TAG != 100 + t) die("a matched probe matched the wrong message");
    WL(MPI_Wait, &sreq, MPI_STATUS_IGNORE);
    check_buffer(mp_r, n, L, t, i, 4, "a matched receive");
    w->own_sum += 3 * sum_of(mp_r, n);

    /* 3. complete worker t-1's requests of this iteration */
    complete(pred, i, (i + t) % NMETHODS, t);
  }
  wait_until(&w->box, &w->box.completed, w->iters - 1);
  WL(MPI_Request_free, &pers[0]);
  WL(MPI_Request_free, &pers[1]);
  WL(MPI_Comm_free, &mine);
  free(tmp_s);
  return NULL;
}

int main(int argc, char **argv) {
  wl_args args;
  int rank, nprocs;
  wl_start_multiple("mtstress", &argc, &argv, 12, 32, &args, &rank, &nprocs);
  if (rank == 0)
    printf("mtstress: %d ranks x %d threads, %d elements, %d iterations\n", nprocs, NTHREADS, args.size, args.iters);

  MPI_Comm shared, cshared;
  WL(MPI_Comm_dup, MPI_COMM_WORLD, &shared);
  WL(MPI_Comm_dup, MPI_COMM_WORLD, &cshared);
  pthread_t tid[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    worker *w = &workers[t];
    *w = (worker){.id = t, .rank = rank, .nprocs = nprocs, .iters = args.iters, .n = args.size,
                  .smpi_subset = args.smpi_subset, .shared = shared, .cshared = cshared};
    WL(MPI_Comm_dup, MPI_COMM_WORLD, &w->own);
    pthread_mutex_init(&w->box.lock, NULL);
    pthread_cond_init(&w->box.cond, NULL);
    w->box.posted = w->box.completed = -1;
    w->sbuf = malloc(4 * (size_t)args.size * sizeof *w->sbuf);
    if (!w->sbuf) die("out of memory");
    w->rbuf = w->sbuf + args.size;
    w->pbuf_s = w->sbuf + 2 * args.size;
    w->pbuf_r = w->sbuf + 3 * args.size;
  }
  for (int t = 0; t < NTHREADS; t++)
    if (pthread_create(&tid[t], NULL, worker_main, &workers[t]) != 0) die("pthread_create failed");
  for (int t = 0; t < NTHREADS; t++) pthread_join(tid[t], NULL);

  long long mine[2 * NTHREADS], all[2 * NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    mine[t] = workers[t].sum;
    mine[NTHREADS + t] = workers[t].own_sum;
    WL(MPI_Comm_free, &workers[t].own);
    pthread_mutex_destroy(&workers[t].box.lock);
    pthread_cond_destroy(&workers[t].box.cond);
    free(workers[t].sbuf);
  }
  WL(MPI_Comm_free, &shared);
  WL(MPI_Comm_free, &cshared);
  WL(MPI_Allreduce, mine, all, 2 * NTHREADS, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    long long checksum = 0;
    for (int t = 0; t < NTHREADS; t++) {
      printf("worker %d: completed by worker %d %lld, own %lld\n", t, (t + 1) % NTHREADS, all[t], all[NTHREADS + t]);
      checksum += all[t] + all[NTHREADS + t];
    }
    printf("checksum: %lld\n", checksum);
    fflush(stdout);
  }
  return wl_finalize(&args, rank);
}
