/* mem.h — allocation accounting shared by the folded structures of one rank
 * or trace: value sequences, folded and merged nodes, time summaries count
 * what they allocate here, and a failed allocation is latched, so that a
 * caller checks once at the end instead of after every step. */
#ifndef TF_MEM_H
#define TF_MEM_H

#include <stddef.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct tf_mem {
  size_t bytes; /* currently allocated by sequences and folder structures */
  int failed;   /* an allocation failed: the structure may be incomplete */
} tf_mem;

/* Give the heap's free pages back to the system: glibc keeps the blocks of
 * a freed structure of many small allocations resident, which a large
 * buffer growing meanwhile (a trace's encoding) cannot reuse. */
static inline void tf_mem_give_back(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

#endif
