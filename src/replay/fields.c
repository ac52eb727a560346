/* fields.c — the replayed event's fields (its parameter vector laid out
 * by the function's field list), per-call scratch memory, and the payload
 * buffers the calls send from and receive into (contents arbitrary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* ------------------------------------------------------------ fields */

rp_fninfo rp_info[TF_FN_COUNT];

void rp_fninfo_init(void) {
  for (uint32_t fn = 0; fn < TF_FN_COUNT; fn++) {
    const tf_func_desc *d = &tf_schema[fn];
    rp_fninfo *x = &rp_info[fn];
    for (uint32_t i = 0; i < d->nfields && i < RP_MAXFIELDS; i++) {
      const tf_field_desc *fd = &d->fields[i];
      x->role[i] = fd->kind == TF_FIELD_COUNT ? RP_ROLE_COUNT
                   : fd->kind == TF_FIELD_INT && (strstr(fd->name, "count") || strstr(fd->name, "size")) ? RP_ROLE_COUNT
                   : fd->kind == TF_FIELD_INT && strstr(fd->name, "displ") ? RP_ROLE_DISPL
                   : fd->kind == TF_FIELD_DTYPE ? RP_ROLE_DTYPE
                   : fd->kind == TF_FIELD_BYTES ? RP_ROLE_BYTES
                                                : RP_ROLE_NONE;
    }
    x->flag = (int8_t)rp_field_index(fn, "flag");
    x->index = (int8_t)rp_field_index(fn, "index");
    x->indices = (int8_t)rp_field_index(fn, "array_of_indices");
    x->request = (int8_t)rp_field_index(fn, "request");
    x->requests = (int8_t)rp_field_index(fn, "array_of_requests");
    x->status_src = (int8_t)rp_field_index(fn, "status.src");
    x->statuses_src = (int8_t)rp_field_index(fn, "statuses.src");
    x->comm = (int8_t)rp_field_index(fn, "comm");
    x->source = (int8_t)rp_field_index(fn, "source");
    x->tag = (int8_t)rp_field_index(fn, "tag");
    size_t len = strlen(d->name);
    x->persistent = len > 5 && strcmp(d->name + len - 5, "_init") == 0;
    x->frees = len > 5 && strcmp(d->name + len - 5, "_free") == 0;
  }
}

int rp_layout(uint32_t fn, const tf_event *ev, const int64_t **f, uint32_t *fl) {
  const tf_func_desc *d = &tf_schema[fn];
  const int64_t *v = ev->vals, *end = ev->vals + ev->nvals;
  if (d->nfields > RP_MAXFIELDS) return -1;
  for (uint32_t i = 0; i < d->nfields; i++) {
    if (d->fields[i].is_array) {
      if (v >= end || *v < 0 || *v > end - v - 1) return -1;
      fl[i] = (uint32_t)*v;
      f[i] = v + 1;
      v += 1 + *v;
    } else {
      if (v >= end) return -1;
      fl[i] = 1;
      f[i] = v++;
    }
  }
  return v == end ? 0 : -1;
}

int rp_field_index(uint32_t fn, const char *name) {
  const tf_func_desc *d = &tf_schema[fn];
  for (uint32_t i = 0; i < d->nfields; i++)
    if (strcmp(d->fields[i].name, name) == 0) return (int)i;
  return -1;
}

int rp_fields(rp_thread *T) {
  const tf_func_desc *d = &tf_schema[T->fn];
  T->nf = d->nfields;
  if (rp_layout(T->fn, &T->ev, T->f, T->fl) == 0) return 0;
  snprintf(T->error, sizeof T->error, "%s: its %u values do not fit the function's %u fields", d->name, T->ev.nvals,
           d->nfields);
  return -1;
}

static int64_t scalar(const rp_thread *T, int i) { return T->fl[i] ? T->f[i][0] : TF_NONE; }

int64_t rp_int64(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  if (v == TF_UNDEFINED) return MPI_UNDEFINED;
  if (v <= TF_SPECIAL_MAX) return 0;
  return v;
}
int rp_int(const rp_thread *T, int i) { return (int)rp_int64(T, i); }
int rp_tag(const rp_thread *T, int i) { return scalar(T, i) == TF_ANY_TAG ? MPI_ANY_TAG : rp_int(T, i); }
int rp_root(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  return v == TF_ROOT ? MPI_ROOT : v == TF_PROC_NULL ? MPI_PROC_NULL : rp_int(T, i);
}

int rp_max_int(const rp_thread *T) {
  int64_t m = 16;
  for (uint32_t i = 0; i < T->nf; i++)
    if (!tf_schema[T->fn].fields[i].is_array && T->f[i][0] > m && T->f[i][0] < (1 << 24)) m = T->f[i][0];
  return (int)m;
}

int *rp_ints(rp_thread *T, int i) {
  int *a = rp_alloc(T, (T->fl[i] + 1) * sizeof *a);
  for (uint32_t k = 0; k < T->fl[i]; k++) a[k] = T->f[i][k] == TF_UNDEFINED ? MPI_UNDEFINED : (int)T->f[i][k];
  return a;
}

MPI_Aint *rp_aints(rp_thread *T, int i) {
  MPI_Aint *a = rp_alloc(T, (T->fl[i] + 1) * sizeof *a);
  for (uint32_t k = 0; k < T->fl[i]; k++) a[k] = (MPI_Aint)T->f[i][k];
  return a;
}

