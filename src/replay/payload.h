/* payload.h — the payload buffers the replayed calls send from and
 * receive into, large enough for each call (payload.c). Uses fields.h,
 * handles.h (datatype extents) and scratch.h. */
#ifndef TF_REPLAY_PAYLOAD_H
#define TF_REPLAY_PAYLOAD_H

#include "engine.h"

/* Payload bytes the buffers need for this call: from its counts,
 * displacements and datatype extents. */
size_t rp_payload_need(rp_thread *T);
void *rp_sbuf(rp_thread *T); /* send / receive payload buffers of T->need bytes (contents arbitrary) */
void *rp_rbuf(rp_thread *T);
void rp_buffers_free(rp_thread *T);

#endif
