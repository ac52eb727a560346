/* cst_markers.h — the CST loop markers a thread has received since its
 * last MPI call, handed to the compressor before that thread's next event
 * (CST-guided folding, doc/CST.md). */
#ifndef TF_CST_MARKERS_H
#define TF_CST_MARKERS_H

#include <stdint.h>

#include "format/compressor.h"

/* markers buffered by this thread (cst_markers.c) */
extern _Thread_local uint32_t tf_cst_nbuffered;
void tf_cst_markers_hand_over(tf_compressor *c, uint32_t thread);
/* 1 when the program was built by tracefold-cc (tf_cst_program ran) and
 * TRACEFOLD_CST_GUIDE is not 0: its threads fold guided from their first event. */
int tf_cst_guided_program(void);

/* Under the recorder's lock, before the calling thread's event goes to c:
 * its buffered markers first (nothing to do in a program without them). */
static inline void tf_cst_markers_deliver(tf_compressor *c, uint32_t thread) {
  if (tf_cst_nbuffered) tf_cst_markers_hand_over(c, thread);
}

#endif
