/* scratch.h — a replaying thread's per-call scratch memory, and the fatal
 * stop that it and every other module of the engine use (scratch.c). The
 * lowest module: it uses no other. */
#ifndef TF_REPLAY_SCRATCH_H
#define TF_REPLAY_SCRATCH_H

#include "engine.h"

/* A fatal replay error: message on stderr naming the trace, rank and event, then MPI_Abort. */
_Noreturn void rp_die(rp_thread *T, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *rp_alloc(rp_thread *T, size_t bytes); /* per-call scratch (zeroed); stops the replay when memory is out */
void rp_arena_reset(rp_thread *T);          /* the call is over: its scratch is free again (and its kept
                                               memory no request took) */
/* Memory that must outlive the call: the array arguments (counts,
 * displacements, datatypes) of a nonblocking collective, which MPI may
 * read until the operation completes (Open MPI does: its completion
 * releases the datatypes of the arrays). Zeroed; listed in T->kept, which
 * the request the call makes takes over (rp_req_new) and frees when it
 * completes (rp_kept_free). */
void *rp_alloc_kept(rp_thread *T, size_t bytes);
void rp_kept_free(void *kept);
void rp_arena_free(rp_thread *T);
/* arr (n elements of elem bytes, room for *cap) with room for one more:
 * doubled when full; stops the replay when memory is out. */
void *rp_grow(rp_thread *T, void *arr, uint32_t n, uint32_t *cap, size_t elem);

#endif
