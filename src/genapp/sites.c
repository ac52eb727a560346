/* sites.c — call sites as C names: "site_stencil2d_c_61" from the
 * module's debug information (file and line, util/addr2line.h), else
 * "site_<module>_<offset>"; made unique by a suffix. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"
#include "util/addr2line.h"

/* "ring.c:61" in out (util/addr2line.h); 0 if unknown */
static int file_line(const tf_callsite *c, char *out, size_t len) {
  tf_where w;
  uint64_t offset = c->offset;
  return tf_addr2line(c->module, &offset, 1, &w) == 0 && tf_where_short(w.line, out, len);
}

static void c_name(const char *in, char *out, size_t len) {
  size_t k = 0;
  for (; *in && k + 1 < len; in++) out[k++] = isalnum((unsigned char)*in) ? *in : '_';
  out[k] = 0;
}

int tfg_sites_name(tfg_gen *g) {
  uint32_t ns = g->mt->ncallsites;
  g->site_names = calloc(ns + 1, sizeof *g->site_names);
  if (!g->site_names) return tfg_fail(g, "out of memory");
  for (uint32_t s = 0; s < ns; s++) {
    const tf_callsite *c = &g->mt->callsites[s];
    char where[1024], name[1100], unique[1200];
    if (!(g->opt->resolve_sites && file_line(c, where, sizeof where))) {
      const char *mod = c->module ? strrchr(c->module, '/') : NULL;
      mod = mod ? mod + 1 : c->module ? c->module : "unknown";
      snprintf(where, sizeof where, "%s_%" PRIx64, mod, c->offset);
    }
    c_name(where, name, sizeof name);
    snprintf(unique, sizeof unique, "site_%s", name);
    for (uint32_t k = 2, clash = 1; clash; k++) {
      clash = 0;
      for (uint32_t o = 0; o < s && !clash; o++) clash = strcmp(g->site_names[o], unique) == 0;
      if (clash) snprintf(unique, sizeof unique, "site_%s_%u", name, k);
    }
    if (!(g->site_names[s] = strdup(unique))) return tfg_fail(g, "out of memory");
  }
  return 0;
}
