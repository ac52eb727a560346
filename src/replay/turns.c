/* turns.c — threaded replay: persistent requests' events in their recorded
 * order; see turns.h. */
#include "turns.h"

#include <stdlib.h>

#include "fields.h"
#include "handles.h"
#include "scratch.h"
#include "sync.h"

/* Per thread: each persistent request of the rank, and the events naming
 * it the thread's cursor has passed (an open-addressing table: requests
 * are made once and never deleted from it, a rank makes few). */
typedef struct rp_turn_slot {
  int64_t id; /* 0: empty (request ids are positive) */
  uint32_t seen;
} rp_turn_slot;

struct rp_turns {
  rp_turn_slot *slots;
  size_t cap, used;
  struct rp_turn { int64_t id; uint32_t turn; } *mine; /* the thread's own event: its turns */
  uint32_t nmine, mine_cap;
};

static rp_turn_slot *slot_of(struct rp_turns *s, int64_t id) {
  if (!s->cap) return NULL;
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  for (size_t i = (h ^ (h >> 29)) & (s->cap - 1);; i = (i + 1) & (s->cap - 1))
    if (s->slots[i].id == id || s->slots[i].id == 0) return &s->slots[i];
}

static void add_request(rp_thread *T, struct rp_turns *s, int64_t id) {
  if (2 * (s->used + 1) > s->cap) {
    struct rp_turns grown = {.cap = s->cap ? 2 * s->cap : 64};
    grown.slots = calloc(grown.cap, sizeof *grown.slots);
    if (!grown.slots) rp_die(T, "out of memory (persistent requests)");
    for (size_t k = 0; k < s->cap; k++)
      if (s->slots[k].id) *slot_of(&grown, s->slots[k].id) = s->slots[k];
    free(s->slots);
    s->slots = grown.slots;
    s->cap = grown.cap;
  }
  rp_turn_slot *x = slot_of(s, id);
  if (x->id == 0) s->used++;
  *x = (rp_turn_slot){id, 0};
}

void rp_turns_walk(rp_thread *T, const tf_event *ev, int own) {
  rp_engine *E = T->E;
  if (!E->threaded || ev->fn >= E->info->nfuncs) return;
  uint32_t fn = E->fnmap[ev->fn];
  if (fn >= TF_FN_COUNT) return;
  if (!T->turns && !(T->turns = calloc(1, sizeof *T->turns))) rp_die(T, "out of memory (persistent requests)");
  struct rp_turns *s = T->turns;
  if (own) s->nmine = 0;
  if (!rp_info[fn].persistent && !s->used) return; /* no persistent request yet: nothing to count */
  tf_field_value f[RP_MAXFIELDS];
  if (rp_layout(fn, ev, f)) return; /* malformed: the thread's own event says so when it is replayed */
  const tf_func_desc *fd = &tf_schema[fn];
  for (uint32_t i = 0; i < fd->nfields; i++) {
    if (fd->fields[i].kind == TF_FIELD_REQ_NEW && rp_info[fn].persistent && f[i].n && f[i].v[0] > TF_SPECIAL_MAX)
      add_request(T, s, f[i].v[0]);
    if (fd->fields[i].kind != TF_FIELD_REQ) continue;
    for (uint32_t k = 0; k < f[i].n; k++) {
      rp_turn_slot *x = f[i].v[k] > TF_SPECIAL_MAX ? slot_of(s, f[i].v[k]) : NULL;
      if (!x || x->id == 0) continue; /* not a persistent request */
      if (own) {
        s->mine = rp_grow(T, s->mine, s->nmine, &s->mine_cap, sizeof *s->mine);
        s->mine[s->nmine++] = (struct rp_turn){x->id, x->seen};
      }
      x->seen++;
    }
  }
}

void rp_turns_wait(rp_thread *T) {
  for (uint32_t k = 0; T->turns && k < T->turns->nmine; k++)
    rp_req_await_turn(T, T->turns->mine[k].id, T->turns->mine[k].turn);
}

void rp_turns_done(rp_thread *T) {
  for (uint32_t k = 0; T->turns && k < T->turns->nmine; k++) rp_req_turn_done(T, T->turns->mine[k].id);
}

void rp_turns_free(rp_thread *T) {
  if (!T->turns) return;
  free(T->turns->slots);
  free(T->turns->mine);
  free(T->turns);
  T->turns = NULL;
}
