/* mem.h — allocation accounting shared by the folded structures of one rank
 * or trace: value sequences, folded and merged nodes, time summaries count
 * what they allocate here, and a failed allocation is latched, so that a
 * caller checks once at the end instead of after every step. */
#ifndef TF_MEM_H
#define TF_MEM_H

#include <stddef.h>

typedef struct tf_mem {
  size_t bytes; /* currently allocated by sequences and folder structures */
  int failed;   /* an allocation failed: the structure may be incomplete */
} tf_mem;

#endif
