/* validate.c — a merged trace's rank projections checked by decoding them;
 * see validate.h. */
#include "merge/validate.h"

#include <stdlib.h>
#include <string.h>

#include "merge/rank_runs.h"
#include "util/file_io.h"
#include "util/hash.h"

/* The projections already checked: their segment bytes and event counts,
 * found again through a hash table of their indexes (open addressing; a
 * million distinct projections, the XOR partners of an extrapolated
 * butterfly, made a linear search quadratic). */
typedef struct checked_one {
  tf_buf seg;
  uint64_t nevents, hash;
} checked_one;
typedef struct checked {
  checked_one *at;
  uint32_t n, cap;
  uint32_t *slot; /* index + 1 into at; 0: empty */
  uint32_t nslots; /* a power of two, at least twice n */
} checked;

static uint64_t hash_of(const tf_buf *b, uint64_t nevents) { /* the bytes, 8 at a time, the count and the length */
  uint64_t h = tf_mix(0x7670, nevents), w;
  size_t i = 0;
  for (; i + 8 <= b->len; i += 8) {
    memcpy(&w, b->data + i, 8);
    h = tf_mix(h, w);
  }
  w = 0;
  if (i < b->len) memcpy(&w, b->data + i, b->len - i);
  return tf_mix(tf_mix(h, w), b->len);
}

static int same(const checked_one *c, const tf_buf *b, uint64_t nevents, uint64_t hash) {
  return c->hash == hash && c->nevents == nevents && c->seg.len == b->len &&
         (!b->len || !memcmp(c->seg.data, b->data, b->len));
}

static int checked_has(const checked *k, const tf_buf *b, uint64_t nevents, uint64_t hash) {
  if (!k->nslots) return 0;
  for (uint32_t i = (uint32_t)hash & (k->nslots - 1); k->slot[i]; i = (i + 1) & (k->nslots - 1))
    if (same(&k->at[k->slot[i] - 1], b, nevents, hash)) return 1;
  return 0;
}

static void slot_put(uint32_t *slot, uint32_t nslots, uint64_t hash, uint32_t index) {
  uint32_t i = (uint32_t)hash & (nslots - 1);
  while (slot[i]) i = (i + 1) & (nslots - 1);
  slot[i] = index + 1;
}

/* b moved in; 0 or -1 out of memory */
static int checked_add(checked *k, tf_buf *b, uint64_t nevents, uint64_t hash) {
  if (k->n == k->cap) {
    uint32_t cap = k->cap ? 2 * k->cap : 16;
    checked_one *at = realloc(k->at, cap * sizeof *at);
    if (!at) return -1;
    k->at = at;
    k->cap = cap;
  }
  if (2 * ((uint64_t)k->n + 1) > k->nslots) {
    uint32_t nslots = k->nslots ? 2 * k->nslots : 64;
    uint32_t *slot = calloc(nslots, sizeof *slot);
    if (!slot) return -1;
    for (uint32_t i = 0; i < k->n; i++) slot_put(slot, nslots, k->at[i].hash, i);
    free(k->slot);
    k->slot = slot;
    k->nslots = nslots;
  }
  slot_put(k->slot, k->nslots, hash, k->n);
  k->at[k->n++] = (checked_one){*b, nevents, hash};
  *b = (tf_buf){0};
  return 0;
}

tf_status tf_mtrace_validate(const tf_mtrace *mt, uint32_t most, uint32_t *nchecked, uint32_t *nruns_out, char *err,
                             size_t errlen) {
  tf_rank_run *runs;
  uint32_t nruns;
  if (tf_mtrace_rank_runs(mt, &runs, &nruns)) return tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
  uint32_t take = nruns <= most ? nruns : most < 2 ? 2 : most; /* runs checked: all, or spread evenly */
  if (take > nruns) take = nruns;
  checked seen = {0};
  tf_status st = TF_OK;
  for (uint32_t k = 0; st == TF_OK && k < take; k++) {
    uint32_t i = take == nruns ? k : (uint32_t)((uint64_t)k * (nruns - 1) / (take - 1)); /* first and last included */
    int32_t rank = runs[i].first;
    tf_buf b = {0};
    uint64_t nevents;
    tf_fnode **nodes;
    uint32_t n;
    tf_order order;
    tf_mem m = {0};
    const char *why = NULL;
    int rc = tf_mtrace_project_bytes(mt, rank, &b, &nevents, &why);
    uint64_t hash = rc ? 0 : hash_of(&b, nevents);
    if (!rc && checked_has(&seen, &b, nevents, hash)) {
      tf_buf_free(&b);
      continue;
    }
    if (!rc) rc = tf_mtrace_decode_projection(mt, &b, nevents, &nodes, &n, &order, &m, &why);
    if (rc) {
      st = tf_failf(err, errlen, why && strcmp(why, "out of memory") == 0 ? TF_ERR_NOMEM : TF_ERR_FORMAT,
                    "rank %d: malformed content: %s", (int)rank, why ? why : "?");
    } else {
      for (uint32_t j = 0; j < n; j++) tf_fnode_free(nodes[j], &m);
      tf_order_free(&order, &m);
      free(nodes);
      if (!b.failed && checked_add(&seen, &b, nevents, hash))
        st = tf_failf(err, errlen, TF_ERR_NOMEM, "out of memory");
    }
    tf_buf_free(&b);
  }
  for (uint32_t i = 0; i < seen.n; i++) tf_buf_free(&seen.at[i].seg);
  free(seen.at);
  free(seen.slot);
  free(runs);
  if (nchecked) *nchecked = take;
  if (nruns_out) *nruns_out = nruns;
  return st;
}

