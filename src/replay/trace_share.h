/* trace_share.h — the engine's trace, opened once per process: under
 * SimGrid every simulated rank is an actor of one process (trace_share.c). */
#ifndef TF_REPLAY_TRACE_SHARE_H
#define TF_REPLAY_TRACE_SHARE_H

#include "tracefold.h"

/* As tf_trace_open; under TF_SIMGRID a second call with the same path and
 * flags returns the trace the first opened (read-only from then on). */
tf_status rp_trace_open(const char *path, unsigned flags, tf_trace **out, char *err, size_t errlen);
/* As tf_trace_close; the shared trace is closed by its last user. */
void rp_trace_close(tf_trace *t);

#endif
