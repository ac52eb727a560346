/* config.c — read and validate TRACEFOLD_* variables.
 *
 * A misspelt or invalid setting must not produce a run that silently goes
 * untraced, so every variable starting with TRACEFOLD_ must be one we know,
 * with a value we accept; otherwise the run stops at MPI_Init (recorder.c).
 *
 *   TRACEFOLD_MODE    flat (per-rank reference trace) | off   [flat]
 *   TRACEFOLD_OUTPUT  trace path (flat: a directory)          [tracefold-<exe>-<P>p, never reused]
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *const known[] = {"TRACEFOLD_MODE", "TRACEFOLD_OUTPUT"};

int tf_config_read(tf_config *cfg, char *err, size_t errlen) {
  cfg->mode = TF_MODE_FLAT;
  cfg->output = NULL;
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "TRACEFOLD_", 10) != 0) continue;
    size_t n = strcspn(*e, "=");
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      if (strlen(known[k]) == n && strncmp(*e, known[k], n) == 0) ok = 1;
    if (!ok) {
      snprintf(err, errlen, "unknown variable %.*s (known: TRACEFOLD_MODE, TRACEFOLD_OUTPUT)", (int)n, *e);
      return -1;
    }
  }
  const char *mode = getenv("TRACEFOLD_MODE");
  if (mode) {
    if (strcmp(mode, "flat") == 0) {
      cfg->mode = TF_MODE_FLAT;
    } else if (strcmp(mode, "off") == 0) {
      cfg->mode = TF_MODE_OFF;
    } else {
      snprintf(err, errlen, "TRACEFOLD_MODE=\"%s\" is not valid; accepted: flat, off", mode);
      return -1;
    }
  }
  const char *out = getenv("TRACEFOLD_OUTPUT");
  if (out) {
    if (!*out) {
      snprintf(err, errlen, "TRACEFOLD_OUTPUT is empty; accepted: a path for the trace");
      return -1;
    }
    cfg->output = out;
  }
  return 0;
}
