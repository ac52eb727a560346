/* config.c — read and validate TRACEFOLD_* variables.
 *
 * A misspelt or invalid setting must not produce a run that silently goes
 * untraced, so every variable starting with TRACEFOLD_ must be one we know,
 * with a value we accept; otherwise the run stops at MPI_Init (recorder.c).
 *
 *   TRACEFOLD_MODE    compressed | flat | both | off           [compressed]
 *   TRACEFOLD_OUTPUT  trace directory                          [tracefold-<exe>-<P>p, never reused]
 *   TRACEFOLD_MEMORY  cap of one rank's folded trace: bytes, or
 *                     with a K, M or G suffix (powers of 1024)  [256M]
 *   TRACEFOLD_TIMING  none | stats | histogram | path          [path]
 *   TRACEFOLD_BINS    bins per histogram, 1..64                 [5]
 *   TRACEFOLD_VOLUME  off | on | cpu: compute bursts as instructions
 *                     (on; CPU time where counters are missing) or
 *                     CPU time (cpu) instead of wall time       [off]
 *   TRACEFOLD_CHECKPOINT  off, or the interval between two checkpoints
 *                     of each rank's folded trace: 500ms, 10s, 2m (no
 *                     unit: seconds), 10 ms to 24 h             [10s]
 *   TRACEFOLD_VERBOSE 0 | 1: 1 says where the trace went         [0]
 *   TRACEFOLD_FLATRUN off | on | a window of 64 to 16777216 events:
 *                     a stream on which folding stops paying, over a
 *                     window, is kept as a flat run (doc/FOLDING.md) [on: 4096]
 * The variables of the tracefold command (TRACEFOLD_MPIRUN,
 * TRACEFOLD_REPLAY, TRACEFOLD_SIM, TRACEFOLD_SMPIRUN) and
 * TRACEFOLD_CST_REPORT (read by cst_markers.c, doc/CST.md) are known and
 * ignored here.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "format/compressor.h"
#include "time/timing.h"
#include "volume.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *const known[] = {"TRACEFOLD_MODE",       "TRACEFOLD_OUTPUT", "TRACEFOLD_MEMORY",
                                    "TRACEFOLD_TIMING",     "TRACEFOLD_BINS",   "TRACEFOLD_VOLUME",
                                    "TRACEFOLD_CHECKPOINT", "TRACEFOLD_VERBOSE", "TRACEFOLD_FLATRUN",
                                    /* the tracefold command's, not the recorder's */
                                    "TRACEFOLD_MPIRUN",     "TRACEFOLD_REPLAY", "TRACEFOLD_SIM",
                                    "TRACEFOLD_SMPIRUN",    "TRACEFOLD_CST_REPORT",
                                    "TRACEFOLD_CST_GUIDE"};

/* The index of `value` in names[0..n), or -1. */
static int pick(const char *value, const char *const *names, int n) {
  for (int k = 0; k < n; k++)
    if (strcmp(value, names[k]) == 0) return k;
  return -1;
}

/* "500ms", "10s", "2m", "30" (seconds) -> ns; -1 if malformed. */
static int parse_interval(const char *s, uint64_t *ns) {
  if (!*s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno) return -1;
  double unit = 1e9;
  if (strcmp(end, "ms") == 0) unit = 1e6;
  else if (strcmp(end, "m") == 0) unit = 60e9;
  else if (*end && strcmp(end, "s") != 0) return -1;
  if (!(v * unit >= 0) || v * unit > 1e20) return -1;
  *ns = (uint64_t)(v * unit + 0.5);
  return 0;
}

/* "4096", "64K", "256M", "1G" -> bytes; -1 if malformed or out of range. */
static int parse_size(const char *s, size_t *out) {
  if (!*s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift) end++;
  if (*end || v > (SIZE_MAX >> shift)) return -1;
  *out = (size_t)v << shift;
  return 0;
}

