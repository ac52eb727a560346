/* outcome.c — make the replay see what the recording saw.
 *
 * Peers: a recorded peer is an offset from the caller's rank; a wildcard
 * source becomes the source the recording matched (the call's own status,
 * or for MPI_Irecv the status of the completion found ahead in the trace),
 * so that the replay is deterministic; --any-source keeps the wildcard.
 *
 * Completions: MPI_Test*, MPI_Wait{any,some}, MPI_Iprobe and MPI_Parrived
 * have outcomes that depend on timing. Before such a call the engine waits (through PMPI,
 * invisible to a recorder) until what the recording completed can complete,
 * so the call reports it. MPI_Waitany/Testany/Waitsome/Testsome that
 * reported requests are given an array in which every other entry is
 * MPI_REQUEST_NULL, so they report exactly the recorded ones (a recorder
 * of the replay sees those entries as null). Outcomes that cannot be forced
 * (a test or probe that found nothing) are reconciled after the call: a
 * request the recording completed but the call did not is completed through
 * PMPI, and one the call completed earlier than recorded is remembered as
 * done (its later uses pass MPI_REQUEST_NULL). The requests every later call
 * refers to are then the recorded ones.
 *
 * Matched probes: an MPI_Improbe poll that found nothing in the recording
 * may find the message now, and takes it off the queue: the message is
 * held (with the envelope an MPI_Iprobe just before saw) for the poll that
 * found it in the recording, which then takes it instead of waiting for a
 * message that will not come again. Its own MPI_Improbe still runs (and
 * finds nothing: a poll outcome, as timing-dependent as the others). An
 * MPI_Mprobe that found the held message in the recording is made on
 * MPI_PROC_NULL and takes it (a blocking probe cannot find nothing).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* ------------------------------------------------------------ wildcard sources */

static int64_t seen_take(rp_thread *T, int64_t req) {
  for (uint32_t k = 0; k < T->nseen; k++)
    if (T->seen[k].req == req) {
      int64_t s = T->seen[k].src;
      T->seen[k] = T->seen[--T->nseen];
      return s;
    }
  return TF_NONE;
}

static void seen_add(rp_thread *T, int64_t req, int64_t src) {
  T->seen = rp_grow(T, T->seen, T->nseen, &T->seen_cap, sizeof *T->seen);
  T->seen[T->nseen++] = (struct rp_seen){req, src};
}

/* Remember the matched source of every receive request a completion event
 * reports (statuses are aligned with the requests, or with the indices of
 * Waitsome/Testsome, or one status for the request at index). */
static void note_completion(rp_thread *T, uint32_t fn, const tf_field_value *f) {
  const rp_fninfo *x = &rp_info[fn];
  int req = x->request, reqs = x->requests, src = x->status_src, srcs = x->statuses_src;
  int index = x->index, indices = x->indices;
  if (req >= 0 && src >= 0) {
    if (f[src].v[0] > TF_SPECIAL_MAX) seen_add(T, f[req].v[0], f[src].v[0]);
  } else if (reqs >= 0 && src >= 0 && index >= 0) {
    int64_t i = f[index].v[0];
    if (i >= 0 && i < f[reqs].n && f[src].v[0] > TF_SPECIAL_MAX) seen_add(T, f[reqs].v[i], f[src].v[0]);
  } else if (reqs >= 0 && srcs >= 0) {
    for (uint32_t k = 0; k < f[srcs].n; k++) {
      int64_t i = indices >= 0 ? (k < f[indices].n ? f[indices].v[k] : -1) : (int64_t)k;
      if (i >= 0 && i < f[reqs].n && f[srcs].v[k] > TF_SPECIAL_MAX) seen_add(T, f[reqs].v[i], f[srcs].v[k]);
    }
  }
}

/* The source the recording matched for receive request `req`, looking
 * ahead in the trace to its completion; TF_NONE if none tells. */
