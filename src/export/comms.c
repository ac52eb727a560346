/* comms.c — the members of each communicator of a trace; see comms.h. */
#include "comms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "grow.h"

typedef struct ref {
  int64_t id;
  int32_t inst;
  uint32_t idx;
} ref;

struct xp_comm_ref {
  ref *v;
  size_t n, cap;
};

typedef enum ckind { K_DUP, K_SPLIT, K_CART, K_SUB, K_OTHER } ckind;

/* one constructor call of one rank */
typedef struct ccall {
  int32_t rank;
  ckind kind;
  const char *name;
  int64_t parent, newid;
  uint32_t nth; /* the rank's nth constructor call on parent */
  int64_t color, key, reorder;
  uint32_t ndims; /* dims (cart_create) or remain_dims (cart_sub) */
  int64_t dims[16];
} ccall;

enum { S_COMM, S_COLOR, S_KEY, S_DIMS, S_REORDER, S_REMAIN, S_NEW, NSPECS };
static const xp_field_spec specs[NSPECS] = {{NULL, TF_FIELD_COMM}, {"color", 0},       {"key", 0},
                                            {"dims", 0},           {"reorder", 0},     {"remain_dims", 0},
                                            {NULL, TF_FIELD_COMM_NEW}};

static int add_ref(xp_comms *c, int32_t rank, int64_t id, int32_t inst, uint32_t idx) {
  struct xp_comm_ref *r = &c->refs[rank];
  for (size_t i = 0; i < r->n; i++)
    if (r->v[i].id == id) {
      r->v[i] = (ref){id, inst, idx};
      return 0;
    }
  ref *nv = xp_grow(r->v, r->n, &r->cap, sizeof *nv);
  if (!nv) return -1;
  r->v = nv;
  r->v[r->n++] = (ref){id, inst, idx};
  return 0;
}

int32_t xp_comms_of(const xp_comms *c, int32_t rank, int64_t id, uint32_t *idx) {
  if (rank < 0 || rank >= c->nranks || id <= TF_SPECIAL_MAX) return -1;
  const struct xp_comm_ref *r = &c->refs[rank];
  for (size_t i = r->n; i-- > 0;)
    if (r->v[i].id == id) {
      if (idx) *idx = r->v[i].idx;
      return r->v[i].inst;
    }
  return -1;
}

int32_t xp_comms_peer(const xp_comms *c, int32_t rank, int64_t id, int64_t off) {
  uint32_t idx;
  int32_t inst = xp_comms_of(c, rank, id, &idx);
  if (inst < 0 || off <= TF_SPECIAL_MAX) return -1;
  int64_t local = (int64_t)idx + off;
  if (local < 0 || local >= (int64_t)c->v[inst].n) return -1;
  return c->v[inst].members[local];
}

/* a new instance; its index, or -1 */
static int32_t new_inst(xp_comms *c, int64_t id, uint32_t n, const int32_t *members, int32_t parent, const char *by,
                        int exact) {
  xp_comm *nv = xp_grow(c->v, c->n, &c->cap, sizeof *nv);
  if (!nv) return -1;
  c->v = nv;
  xp_comm *m = &c->v[c->n];
  *m = (xp_comm){.id = id, .n = n, .parent = parent, .made_by = by, .exact = exact};
  m->members = malloc((n + 1) * sizeof *m->members);
  if (!m->members) return -1;
  memcpy(m->members, members, n * sizeof *members);
  if (!exact) c->inexact++;
  return (int32_t)c->n++;
}

/* ------------------------------------------------------------ the calls, found by (rank, parent, nth) */

typedef struct calls {
  ccall *v;
  size_t n, cap;
  size_t *slot; /* hash table of indices + 1 */
  size_t nslots;
} calls;

