/* wildcards.h — the source and tag a nonblocking wildcard receive (MPI_Irecv
 * from MPI_ANY_SOURCE or with MPI_ANY_TAG) matched. The trace records them
 * where the request completes, later in the rank's sequence: a second
 * cursor on the rank reads ahead to that completion, remembering what it
 * passed, so that one rank's receives are resolved in one pass. */
#ifndef TF_EXPORT_WILDCARDS_H
#define TF_EXPORT_WILDCARDS_H

#include <stddef.h>
#include <stdint.h>

#include "completions.h"
#include "events.h"

typedef struct xp_wildcards {
  tf_trace *t;
  const xp_completions *comp;
  xp_fieldmap map;        /* source, tag and request of each function */
  uint8_t *irecv;         /* per function: 1 for MPI_Irecv */
  int32_t rank;
  xp_events ahead;        /* the look-ahead (ahead.c NULL: not opened yet) */
  int end;                /* it has passed the rank's last event */
  struct { int64_t id; uint64_t seq; } *pend; /* wildcard receives it passed, not completed yet */
  size_t npend, cappend;
  struct { uint64_t seq; int64_t src, tag; } *res; /* completed, not asked for yet */
  size_t nres, capres;
  xp_done_list done;
} xp_wildcards;

/* Over trace t, whose completion calls are comp: 0, or -1 when memory is short. */
int xp_wildcards_init(xp_wildcards *w, tf_trace *t, const xp_completions *comp);
void xp_wildcards_free(xp_wildcards *w);
/* Start on a rank (forgets the previous one). */
void xp_wildcards_rank(xp_wildcards *w, int32_t rank);
/* 1 if an event of function fn (its fields split) is a wildcard MPI_Irecv. */
int xp_is_wildcard_irecv(const xp_wildcards *w, uint32_t fn, const tf_field_value *fields);
/* What the wildcard receive at position seq of the rank matched: 0 and
 * *src (an offset from the rank, as recorded), *tag; 1 if its request never
 * completes in the trace; -1 if the trace is malformed or cannot be read
 * (why in err); -2 when memory is short. Positions are asked in order. */
int xp_wildcard_match(xp_wildcards *w, uint64_t seq, int64_t *src, int64_t *tag, char *err, size_t errlen);

#endif