int tf_config_read(tf_config *cfg, char *err, size_t errlen) {
  cfg->mode = TF_MODE_COMPRESSED;
  cfg->output = NULL;
  cfg->memory = TF_DEFAULT_MEMORY;
  cfg->timing = TF_TIMING_DEFAULT;
  cfg->bins = TF_BINS_DEFAULT;
  cfg->volume = TF_VOLUME_OFF;
  cfg->checkpoint_ns = TF_DEFAULT_CHECKPOINT_NS;
  cfg->verbose = 0;
  cfg->flat_window = TF_FLAT_WINDOW_DEFAULT;
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "TRACEFOLD_", 10) != 0) continue;
    size_t n = strcspn(*e, "=");
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      if (strlen(known[k]) == n && strncmp(*e, known[k], n) == 0) ok = 1;
    if (!ok) {
      snprintf(err, errlen,
               "unknown variable %.*s (known: TRACEFOLD_MODE, TRACEFOLD_OUTPUT, TRACEFOLD_MEMORY, TRACEFOLD_TIMING, "
               "TRACEFOLD_BINS, TRACEFOLD_VOLUME, TRACEFOLD_CHECKPOINT, TRACEFOLD_VERBOSE, TRACEFOLD_FLATRUN)",
               (int)n, *e);
      return -1;
    }
  }
  const char *mode = getenv("TRACEFOLD_MODE");
  if (mode) {
    static const struct {
      const char *name;
      tf_mode mode;
    } modes[] = {{"compressed", TF_MODE_COMPRESSED}, {"flat", TF_MODE_FLAT}, {"both", TF_MODE_BOTH}, {"off", TF_MODE_OFF}};
    size_t k = 0;
    while (k < sizeof modes / sizeof modes[0] && strcmp(mode, modes[k].name) != 0) k++;
    if (k == sizeof modes / sizeof modes[0]) {
      snprintf(err, errlen, "TRACEFOLD_MODE=\"%s\" is not valid; accepted: compressed, flat, both, off", mode);
      return -1;
    }
    cfg->mode = modes[k].mode;
  }
  const char *mem = getenv("TRACEFOLD_MEMORY");
  if (mem && (parse_size(mem, &cfg->memory) || cfg->memory < 4096)) {
    snprintf(err, errlen, "TRACEFOLD_MEMORY=\"%s\" is not valid; accepted: a size of at least 4096 bytes, "
                          "optionally with a K, M or G suffix (e.g. 64M)", mem);
    return -1;
  }
  const char *timing = getenv("TRACEFOLD_TIMING");
  if (timing) { /* names in tf_timing_mode order */
    static const char *const names[] = {"none", "stats", "histogram", "path"};
    int k = pick(timing, names, 4);
    if (k < 0) {
      snprintf(err, errlen, "TRACEFOLD_TIMING=\"%s\" is not valid; accepted: none, stats, histogram, path", timing);
      return -1;
    }
    cfg->timing = (uint32_t)k;
  }
  const char *bins = getenv("TRACEFOLD_BINS");
  if (bins) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(bins, &end, 10);
    if (!*bins || *bins < '0' || *bins > '9' || *end || errno || v < 1 || v > TF_BINS_MAX) {
      snprintf(err, errlen, "TRACEFOLD_BINS=\"%s\" is not valid; accepted: a number of bins from 1 to %d", bins,
               TF_BINS_MAX);
      return -1;
    }
    cfg->bins = (uint32_t)v;
  }
  const char *volume = getenv("TRACEFOLD_VOLUME");
  if (volume) { /* names in tf_volume_request order */
    static const char *const names[] = {"off", "on", "cpu"};
    int k = pick(volume, names, 3);
    if (k < 0) {
      snprintf(err, errlen, "TRACEFOLD_VOLUME=\"%s\" is not valid; accepted: off, on (instructions, or CPU time "
                            "where hardware counters are missing), cpu (CPU time)", volume);
      return -1;
    }
    cfg->volume = (uint32_t)k;
  }
  const char *ckpt = getenv("TRACEFOLD_CHECKPOINT");
  if (ckpt) {
    if (strcmp(ckpt, "off") == 0) {
      cfg->checkpoint_ns = 0;
    } else if (parse_interval(ckpt, &cfg->checkpoint_ns) || cfg->checkpoint_ns < 10000000ull ||
               cfg->checkpoint_ns > 86400000000000ull) {
      snprintf(err, errlen, "TRACEFOLD_CHECKPOINT=\"%s\" is not valid; accepted: off, or an interval from 10ms to "
                            "24 hours such as 500ms, 10s, 2m (no unit: seconds)", ckpt);
      return -1;
    }
  }
  const char *verbose = getenv("TRACEFOLD_VERBOSE");
  if (verbose) {
    if (strcmp(verbose, "0") != 0 && strcmp(verbose, "1") != 0) {
      snprintf(err, errlen, "TRACEFOLD_VERBOSE=\"%s\" is not valid; accepted: 0, 1", verbose);
      return -1;
    }
    cfg->verbose = verbose[0] == '1';
  }
  const char *flatrun = getenv("TRACEFOLD_FLATRUN");
  if (flatrun) {
    size_t w = 0;
    if (strcmp(flatrun, "off") == 0) {
      cfg->flat_window = 0;
    } else if (strcmp(flatrun, "on") == 0) {
      cfg->flat_window = TF_FLAT_WINDOW_DEFAULT;
    } else if (parse_size(flatrun, &w) || w < TF_FLAT_WINDOW_MIN || w > TF_FLAT_WINDOW_MAX) {
      snprintf(err, errlen, "TRACEFOLD_FLATRUN=\"%s\" is not valid; accepted: off, on, or a window of %u to %u events",
               flatrun, TF_FLAT_WINDOW_MIN, TF_FLAT_WINDOW_MAX);
      return -1;
    } else {
      cfg->flat_window = (uint32_t)w;
    }
  }
  const char *guide = getenv("TRACEFOLD_CST_GUIDE"); /* read by cst_markers.c, checked here */
  if (guide && strcmp(guide, "0") != 0 && strcmp(guide, "1") != 0) {
    snprintf(err, errlen, "TRACEFOLD_CST_GUIDE=\"%s\" is not valid; accepted: 0, 1", guide);
    return -1;
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
