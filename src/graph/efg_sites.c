/* efg_sites.c — call sites as people read them: "file.c:61" and the
 * function around it, from the module's debug information (util/addr2line.h,
 * as `tracefold stats` and genapp's site names), one addr2line process per
 * module for all of its sites. Sites without debug information keep module+offset (efg_site_label). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"
#include "util/addr2line.h"

/* The sites of one module (the indices in sites[0..n)), resolved. 0, or -1 when memory is short. */
static int resolve_module(tf_efg *g, const char *module, const uint32_t *sites, uint32_t n) {
  uint64_t *offsets = calloc(n + 1, sizeof *offsets);
  tf_where *w = malloc((n + 1) * sizeof *w);
  if (!offsets || !w) {
    free(offsets);
    free(w);
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) offsets[i] = g->mt->callsites[sites[i]].offset;
  tf_addr2line(module, offsets, n, w); /* unresolved (no addr2line, no debug information): module+offset */
  for (uint32_t i = 0; i < n; i++) {
    char where[1024];
    if (tf_where_short(w[i].line, where, sizeof where)) g->where[sites[i]] = strdup(where);
    if (strcmp(w[i].func, "??") != 0) g->func[sites[i]] = strdup(w[i].func);
  }
  free(offsets);
  free(w);
  return 0;
}

int efg_resolve_sites(tf_efg *g) {
  uint32_t ns = g->mt->ncallsites;
  g->where = calloc(ns + 1, sizeof *g->where);
  g->func = calloc(ns + 1, sizeof *g->func);
  uint32_t *used = calloc(ns + 1, sizeof *used), *batch = malloc((ns + 1) * sizeof *batch);
  int rc = 0;
  if (!g->where || !g->func || !used || !batch) {
    rc = -1;
    goto out;
  }
  for (uint32_t i = 0; i < g->nnodes; i++)
    if (g->nodes[i].out != EFG_NONE) used[g->nodes[i].site] = 1;
  /* one batch per module, in the order modules first appear */
  for (uint32_t s = 0; s < ns && !rc; s++) {
    const char *mod = g->mt->callsites[s].module;
    if (used[s] != 1 || !mod || !*mod) continue;
    uint32_t n = 0;
    for (uint32_t k = s; k < ns; k++)
      if (used[k] == 1 && g->mt->callsites[k].module && strcmp(g->mt->callsites[k].module, mod) == 0) {
        batch[n++] = k;
        used[k] = 2;
      }
    rc = resolve_module(g, mod, batch, n);
  }
out:
  free(used);
  free(batch);
  return rc;
}