static int64_t future_source(rp_thread *T, int64_t req) {
  int64_t s = seen_take(T, req);
  if (s != TF_NONE) return s;
  rp_engine *E = T->E;
  if (!T->peek) {
    char err[512];
    if (tf_rank_cursor_open(E->trace, E->rank, &T->peek, err, sizeof err) != TF_OK) rp_die(T, "%s", err);
    T->peek_index = 0;
  }
  tf_field_value f[RP_MAXFIELDS];
  tf_event ev;
  for (;;) {
    int rc = tf_rank_cursor_next(T->peek, &ev);
    if (rc < 0) rp_die(T, "%s", tf_rank_cursor_error(T->peek));
    if (rc == 0) return TF_NONE;
    if (T->peek_index++ <= T->index || ev.thread != T->thread) continue;
    uint32_t fn = ev.fn < E->info->nfuncs ? E->fnmap[ev.fn] : RP_FN_UNKNOWN;
    if (fn >= TF_FN_COUNT || tf_schema[fn].nfields == 0 || rp_layout(fn, &ev, f)) continue;
    note_completion(T, fn, f);
    if ((s = seen_take(T, req)) != TF_NONE) return s;
  }
}

int rp_peer(rp_thread *T, MPI_Comm comm, int i, int src, int req) {
  if (T->peer_null) return MPI_PROC_NULL; /* an MPI_Mprobe whose message is held (rp_outcome_before) */
  int64_t v = T->field[i].n ? T->field[i].v[0] : TF_NONE;
  if (v == TF_PROC_NULL) return MPI_PROC_NULL;
  if (v == TF_ROOT) return MPI_ROOT;
  if (v == TF_ANY_SOURCE) {
    if (T->E->opt.any_source) return MPI_ANY_SOURCE;
    v = TF_NONE;
    if (src >= 0 && T->field[src].n) v = T->field[src].v[0];
    else if (req >= 0 && T->field[req].n) v = future_source(T, T->field[req].v[0]);
    if (v <= TF_SPECIAL_MAX) return v == TF_PROC_NULL ? MPI_PROC_NULL : MPI_ANY_SOURCE; /* nothing tells */
  }
  if (v <= TF_SPECIAL_MAX) return 0;
  return (int)(rp_comm_rank(comm) + v);
}

/* ------------------------------------------------------------ one-sided exposure epochs */

int rp_win_test(rp_thread *T) {
  const int win = 0, recorded_flag = 1; /* MPI_Win_test's fields */
  MPI_Win w = rp_win(T, win);
  int flag = 0, rc = MPI_Win_test(w, &flag);
  T->last_return = rp_now();
  if (rc != MPI_SUCCESS) return rc;
  if (rp_int(T, recorded_flag) && !flag) return PMPI_Win_wait(w);
  if (!rp_int(T, recorded_flag) && flag) rp_win_set_over(T, win, 1);
  return MPI_SUCCESS;
}

int rp_win_epoch_skip(rp_thread *T) {
  if (T->fn != TF_FN_MPI_Win_test && T->fn != TF_FN_MPI_Win_wait) return 0;
  if (!rp_win_over(T, 0)) return 0;
  if (T->fn == TF_FN_MPI_Win_wait || rp_int(T, 1)) rp_win_set_over(T, 0, 0); /* where the recording saw it end */
  return 1;
}

/* ------------------------------------------------------------ completions */

typedef struct completion {
  int reqs;       /* field of the request(s) */
  int64_t n;      /* how many ids */
  uint8_t *done;  /* per id: the recording completed it */
} completion;

/* What the recording of the current call completed. */
static completion recorded(rp_thread *T) {
  uint32_t fn = T->fn;
  const rp_fninfo *x = &rp_info[fn];
  completion c = {-1, 0, NULL};
  int64_t F = x->flag >= 0 ? T->field[x->flag].v[0] : 1;
  c.reqs = x->request >= 0 ? x->request : x->requests;
  if (c.reqs < 0) return c;
  c.n = T->field[c.reqs].n;
  c.done = rp_alloc(T, (size_t)c.n + 1);
  if (fn == TF_FN_MPI_Request_get_status) return c; /* it never completes a request */
  if (x->index >= 0) {
    int64_t i = T->field[x->index].v[0];
    if (F == 1 && i >= 0 && i < c.n) c.done[i] = 1;
  } else if (x->indices >= 0) {
    const tf_field_value *ix = &T->field[x->indices];
    for (uint32_t k = 0; k < ix->n; k++)
      if (ix->v[k] >= 0 && ix->v[k] < c.n) c.done[ix->v[k]] = 1;
  } else if (F == 1) {
    memset(c.done, 1, (size_t)c.n);
  }
  return c;
}

