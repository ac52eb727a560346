/* completions.c — the requests a completion call completed; see completions.h. */
#include "completions.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

static const struct {
  const char *name;
  xp_completion kind;
} calls[] = {
    {"MPI_Wait", XP_WAIT},       {"MPI_Test", XP_TEST},       {"MPI_Waitany", XP_WAITANY},
    {"MPI_Testany", XP_TESTANY}, {"MPI_Waitall", XP_WAITALL}, {"MPI_Testall", XP_TESTALL},
    {"MPI_Waitsome", XP_WAITSOME}, {"MPI_Testsome", XP_TESTSOME},
};

/* the fields read */
enum { REQ, REQS, FLAG, INDEX, INDICES, ST_SRC, ST_TAG, STS_SRC, STS_TAG, ST_BYTES, STS_BYTES, NSPECS };
static const xp_field_spec specs[NSPECS] = {
    {"request", 0},     {"array_of_requests", 0}, {"flag", 0},         {"index", 0},        {"array_of_indices", 0},
    {"status.src", 0},  {"status.tag", 0},        {"statuses.src", 0}, {"statuses.tag", 0}, {"status.bytes", 0},
    {"statuses.bytes", 0},
};

xp_completion xp_completion_of(const char *name) {
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (strcmp(name, calls[i].name) == 0) return calls[i].kind;
  return XP_NOT_A_COMPLETION;
}

int xp_completions_init(xp_completions *c, const tf_trace_info *info) {
  *c = (xp_completions){0};
  c->kind = malloc(info->nfuncs + 1);
  if (!c->kind || xp_fieldmap_init(&c->map, info, specs, NSPECS)) {
    xp_completions_free(c);
    return -1;
  }
  for (uint32_t fn = 0; fn < info->nfuncs; fn++) c->kind[fn] = (uint8_t)xp_completion_of(info->funcs[fn].name);
  return 0;
}

void xp_completions_free(xp_completions *c) {
  free(c->kind);
  xp_fieldmap_free(&c->map);
  *c = (xp_completions){0};
}

static int add(xp_done_list *l, xp_done d) {
  xp_done *v = xp_grow(l->v, l->n, &l->cap, sizeof *v);
  if (!v) return -1;
  l->v = v;
  l->v[l->n++] = d;
  return 0;
}

int xp_completed(const xp_completions *c, uint32_t fn, const tf_field_value *fields, xp_done_list *out) {
  out->n = 0;
  xp_completion kind = fn < c->map.nfuncs ? (xp_completion)c->kind[fn] : XP_NOT_A_COMPLETION;
  if (kind == XP_NOT_A_COMPLETION) return 0;
  const int32_t *at = xp_fieldmap_row(&c->map, fn);
  uint32_t nr, ns, nt, ni;
  const int64_t *reqs = xp_array(fields, at[REQS], &nr), *ssrc = xp_array(fields, at[STS_SRC], &ns);
  const int64_t *stag = xp_array(fields, at[STS_TAG], &nt), *idx = xp_array(fields, at[INDICES], &ni);
  uint32_t nb;
  const int64_t *sbytes = xp_array(fields, at[STS_BYTES], &nb);
  int64_t src = xp_scalar(fields, at[ST_SRC]), tag = xp_scalar(fields, at[ST_TAG]);
  int64_t bytes = xp_scalar(fields, at[ST_BYTES]);
  /* a test completes what it names only when its flag says so */
  int completes = kind == XP_WAIT || kind == XP_WAITANY || kind == XP_WAITALL || xp_scalar(fields, at[FLAG]) == 1;
  int64_t index = xp_scalar(fields, at[INDEX]);
  int rc = 0;
  switch (kind) {
  case XP_WAIT:
  case XP_TEST:
    if (completes) rc = add(out, (xp_done){xp_scalar(fields, at[REQ]), src, tag, bytes});
    break;
  case XP_WAITANY:
  case XP_TESTANY:
    if (completes && index >= 0 && index < (int64_t)nr) rc = add(out, (xp_done){reqs[index], src, tag, bytes});
    break;
  case XP_WAITALL:
  case XP_TESTALL:
    for (uint32_t k = 0; completes && k < nr && rc == 0; k++)
      rc = add(out, (xp_done){reqs[k], k < ns ? ssrc[k] : TF_NONE, k < nt ? stag[k] : TF_NONE,
                              k < nb ? sbytes[k] : TF_NONE});
    break;
  case XP_WAITSOME:
  case XP_TESTSOME: /* the outcome is the indices, whatever the call */
    for (uint32_t k = 0; k < ni && rc == 0; k++)
      if (idx[k] >= 0 && idx[k] < (int64_t)nr)
        rc = add(out, (xp_done){reqs[idx[k]], k < ns ? ssrc[k] : TF_NONE, k < nt ? stag[k] : TF_NONE,
                                k < nb ? sbytes[k] : TF_NONE});
    break;
  default: break;
  }
  return rc;
}

void xp_done_list_free(xp_done_list *l) {
  free(l->v);
  *l = (xp_done_list){0};
}