int *rp_scratch_ints(rp_thread *T, int n) { return rp_alloc(T, (size_t)(n > 0 ? n : 1) * sizeof(int)); }

uint64_t rp_event_bytes(const rp_thread *T) {
  uint64_t sum = 0;
  const uint8_t *role = rp_info[T->fn].role;
  for (uint32_t i = 0; i < T->nf; i++)
    if (role[i] == RP_ROLE_BYTES && T->fl[i] && T->f[i][0] > 0) sum += (uint64_t)T->f[i][0];
  return sum;
}

/* ------------------------------------------------------------ scratch */

struct rp_arena_chunk {
  rp_arena_chunk *next;
  size_t cap, used;
  _Alignas(16) unsigned char data[];
};

void *rp_alloc(rp_thread *T, size_t bytes) {
  bytes = (bytes + 15) & ~(size_t)15;
  rp_arena_chunk *c = T->arena;
  while (c && c->cap - c->used < bytes) c = c->next;
  if (!c) {
    size_t cap = bytes > 65536 ? bytes : 65536;
    c = malloc(sizeof *c + cap);
    if (!c) rp_die(T, "out of memory (%zu bytes of scratch)", bytes);
    c->cap = cap;
    c->used = 0;
    c->next = T->arena;
    T->arena = c;
  }
  void *p = c->data + c->used;
  c->used += bytes;
  memset(p, 0, bytes);
  return p;
}

void *rp_grow(rp_thread *T, void *arr, uint32_t n, uint32_t *cap, size_t elem) {
  if (n < *cap) return arr;
  uint32_t ncap = *cap ? 2 * *cap : 16;
  void *na = realloc(arr, (size_t)ncap * elem);
  if (!na) rp_die(T, "out of memory (%zu bytes)", (size_t)ncap * elem);
  *cap = ncap;
  return na;
}

void rp_arena_reset(rp_thread *T) {
  for (rp_arena_chunk *c = T->arena; c; c = c->next) c->used = 0;
}

void rp_arena_free(rp_thread *T) {
  while (T->arena) {
    rp_arena_chunk *n = T->arena->next;
    free(T->arena);
    T->arena = n;
  }
}

/* ------------------------------------------------------------ payload buffers */

size_t rp_payload_need(rp_thread *T) {
  const uint8_t *role = rp_info[T->fn].role;
  int64_t count = 0, displ = 0;
  MPI_Aint ext = 1;
  for (uint32_t i = 0; i < T->nf; i++) {
    if (role[i] == RP_ROLE_NONE || role[i] == RP_ROLE_BYTES) continue;
    for (uint32_t k = 0; k < T->fl[i]; k++) {
      int64_t v = T->f[i][k];
      if (v <= TF_SPECIAL_MAX) continue;
      if (role[i] == RP_ROLE_COUNT) {
        if (v > count) count = v;
      } else if (role[i] == RP_ROLE_DISPL) {
        if (v > displ) displ = v;
      } else {
        MPI_Aint e = rp_dtype_extent(T, v);
        if (e > ext) ext = e;
      }
    }
  }
  /* (largest displacement + largest count) x largest extent covers every
   * (count, datatype, displacement) of the call, whatever unit the
   * displacements are in (elements, or bytes for the w forms) */
  return (size_t)((displ + count) * ext) + 64;
}

static void *grow(rp_thread *T, void **buf, size_t *cap) {
  if (*cap >= T->need && *buf) return *buf;
  size_t ncap = *cap ? *cap : 4096;
  while (ncap < T->need) ncap *= 2;
  void *nb = calloc(1, ncap);
  if (!nb) rp_die(T, "out of memory (a payload buffer of %zu bytes)", ncap);
  if (*buf) { /* a pending nonblocking call may still use the old one */
    void **nr = realloc(T->retired, (T->nretired + 1) * sizeof *nr);
    if (!nr) rp_die(T, "out of memory");
    T->retired = nr;
    T->retired[T->nretired++] = *buf;
  }
  *buf = nb;
  *cap = ncap;
  return nb;
}

void *rp_sbuf(rp_thread *T) { return grow(T, &T->sbuf, &T->scap); }
void *rp_rbuf(rp_thread *T) { return grow(T, &T->rbuf, &T->rcap); }

void rp_buffers_free(rp_thread *T) {
  for (size_t i = 0; i < T->nretired; i++) free(T->retired[i]);
  free(T->retired);
  free(T->sbuf);
  free(T->rbuf);
  T->retired = NULL;
  T->sbuf = T->rbuf = NULL;
  T->nretired = 0;
}

int rp_event_local(const rp_thread *T) {
  const tf_func_desc *d = &tf_schema[T->fn];
  int comm = 0, peers = 0;
  for (uint32_t i = 0; i < d->nfields; i++) {
    switch (d->fields[i].kind) {
    case TF_FIELD_REQ: /* completes or starts communication */
    case TF_FIELD_MSG:
    case TF_FIELD_ROOT: /* collectives */
      return 0;
    case TF_FIELD_COMM: comm = 1; break;
    case TF_FIELD_PEER:
      for (uint32_t k = 0; k < T->fl[i]; k++)
        if (T->f[i][k] != TF_PROC_NULL) return 0;
      peers++;
      break;
    default: break;
    }
  }
  return !comm || peers > 0;
}
