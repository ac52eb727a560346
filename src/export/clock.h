/* clock.h — when each event of a rank happened, regenerated from the
 * trace's delta times: on each thread a call starts its compute delta
 * after the previous call of that thread ended and lasts its duration
 * (exact for flat input; else the mean of the summary the rank cursor
 * gives for the occurrence, tf_rank_cursor_times: the event's path in path
 * mode, doc/TIMING.md). Ranks start their
 * clocks apart: every rank's is shifted so that MPI_Init (its first event)
 * ends at the same time on all ranks, as it roughly does in a real run.
 * Compute deltas in instructions (TRACEFOLD_VOLUME=on) count as 1 ns each.
 */
#ifndef TF_EXPORT_CLOCK_H
#define TF_EXPORT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

typedef struct xp_clock {
  uint64_t *offset;  /* per rank: when its clock starts (ns) */
  int32_t nranks;
  uint64_t *end;     /* per thread of the current rank: when its last call ended */
  uint32_t nthreads;
  int32_t rank;
} xp_clock;

/* Every present rank's start, from its first event: TF_OK, or an error and err. */
tf_status xp_clock_init(xp_clock *c, tf_trace *t, char *err, size_t errlen);
void xp_clock_free(xp_clock *c);
/* Start on a rank. */
void xp_clock_rank(xp_clock *c, int32_t rank);
/* The next event of the rank: its call's start and end (ns, on the common
 * clock; *cstart: where its compute delta began); 0, or -1 when memory is short. */
int xp_clock_event(xp_clock *c, const xp_events *e, uint64_t *cstart, uint64_t *start, uint64_t *end);

#endif
