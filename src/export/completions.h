/* completions.h — the requests an MPI completion call (MPI_Wait, MPI_Test
 * and their any, all and some forms) completed, as the trace records its
 * outcome, each with the source and tag it matched: what an exporter needs
 * to pair a nonblocking call with the call that completed it. */
#ifndef TF_EXPORT_COMPLETIONS_H
#define TF_EXPORT_COMPLETIONS_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

typedef enum xp_completion {
  XP_NOT_A_COMPLETION = 0,
  XP_WAIT, XP_TEST, XP_WAITANY, XP_TESTANY, XP_WAITALL, XP_TESTALL, XP_WAITSOME, XP_TESTSOME
} xp_completion;

/* Which completion call the MPI function `name` is. */
xp_completion xp_completion_of(const char *name);

/* A completed request: its id, and the source (an offset from the caller,
 * as recorded), tag and size in bytes its status matched; TF_NONE where
 * the trace has none (send requests, statuses ignored). */
typedef struct xp_done {
  int64_t id, src, tag, bytes;
} xp_done;

typedef struct xp_done_list {
  xp_done *v;
  size_t n, cap;
} xp_done_list;

/* The completion calls of a trace's function table and their fields. */
typedef struct xp_completions {
  uint8_t *kind; /* per function: xp_completion */
  xp_fieldmap map;
} xp_completions;

/* 0, or -1 when memory is short. */
int xp_completions_init(xp_completions *c, const tf_trace_info *info);
void xp_completions_free(xp_completions *c);
/* The requests an event of function fn (its fields split) completed, into
 * out (replacing what it held; none for other calls): 0, or -1 when memory
 * is short. */
int xp_completed(const xp_completions *c, uint32_t fn, const tf_field_value *fields, xp_done_list *out);
void xp_done_list_free(xp_done_list *l);

#endif