static size_t hkey(int32_t rank, int64_t parent, uint32_t nth) {
  uint64_t h = (uint64_t)(uint32_t)rank * 0x9E3779B97F4A7C15ull ^ (uint64_t)parent * 0xC2B2AE3D27D4EB4Full ^ nth;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return (size_t)(h ^ (h >> 32));
}

static int index_calls(calls *k) {
  k->nslots = 16;
  while (k->nslots < 2 * k->n) k->nslots *= 2;
  k->slot = calloc(k->nslots, sizeof *k->slot);
  if (!k->slot) return -1;
  for (size_t i = 0; i < k->n; i++) {
    size_t s = hkey(k->v[i].rank, k->v[i].parent, k->v[i].nth) & (k->nslots - 1);
    while (k->slot[s]) s = (s + 1) & (k->nslots - 1);
    k->slot[s] = i + 1;
  }
  return 0;
}

static const ccall *find_call(const calls *k, int32_t rank, int64_t parent, uint32_t nth) {
  size_t s = hkey(rank, parent, nth) & (k->nslots - 1);
  for (; k->slot[s]; s = (s + 1) & (k->nslots - 1)) {
    const ccall *x = &k->v[k->slot[s] - 1];
    if (x->rank == rank && x->parent == parent && x->nth == nth) return x;
  }
  return NULL;
}

static ckind kind_of(const char *name) {
  if (!strcmp(name, "MPI_Comm_dup") || !strcmp(name, "MPI_Comm_dup_with_info")) return K_DUP;
  if (!strcmp(name, "MPI_Comm_split")) return K_SPLIT;
  if (!strcmp(name, "MPI_Cart_create")) return K_CART;
  if (!strcmp(name, "MPI_Cart_sub")) return K_SUB;
  return K_OTHER;
}

/* Does the loop structure hold a call that makes a communicator? */
static int any_constructor(const tf_trace_info *info, const tf_node *const *nodes, uint32_t n, const int32_t *at) {
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    int made = ni.is_loop ? any_constructor(info, ni.body, ni.nbody, at)
                          : ni.fn < info->nfuncs && at[ni.fn * NSPECS + S_NEW] >= 0;
    if (made)
      return 1;
  }
  return 0;
}

/* Every rank's constructor calls, in order. 0, or -1 with err. */
static int collect(tf_trace *t, const xp_fieldmap *map, calls *k, char *err, size_t errlen) {
  const tf_trace_info *info = tf_trace_get_info(t);
  struct {
    int64_t parent;
    uint32_t n;
  } *per = NULL; /* the current rank's calls per parent */
  size_t nper = 0, capper = 0;
  int rc = 0;
  for (int32_t r = 0; rc == 0 && r < info->nranks; r++) {
    if (!tf_trace_rank(t, r, NULL, NULL)) continue;
    xp_events e;
    if (xp_events_open(&e, t, r, err, errlen) != TF_OK) {
      rc = -1;
      break;
    }
    nper = 0;
    int got;
    while ((got = xp_events_next(&e)) == 1) {
      if (!e.fits) continue;
      const int32_t *at = xp_fieldmap_row(map, e.ev.fn);
      if (at[S_NEW] < 0) continue;
      ccall x = {.rank = r, .kind = kind_of(e.fd->name), .name = e.fd->name};
      x.parent = xp_scalar(e.fields, at[S_COMM]);
      x.newid = xp_scalar(e.fields, at[S_NEW]);
      x.color = xp_scalar(e.fields, at[S_COLOR]);
      x.key = xp_scalar(e.fields, at[S_KEY]);
      x.reorder = xp_scalar(e.fields, at[S_REORDER]);
      uint32_t nd = 0;
      const int64_t *d = xp_array(e.fields, at[x.kind == K_SUB ? S_REMAIN : S_DIMS], &nd);
      x.ndims = nd <= 16 ? nd : 16;
      if (x.ndims) memcpy(x.dims, d, x.ndims * sizeof *d);
      size_t p = 0;
      while (p < nper && per[p].parent != x.parent) p++;
      if (p == nper) {
        void *nv = xp_grow(per, nper, &capper, sizeof *per);
        if (!nv) goto oom;
        per = nv;
        per[nper].parent = x.parent;
        per[nper++].n = 0;
      }
      x.nth = per[p].n++;
      ccall *nv = xp_grow(k->v, k->n, &k->cap, sizeof *nv);
      if (!nv) goto oom;
      k->v = nv;
      k->v[k->n++] = x;
    }
    if (got < 0) {
      snprintf(err, errlen, "%s", xp_events_error(&e));
      rc = -1;
    }
    xp_events_close(&e);
    continue;
  oom:
    xp_events_close(&e);
    snprintf(err, errlen, "out of memory");
    rc = -1;
  }
  free(per);
  return rc;
}

