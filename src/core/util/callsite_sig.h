/* callsite_sig.h — a call site's signature from its module and offset:
 * what the recorder computes (src/recorder/callsite.c) and what a merged
 * trace of version 6 leaves out of CALLSITES when it is this
 * (doc/FORMAT.md 3.3). */
#ifndef TF_CALLSITE_SIG_H
#define TF_CALLSITE_SIG_H

#include <stdint.h>
#include <string.h>

/* FNV-1a of the module's base name (after its last '/'), mixed with the
 * module-relative offset: equal on every rank of one binary. */
static inline uint64_t tf_callsite_sig(const char *module, uint64_t offset) {
  const char *s = strrchr(module, '/');
  uint64_t h = 0xcbf29ce484222325ULL;
  for (s = s ? s + 1 : module; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
  return h * 0x9E3779B97F4A7C15ULL ^ offset;
}

#endif
