/* addr2line.c — module-relative return addresses to function and
 * file:line through binutils' addr2line (addr2line.h). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr2line.h"

int tf_addr2line(const char *module, const uint64_t *offsets, uint32_t n, tf_where *out) {
  for (uint32_t i = 0; i < n; i++) {
    snprintf(out[i].func, sizeof out[i].func, "??");
    snprintf(out[i].line, sizeof out[i].line, "??:0");
  }
  if (!module || !*module || strchr(module, '\'')) return -1; /* not quoted safely for the shell */
  size_t len = strlen(module) + 64 + (size_t)n * 24;
  char *cmd = malloc(len);
  if (!cmd) return -1;
  size_t used = (size_t)snprintf(cmd, len, "addr2line -f -C -e '%s'", module);
  for (uint32_t i = 0; i < n; i++) /* the call, not the return */
    used += (size_t)snprintf(cmd + used, len - used, " 0x%" PRIx64, offsets[i] ? offsets[i] - 1 : 0);
  snprintf(cmd + used, len - used, " 2>/dev/null");
  FILE *p = popen(cmd, "r");
  free(cmd);
  if (!p) return -1;
  for (uint32_t i = 0; i < n && fgets(out[i].func, sizeof out[i].func, p) && fgets(out[i].line, sizeof out[i].line, p);
       i++) {
    out[i].func[strcspn(out[i].func, "\n")] = 0;
    out[i].line[strcspn(out[i].line, "\n")] = 0;
  }
  pclose(p);
  return 0;
}

int tf_where_short(const char *line, char *out, size_t len) {
  if (len) out[0] = 0;
  if (strncmp(line, "??", 2) == 0) return 0;
  const char *base = strrchr(line, '/');
  base = base ? base + 1 : line;
  size_t n = strcspn(base, " \n");
  if (n < 3 || (base[n - 2] == ':' && (base[n - 1] == '0' || base[n - 1] == '?'))) return 0;
  snprintf(out, len, "%.*s", (int)n, base);
  return 1;
}