typedef struct member {
  int32_t world;
  uint32_t pidx;        /* index in the parent */
  int64_t group, order; /* the group it falls in, its order there */
  int64_t newid;
} member;

static int by_group(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->group != y->group) return x->group < y->group ? -1 : 1;
  if (x->order != y->order) return x->order < y->order ? -1 : 1;
  return x->pidx < y->pidx ? -1 : x->pidx > y->pidx;
}

/* The instances made by rank x->rank's call x (and the same call on every
 * other member of its parent): 0, or -1 when memory is short. */
static int resolve(xp_comms *c, const calls *k, const ccall *x) {
  uint32_t pidx;
  int32_t pinst = xp_comms_of(c, x->rank, x->parent, &pidx);
  ckind kind = x->kind;
  if (pinst < 0 || (kind == K_SUB && c->v[pinst].ndims != x->ndims)) kind = K_OTHER;
  member *m = NULL;
  int32_t *w = NULL;
  uint32_t nm = 0;
  int rc = 0;
  if (kind == K_OTHER) { /* the ranks that hold the id, in world order */
    m = malloc(((size_t)c->nranks + 1) * sizeof *m);
    if (!m) return -1;
    for (int32_t q = 0; q < c->nranks; q++) {
      int has = 0;
      for (size_t i = 0; i < k->n && !has; i++) has = k->v[i].rank == q && k->v[i].newid == x->newid;
      if (has) m[nm++] = (member){.world = q, .pidx = (uint32_t)q, .newid = x->newid};
    }
  } else {
    const xp_comm *P = &c->v[pinst];
    m = malloc(((size_t)P->n + 1) * sizeof *m);
    if (!m) return -1;
    int64_t prod = 1;
    for (uint32_t d = 0; d < x->ndims; d++) prod *= x->dims[d] > 0 ? x->dims[d] : 1;
    for (uint32_t i = 0; i < P->n; i++) {
      int32_t q = P->members[i];
      const ccall *y = q == x->rank ? x : find_call(k, q, x->parent, x->nth);
      if (!y || y->newid <= TF_SPECIAL_MAX) continue; /* not a member of any (color undefined, ...) */
      member mm = {.world = q, .pidx = i, .newid = y->newid};
      if (kind == K_SPLIT) {
        if (y->color == TF_UNDEFINED) continue;
        mm.group = y->color;
        mm.order = y->key;
      } else if (kind == K_CART) {
        if ((int64_t)i >= prod) continue;
      } else if (kind == K_SUB) { /* group: the coordinates in the dropped dimensions */
        uint32_t rest = i;
        int64_t g = 0;
        for (uint32_t d = P->ndims; d-- > 0;) {
          int64_t ext = P->dims[d] > 0 ? P->dims[d] : 1, coord = rest % ext;
          rest /= (uint32_t)ext;
          if (!x->dims[d]) g = g * 1000003 + coord;
        }
        mm.group = g;
      }
      m[nm++] = mm;
    }
    qsort(m, nm, sizeof *m, by_group);
  }
  w = malloc((nm + 1) * sizeof *w);
  if (!w) rc = -1;
  static const char *const names[] = {"MPI_Comm_dup", "MPI_Comm_split", "MPI_Cart_create", "MPI_Cart_sub"};
  for (uint32_t s = 0; rc == 0 && s < nm;) {
    uint32_t e = s + 1;
    while (e < nm && m[e].group == m[s].group) e++;
    for (uint32_t j = s; j < e; j++) w[j - s] = m[j].world;
    int exact = kind != K_OTHER && !(kind == K_CART && x->reorder != 0);
    int32_t inst = new_inst(c, x->newid, e - s, w, kind == K_OTHER ? -1 : pinst,
                            kind == K_OTHER ? x->name : names[kind], exact);
    if (inst < 0) rc = -1;
    if (rc == 0 && kind == K_CART) {
      c->v[inst].ndims = x->ndims;
      memcpy(c->v[inst].dims, x->dims, x->ndims * sizeof *x->dims);
    } else if (rc == 0 && kind == K_SUB) {
      const xp_comm *P = &c->v[pinst];
      for (uint32_t d = 0; d < P->ndims; d++)
        if (x->dims[d]) c->v[inst].dims[c->v[inst].ndims++] = P->dims[d];
    }
    for (uint32_t j = s; rc == 0 && j < e; j++)
      if (add_ref(c, m[j].world, m[j].newid, inst, j - s)) rc = -1;
    s = e;
  }
  free(m);
  free(w);
  return rc;
}

