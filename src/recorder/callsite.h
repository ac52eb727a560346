/* callsite.h — call-site signatures from return addresses. */
#ifndef TF_CALLSITE_H
#define TF_CALLSITE_H

#include <stdint.h>

typedef struct tf_site {
  uint64_t sig;
  char *module;
  uint64_t offset;
} tf_site;

/* Index of the call site of return address `ra` (dense, in order of first
 * use); *is_new set when first seen. Caller serialises. -1 on failure. */
int64_t tf_callsite_index(void *ra, int *is_new);
const tf_site *tf_callsite_get(uint32_t index);
void tf_callsites_free(void);

#endif
