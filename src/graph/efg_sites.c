/* efg_sites.c — call sites as people read them: "file.c:61" and the
 * function around it, from the module's debug information (addr2line, as
 * `tracefold stats` does), one addr2line process per module for all of its
 * sites. Sites without debug information keep module+offset (efg_site_label). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"

/* "/path/ring.c:61 (discriminator 2)" -> "ring.c:61"; NULL for "??:0", "??:?". */
static char *short_where(const char *line) {
  if (strncmp(line, "??", 2) == 0) return NULL;
  const char *base = strrchr(line, '/');
  base = base ? base + 1 : line;
  size_t n = strcspn(base, " \n");
  if (n < 3 || (base[n - 2] == ':' && (base[n - 1] == '0' || base[n - 1] == '?'))) return NULL;
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, base, n);
  s[n] = 0;
  return s;
}

/* The sites of one module (the indices in sites[0..n)), resolved. 0, or -1 when memory is short. */
static int resolve_module(tf_efg *g, const char *module, const uint32_t *sites, uint32_t n) {
  size_t len = strlen(module) + 64 + (size_t)n * 24;
  char *cmd = malloc(len);
  if (!cmd) return -1;
  size_t used = (size_t)snprintf(cmd, len, "addr2line -f -C -e '%s'", module);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t off = g->mt->callsites[sites[i]].offset;
    used += (size_t)snprintf(cmd + used, len - used, " 0x%" PRIx64, off ? off - 1 : 0); /* the call, not the return */
  }
  snprintf(cmd + used, len - used, " 2>/dev/null");
  FILE *p = popen(cmd, "r");
  free(cmd);
  if (!p) return 0; /* no addr2line: module+offset */
  char fn[1024], line[2048];
  for (uint32_t i = 0; i < n && fgets(fn, sizeof fn, p) && fgets(line, sizeof line, p); i++) {
    fn[strcspn(fn, "\n")] = 0;
    uint32_t s = sites[i];
    g->where[s] = short_where(line);
    if (strcmp(fn, "??") != 0) g->func[s] = strdup(fn);
  }
  pclose(p);
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
    if (strchr(mod, '\'')) continue; /* not quoted safely for the shell: module+offset */
    rc = resolve_module(g, mod, batch, n);
  }
out:
  free(used);
  free(batch);
  return rc;
}
