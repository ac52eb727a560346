/* request_transform.h — reversible per-rank transform of event values before they
 * are folded, so that values that change every iteration in a regular way
 * become constants.
 *
 * Request ids are numbered per rank in creation order (RECORDED.md). A
 * created request (REQ_NEW) is stored as its distance from the expected
 * next id (0 when ids are consecutive) and a used request (REQ) as its
 * distance back from the last created one ("the request made 3 calls ago"),
 * so that every iteration of a loop stores the same numbers. Special values
 * (TF_NULL_HANDLE, ...) are stored as they are. The transform is a
 * bijection on int64 for any input, so unroll restores every value exactly:
 * differences are taken in the ring of the non-special values.
 */
#ifndef TF_REQUEST_TRANSFORM_H
#define TF_REQUEST_TRANSFORM_H

#include <stdint.h>

#include "tracefold.h"

typedef struct tf_req_transform {
  int64_t last_req; /* last non-special request id created (0 at the start) */
} tf_req_transform;

/* Transform the values of one event of function fd in place, in stream
 * order. Returns 0, or -1 when the values do not fit fd's fields
 * (tf_event_fields; they are then left unchanged, and decode detects the
 * same) or memory is short (more than 64 fields). */
int tf_req_transform_apply(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals);
/* The same for a function the caller knows has no array field, with its
 * fd->nfields values (no check: the recorder's hot path). */
void tf_req_transform_apply_scalars(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals);
int tf_req_transform_undo(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals);

#endif
