/* persist.c — persistent requests that one thread starts and another
 * completes, in a threaded replay (doc/REPLAY.md, "Threads").
 *
 * A persistent request is started (MPI_Start, MPI_Startall), completed
 * (MPI_Wait, MPI_Test*, ...), started again. When the start and the
 * completion are on different threads, the program orders them itself (in
 * mtstress a mailbox: the starting thread waits until the other thread
 * says it completed the request); the replay's threads run independently,
 * so without an order a start meets a request still active (MPI refuses
 * it), or a wait meets a request not started yet (MPI_Wait returns at
 * once, and the start after it is never completed).
 * The replay keeps the recorded order of the events that name each
 * persistent request (its starts and its Wait/Test calls): the event that
 * is the k-th to name it (counted in the rank's recorded sequence from the
 * call that made it) runs after the k-1 before it have run. Every thread's
 * cursor passes all the rank's events, so each thread counts, for the
 * persistent requests made so far, the events naming them that it passes
 * (rp_persistent_pass); the live request counts those that have run
 * (rp_obj.turns). An event naming a request twice counts once. The
 * thread's own events are in program order already: the wait is only ever
 * for another thread. Cost: the fields of every start and completion event
 * of the rank are read by every thread, and a thread's table of the
 * persistent requests alive is searched linearly (programs hold a few).
 */
#include <stdlib.h>

#include "replay.h"

#define NO_TURN UINT32_MAX

static int is_start(uint32_t fn) { return fn == TF_FN_MPI_Start || fn == TF_FN_MPI_Startall; }

static int is_completion(uint32_t fn) {
  return fn == TF_FN_MPI_Wait || fn == TF_FN_MPI_Waitall || fn == TF_FN_MPI_Waitany || fn == TF_FN_MPI_Waitsome ||
         fn == TF_FN_MPI_Test || fn == TF_FN_MPI_Testall || fn == TF_FN_MPI_Testany || fn == TF_FN_MPI_Testsome;
}

/* The field of the request(s) an event of fn names (-1: none). */
static int request_field(uint32_t fn) { return rp_info[fn].request >= 0 ? rp_info[fn].request : rp_info[fn].requests; }

/* The thread's count of request id, or NULL if id is not a persistent request alive. */
static struct rp_turn *turn_of(rp_thread *T, int64_t id) {
  for (uint32_t k = 0; k < T->nturns; k++)
    if (T->turns[k].id == id) return &T->turns[k];
  return NULL;
}

static int named_before(const tf_field_value *f, uint32_t k) {
  for (uint32_t j = 0; j < k; j++)
    if (f->v[j] == f->v[k]) return 1;
  return 0;
}

void rp_persistent_pass(rp_thread *T, uint32_t fn, const tf_event *ev, int own) {
  int made = rp_info[fn].persistent, freed = fn == TF_FN_MPI_Request_free, names = is_start(fn) || is_completion(fn);
  if (!T->E->threaded || !(made || freed || names) || request_field(fn) < 0) return;
  tf_field_value fields[RP_MAXFIELDS];
  if (rp_layout(fn, ev, fields)) rp_die(T, "malformed event: %s's values do not fit its fields", tf_schema[fn].name);
  const tf_field_value *f = &fields[request_field(fn)];
  if (made) {
    T->turns = rp_grow(T, T->turns, T->nturns, &T->turns_cap, sizeof *T->turns);
    T->turns[T->nturns++] = (struct rp_turn){f->v[0], 0};
    return;
  }
  if (freed) {
    struct rp_turn *t = turn_of(T, f->v[0]);
    if (t) *t = T->turns[--T->nturns];
    return;
  }
  if (own) {
    if (f->n > T->need_cap) {
      uint32_t *need = realloc(T->need, f->n * sizeof *need);
      if (!need) rp_die(T, "out of memory (%u request turns)", f->n);
      T->need = need;
      T->need_cap = f->n;
    }
    T->nneed = f->n;
  }
  for (uint32_t k = 0; k < f->n; k++) {
    struct rp_turn *t = named_before(f, k) ? NULL : turn_of(T, f->v[k]);
    if (own) T->need[k] = t ? t->passed : NO_TURN;
    if (t) t->passed++;
  }
}

void rp_persistent_before(rp_thread *T) {
  if (!T->E->threaded || !(is_start(T->fn) || is_completion(T->fn))) return;
  const tf_field_value *f = &T->field[request_field(T->fn)];
  rp_lock(T->E);
  for (uint32_t k = 0; k < f->n && k < T->nneed; k++) {
    if (T->need[k] == NO_TURN) continue;
    rp_obj *o;
    while (!(o = rp_req_obj(T->E, f->v[k])) || o->turns < T->need[k])
      if (rp_sync_wait(T->E->objs, 60.0) != 0)
        rp_die(T, "persistent request %lld: the %u events naming it before this one did not run in a minute",
               (long long)f->v[k], T->need[k]);
  }
  rp_unlock(T->E);
}

void rp_persistent_after(rp_thread *T) {
  if (!T->E->threaded || !(is_start(T->fn) || is_completion(T->fn))) return;
  const tf_field_value *f = &T->field[request_field(T->fn)];
  rp_lock(T->E);
  for (uint32_t k = 0; k < f->n && k < T->nneed; k++) {
    rp_obj *o = T->need[k] == NO_TURN ? NULL : rp_req_obj(T->E, f->v[k]);
    if (o) o->turns++;
  }
  rp_sync_broadcast(T->E->objs);
  rp_unlock(T->E);
}
