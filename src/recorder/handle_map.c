/* handle_map.c — see handle_map.h. */
#include "handle_map.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

tf_obj *tf_map_find(tf_handle_map *m, uint64_t key) {
  if (!m->cap) return NULL;
  for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    tf_obj *o = &m->slots[i];
    if (!o->used) return NULL;
    if (o->key == key) return o;
  }
}

static int grow(tf_handle_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  tf_obj *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].used) continue;
    size_t j = slot_of(m->slots[i].key, cap);
    while (slots[j].used) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return 0;
}

/* a fresh record: all zero but its key (copied from a zero record: the
 * compiler's own zeroing of a compound literal is a rep stos, slow to start) */
static const tf_obj blank;
static tf_obj *fresh(tf_obj *o, uint64_t key) {
  *o = blank;
  o->key = key;
  o->used = 1;
  return o;
}

__attribute__((noinline)) static tf_obj *put_new_grown(tf_handle_map *m, uint64_t key) {
  if (grow(m)) return NULL;
  return tf_map_put_new(m, key);
}

tf_obj *tf_map_put_new(tf_handle_map *m, uint64_t key) {
  if ((m->live + 1) * 2 > m->cap) return put_new_grown(m, key);
  size_t i = slot_of(key, m->cap);
  while (m->slots[i].used) i = (i + 1) & (m->cap - 1);
  m->live++;
  return fresh(&m->slots[i], key);
}

tf_obj *tf_map_put(tf_handle_map *m, uint64_t key) {
  tf_obj *o = tf_map_find(m, key);
  return o ? fresh(o, key) : tf_map_put_new(m, key);
}

void tf_map_remove_at(tf_handle_map *m, tf_obj *o) {
  size_t mask = m->cap - 1, hole = (size_t)(o - m->slots);
  for (size_t j = (hole + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
    /* the entry at j may fill the hole if its home slot is not in (hole, j] */
    size_t home = slot_of(m->slots[j].key, m->cap);
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      m->slots[hole] = m->slots[j];
      hole = j;
    }
  }
  m->slots[hole].used = 0;
  m->live--;
}

void tf_map_remove(tf_handle_map *m, uint64_t key) {
  tf_obj *o = tf_map_find(m, key);
  if (o) tf_map_remove_at(m, o);
}

void tf_map_free(tf_handle_map *m) {
  free(m->slots);
  *m = (tf_handle_map){0};
}