tf_status xp_comms_build(xp_comms *c, tf_trace *t, char *err, size_t errlen) {
  const tf_trace_info *info = tf_trace_get_info(t);
  *c = (xp_comms){.nranks = info->nranks};
  xp_fieldmap map = {0};
  calls k = {0};
  tf_status st = TF_OK;
  c->refs = calloc((size_t)info->nranks + 1, sizeof *c->refs);
  int32_t *all = malloc(((size_t)info->nranks + 1) * sizeof *all);
  if (!c->refs || !all || xp_fieldmap_init(&map, info, specs, NSPECS)) goto oom;
  for (int32_t r = 0; r < info->nranks; r++) all[r] = r;
  if (new_inst(c, 1, (uint32_t)info->nranks, all, -1, "MPI_COMM_WORLD", 1) < 0) goto oom;
  for (int32_t r = 0; r < info->nranks; r++)
    if (new_inst(c, 2, 1, &r, -1, "MPI_COMM_SELF", 1) < 0 || add_ref(c, r, 1, 0, (uint32_t)r) ||
        add_ref(c, r, 2, 1 + r, 0))
      goto oom;
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(t, &top);
  if (info->source == TF_SOURCE_FLAT || any_constructor(info, top, ntop, map.at)) {
    if (collect(t, &map, &k, err, errlen)) {
      st = strcmp(err, "out of memory") ? TF_ERR_FORMAT : TF_ERR_NOMEM;
      goto out;
    }
    if (index_calls(&k)) goto oom;
    for (size_t i = 0; i < k.n; i++)
      if (k.v[i].newid > TF_SPECIAL_MAX && xp_comms_of(c, k.v[i].rank, k.v[i].newid, NULL) < 0 &&
          resolve(c, &k, &k.v[i]))
        goto oom;
  }
  goto out;
oom:
  snprintf(err, errlen, "out of memory");
  st = TF_ERR_NOMEM;
out:
  free(all);
  free(k.v);
  free(k.slot);
  xp_fieldmap_free(&map);
  if (st != TF_OK) xp_comms_free(c);
  return st;
}

void xp_comms_free(xp_comms *c) {
  for (size_t i = 0; i < c->n; i++) free(c->v[i].members);
  for (int32_t r = 0; c->refs && r < c->nranks; r++) free(c->refs[r].v);
  free(c->refs);
  free(c->v);
  *c = (xp_comms){0};
}
