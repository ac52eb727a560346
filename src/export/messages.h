/* messages.h — the point-to-point messages of a rank's events: which call
 * sends or receives which message (peer, communicator, tag, bytes), and
 * when a nonblocking or persistent request posts and completes one. Fed
 * one rank's events in order (events.h), it keeps the rank's pending
 * requests and matched probes, so that a completion call
 * (completions.h) says which sends and receives it completed, with the
 * source, tag and size its status recorded. Every exporter that draws or
 * writes messages (OTF2, Chrome flows, the report's matrix) reads them
 * from here.
 *
 * A message is named on both sides by (sender, receiver, communicator id,
 * tag) in world ranks; MPI delivers the messages of one such key in order,
 * so the k-th send and the k-th receive of a key are the same message.
 */
#ifndef TF_EXPORT_MESSAGES_H
#define TF_EXPORT_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

#include "comms.h"
#include "completions.h"
#include "events.h"

typedef enum xp_msg_kind {
  XP_SEND,        /* a blocking send (MPI_Send, ..., the send half of MPI_Sendrecv) */
  XP_ISEND,       /* a nonblocking send posted (MPI_Isend, ..., MPI_Start of a persistent send) */
  XP_ISEND_DONE,  /* a nonblocking send's request completed */
  XP_RECV,        /* a blocking receive (MPI_Recv, MPI_Mrecv, the receive half of MPI_Sendrecv) */
  XP_IRECV_POST,  /* a nonblocking receive posted (MPI_Irecv, MPI_Imrecv, MPI_Start of a persistent receive) */
  XP_IRECV_DONE   /* a nonblocking receive completed: the message arrived */
} xp_msg_kind;

typedef struct xp_msg {
  xp_msg_kind kind;
  int64_t comm;     /* the trace's communicator id */
  int32_t inst;     /* the caller's instance of it (comms.h), -1 unknown */
  int64_t local;    /* the peer's rank in the communicator; -1 unknown (a wildcard not yet matched) */
  int32_t peer;     /* the peer's world rank; -1 unknown */
  int64_t tag;      /* -1 unknown */
  uint64_t bytes;
  int64_t req;      /* the request (nonblocking kinds) */
} xp_msg;

/* Point-to-point calls of a trace's function table, and a rank's state. */
typedef struct xp_msgs {
  const xp_comms *comms;
  xp_completions comp;
  xp_fieldmap map;
  uint8_t *cls;            /* per function: what it is for messages */
  int32_t rank;
  struct xp_preq *reqs;    /* pending requests */
  size_t nreqs, capreqs;
  struct xp_pmsg *probed;  /* matched probes (MPI_Mprobe) not received yet */
  size_t nprobed, capprobed;
  xp_done_list done;
  xp_msg *out;             /* the current event's messages */
  size_t n, cap;
} xp_msgs;

/* 0, or -1 when memory is short. */
int xp_msgs_init(xp_msgs *m, const tf_trace_info *info, const xp_comms *comms);
void xp_msgs_free(xp_msgs *m);
/* Start on a rank (forgets the previous one's requests). */
void xp_msgs_rank(xp_msgs *m, int32_t rank);
/* The messages of the rank's next event e (its fields split: e->fits) into
 * m->out, m->n of them: 0, or -1 when memory is short. */
int xp_msgs_event(xp_msgs *m, const xp_events *e);
/* 1 if function fn sends or receives point-to-point messages, posts or starts requests. */
int xp_msgs_is_p2p(const xp_msgs *m, uint32_t fn);

#endif
