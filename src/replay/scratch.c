/* scratch.c — a replaying thread's per-call scratch memory (an arena,
 * reset after each call) and growing arrays, and the fatal stop (rp_die)
 * every module uses; see scratch.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

/* ------------------------------------------------------------ the fatal stop */

_Noreturn void rp_die(rp_thread *T, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, RP_PROGRAM ": %s: rank %d, event %llu (%s): %s\n", T->E->opt.trace, T->E->rank,
          (unsigned long long)T->index, T->fn < TF_FN_COUNT ? tf_schema[T->fn].name : "?", msg);
  fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
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
  rp_kept_free(T->kept); /* the call made no request that took it */
  T->kept = NULL;
}

typedef struct rp_kept_block {
  struct rp_kept_block *next;
  _Alignas(16) unsigned char data[];
} rp_kept_block;

void *rp_alloc_kept(rp_thread *T, size_t bytes) {
  rp_kept_block *b = calloc(1, sizeof *b + (bytes ? bytes : 1));
  if (!b) rp_die(T, "out of memory (%zu bytes of arguments)", bytes);
  b->next = T->kept;
  T->kept = b;
  return b->data;
}

void rp_kept_free(void *kept) {
  for (rp_kept_block *b = kept, *n; b; b = n) {
    n = b->next;
    free(b);
  }
}

void rp_arena_free(rp_thread *T) {
  rp_kept_free(T->kept);
  T->kept = NULL;
  while (T->arena) {
    rp_arena_chunk *n = T->arena->next;
    free(T->arena);
    T->arena = n;
  }
}