#ifndef TF_SIMGRID
static MPI_Request live(rp_thread *T, int64_t id) {
  rp_lock(T->E);
  rp_obj *o = rp_req_obj(T->E, id);
  MPI_Request r = o ? o->h.req : MPI_REQUEST_NULL;
  rp_unlock(T->E);
  return r;
}
#endif

/* Wait until the call's request k (recorded id) can complete, leaving it
 * for the call to complete. */
static void wait_until_complete(rp_thread *T, int64_t id, MPI_Request *reqs, int64_t k) {
#ifdef TF_SIMGRID
  /* Simulated, a poll takes no time (smpi/test:0) and would spin forever:
   * wait for the request instead, and give the call MPI_REQUEST_NULL (an
   * inactive request if persistent): it completes at once, as recorded */
  if (!reqs) return;
  PMPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
  rp_lock(T->E);
  rp_obj *o = rp_req_obj(T->E, id);
  if (o && !o->persistent) o->done = 1, o->h.req = MPI_REQUEST_NULL, rp_req_completed(o);
  rp_unlock(T->E);
#else
  (void)reqs, (void)k;
  MPI_Request r = live(T, id);
  int flag = 0;
  while (r != MPI_REQUEST_NULL && PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
    sched_yield();
#endif
}

/* ------------------------------------------------------------ held messages */

/* Before an MPI_Improbe the recording saw fail: the envelope of the message
 * it may match now (what MPI_Iprobe sees first; the arguments if none, and
 * always when simulated). */
static void note_probe(rp_thread *T, MPI_Comm comm, int src, int tag) {
  T->probe = (struct rp_held){comm, src, tag, MPI_MESSAGE_NULL};
#ifndef TF_SIMGRID
  MPI_Status st;
  int flag = 0;
  if (PMPI_Iprobe(src, tag, comm, &flag, &st) == MPI_SUCCESS && flag)
    T->probe.src = st.MPI_SOURCE, T->probe.tag = st.MPI_TAG;
#endif
}

/* m joins the held messages, with the envelope of this poll. */
static void held_push(rp_thread *T, MPI_Message m) {
  T->held = rp_grow(T, T->held, T->nheld, &T->held_cap, sizeof *T->held);
  T->held[T->nheld] = T->probe;
  T->held[T->nheld++].msg = m;
}

/* The oldest held message a probe of (comm, src, tag) matches, or -1. */
static int held_find(rp_thread *T, MPI_Comm comm, int src, int tag) {
  for (uint32_t k = 0; k < T->nheld; k++) {
    const struct rp_held *h = &T->held[k];
    if (h->comm == comm && (src == MPI_ANY_SOURCE || h->src == MPI_ANY_SOURCE || h->src == src) &&
        (tag == MPI_ANY_TAG || h->tag == MPI_ANY_TAG || h->tag == tag))
      return (int)k;
  }
  return -1;
}

MPI_Message rp_msg_matched(rp_thread *T, int recorded, MPI_Message m) {
  int found = m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC;
  if (!recorded && found) { /* the recording's poll found nothing: hold it */
    held_push(T, m);
    return MPI_MESSAGE_NULL;
  }
  if (!recorded || T->take_held < 0) return m;
  MPI_Message taken = T->held[T->take_held].msg;
  memmove(&T->held[T->take_held], &T->held[T->take_held + 1], (T->nheld - (uint32_t)T->take_held - 1) * sizeof *T->held);
  T->nheld--;
  if (found) held_push(T, m); /* the poll found a later message too: it waits its turn */
  T->take_held = -1;
  return taken;
}

void rp_outcome_before(rp_thread *T, uint32_t fn, MPI_Request *reqs) {
  T->hidden = NULL;
  T->take_held = -1;
  const rp_fninfo *x = &rp_info[fn];
  if (fn == TF_FN_MPI_Iprobe || fn == TF_FN_MPI_Improbe) {
    MPI_Comm comm = rp_comm(T, x->comm);
    int src = rp_peer(T, comm, x->source, x->status_src, -1), tag = rp_tag(T, x->tag);
    if (T->field[x->flag].v[0] != 1) {
      if (fn == TF_FN_MPI_Improbe) note_probe(T, comm, src, tag);
      return;
    }
    if (fn == TF_FN_MPI_Improbe && (T->take_held = held_find(T, comm, src, tag)) >= 0) return;
    /* the recording found a message: wait for it, so that the probe does too */
    PMPI_Probe(src, tag, comm, MPI_STATUS_IGNORE);
    return;
  }
  if (fn == TF_FN_MPI_Parrived) { /* completes no request: the recording found the partition there, or not */
#if MPI_VERSION >= 4
    const int request = 0, partition = 1, recorded_flag = 2; /* MPI_Parrived's fields */
    MPI_Request r = rp_req(T, request);
    int flag = 0;
    if (rp_int(T, recorded_flag) == 1)
      while (r != MPI_REQUEST_NULL && PMPI_Parrived(r, rp_int(T, partition), &flag) == MPI_SUCCESS && !flag)
        sched_yield();
#endif
    return;
  }
  if (fn == TF_FN_MPI_Mprobe) {
    /* A failed MPI_Improbe poll before it may have taken its message (held):
     * the blocking probe would wait for a message that will not come again.
     * It is made on MPI_PROC_NULL (it returns at once) and takes the held
     * message: the replay goes on, and its own trace differs from the
     * recording in this event (source, status, message id), which is said
     * on stderr. */
    MPI_Comm comm = rp_comm(T, x->comm);
    int src = rp_peer(T, comm, x->source, x->status_src, -1), tag = rp_tag(T, x->tag);
    if ((T->take_held = held_find(T, comm, src, tag)) >= 0) {
      T->peer_null = 1;
      fprintf(stderr, RP_PROGRAM ": rank %d: the message of MPI_Mprobe (event %llu) was taken by an earlier "
              "MPI_Improbe the recording saw fail; made on MPI_PROC_NULL, it takes that message\n",
              T->E->rank, (unsigned long long)T->index);
    }
    return;
  }
  if (fn == TF_FN_MPI_Wait || fn == TF_FN_MPI_Waitall || fn == TF_FN_MPI_Probe)
    return; /* they block until done anyway */
  completion c = recorded(T);
  if (fn == TF_FN_MPI_Request_get_status && T->field[x->flag].v[0] == 1) memset(c.done, 1, (size_t)c.n);
  int reported = 0;
  for (int64_t k = 0; k < c.n; k++)
    if (c.done[k]) {
      wait_until_complete(T, T->field[c.reqs].v[k], reqs, k);
      reported = 1;
    }
  int any_or_some = fn == TF_FN_MPI_Waitany || fn == TF_FN_MPI_Testany || fn == TF_FN_MPI_Waitsome ||
                    fn == TF_FN_MPI_Testsome;
  if (reqs && any_or_some && reported) {
    uint8_t *hide = rp_alloc(T, (size_t)c.n + 1);
    for (int64_t k = 0; k < c.n; k++)
      if (!c.done[k]) {
        hide[k] = 1;
        reqs[k] = MPI_REQUEST_NULL;
      }
    T->hidden = hide;
  }
}

void rp_outcome_after(rp_thread *T, uint32_t fn, int rc, MPI_Request *live) {
  if (rc != MPI_SUCCESS || !live || fn == TF_FN_MPI_Parrived) return;
  completion c = recorded(T);
  if (c.reqs < 0) return;
  rp_lock(T->E);
  for (int64_t k = 0; k < c.n; k++) {
    int64_t id = T->field[c.reqs].v[k];
    rp_obj *o = id > TF_SPECIAL_MAX && !(T->hidden && T->hidden[k]) ? rp_req_obj(T->E, id) : NULL;
    if (!o) continue;
    MPI_Request r = live[k];
    if (c.done[k]) {
      if (r != MPI_REQUEST_NULL) { /* recorded as completed here, but the call did not */
        rp_unlock(T->E);
        PMPI_Wait(&r, MPI_STATUS_IGNORE);
        rp_lock(T->E);
        o = rp_req_obj(T->E, id);
      }
      if (o && o->persistent)
        o->h.req = r;
      else if (o)
        rp_req_drop(T->E, o); /* completed: the id is never used again */
    } else {
      o->h.req = r;
      if (r == MPI_REQUEST_NULL && !o->persistent) /* completed earlier than recorded */
        o->done = 1, rp_req_completed(o);
    }
  }
  rp_unlock(T->E);
  (void)fn;
}
