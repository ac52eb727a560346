/* replay.h — the replay engine's internal interface (doc/REPLAY.md).
 *
 * tracefold-replay is an MPI program: each rank walks its own events of a
 * trace through a rank cursor (the loops stay folded; nothing is unrolled
 * into memory) and issues the same MPI calls with the same parameters.
 * One rp_thread replays one recorded thread of the rank. The pieces:
 *   tf_replay_calls.c  generated from gen/mpi.table: one function per MPI
 *                      function, event fields -> the call (gen/emit_replay.py);
 *   engine.h           the state they share: options, the rank's engine,
 *                      one replaying thread;
 *   scratch.c          per-call scratch memory and the fatal stop (rp_die);
 *   fields.c           the current event's fields;
 *   handles.c          recorded ids -> live communicators, datatypes, ops,
 *                      groups, requests and messages;
 *   payload.c          the payload buffers the calls send and receive;
 *   io.c               MPI-IO: the scratch directory, file names, --io skip;
 *   outcome.c          which requests complete and which messages are
 *                      matched, as recorded (wildcards, Waitany, Test, ...);
 *   persist.c          persistent requests started by one thread and
 *                      completed by another: starts and completions in turn;
 *   delay.c            the compute delay before each call (none, mean,
 *                      histogram; scale; rate for time-independent traces);
 *   compute.c          the one function that spends that delay;
 *   sync.c             the lock and condition the rank's threads share;
 *   trace_share.c      the trace, opened once per process (SimGrid's actors
 *                      share it);
 *   replay.c           options, start-up checks, threads, the report.
 * tracefold-sim is the same engine compiled with smpicc (SimGrid's SMPI):
 * compute_sim.c replaces compute.c, so a delay becomes simulated execution;
 * a rank's recorded threads are lanes of its one actor (replay.c: SMPI
 * 3.32 cannot match the messages of a second actor of a rank).
 * Everything the engine does for itself goes through PMPI_ so that a
 * recorder preloaded into the replay sees exactly the replayed calls.
 * No code here is specific to one MPI library (it also builds with smpicc).
 * Each of scratch, fields, handles, payload and sync has its header, and
 * uses only those of the modules below it: payload uses handles, fields
 * and scratch; handles uses fields and scratch; fields uses scratch;
 * scratch and sync use none. This header gathers them all for the
 * generated calls, outcome.c, delay.c, compute*.c and replay.c.
 */
#ifndef TF_REPLAY_H
#define TF_REPLAY_H

#include <pthread.h>

#include "engine.h"
#include "fields.h"
#include "handles.h"
#include "io.h"
#include "payload.h"
#include "scratch.h"
#include "sync.h"

/* 1 in tracefold-sim (the engine built with smpicc), 0 in tracefold-replay */
#ifdef TF_SIMGRID
#define RP_SIMGRID 1
#else
#define RP_SIMGRID 0
#endif

typedef int (*rp_call_fn)(rp_thread *T);
extern const rp_call_fn rp_calls[TF_FN_COUNT]; /* NULL: the engine does it (replay.c) */
/* The call started in its nonblocking form (blocking functions that have
 * one; MPI_Sendrecv as MPI_Irecv + MPI_Isend): req[0], req[1] (or
 * MPI_REQUEST_NULL). Used where one actor replays several threads. */
typedef int (*rp_start_fn)(rp_thread *T, MPI_Request *req);
extern const rp_start_fn rp_starts[TF_FN_COUNT]; /* NULL: no nonblocking form */
/* 1: SimGrid's SMPI does not implement the function ({nosim} in mpi.table);
 * tracefold-sim refuses a trace that calls it. */
extern const uint8_t rp_nosim[TF_FN_COUNT];
/* The MPI version that introduced the function ({mpi=4} in mpi.table: 4;
 * else 3): the engine refuses a trace that calls one its MPI lacks. */
extern const uint8_t rp_mpi_version[TF_FN_COUNT];
/* 1: an MPI-IO function ([io] in mpi.table): replayed through rp_io_call (io.c). */
extern const uint8_t rp_io[TF_FN_COUNT];

/* ---- what the recording saw (outcome.c) ---- */
/* An absolute peer: field i is an offset from the caller's rank in comm;
 * a wildcard source becomes the matched source (status field src, or the
 * completion of request req found ahead) unless --any-source. */
int rp_peer(rp_thread *T, MPI_Comm comm, int i, int src, int req);
MPI_Status *rp_status(rp_thread *T, int src);             /* MPI_STATUS_IGNORE if the recording ignored it */
MPI_Status *rp_statuses(rp_thread *T, int src, int count); /* likewise for arrays */
MPI_Status *rp_last_status(rp_thread *T);                 /* of the last call that had one */
/* Before the call: wait until what the recording completed can complete;
 * for MPI_Waitany/Testany/Waitsome/Testsome (reqs: the call's array) hide
 * the requests the recording did not report, so the call reports exactly
 * the recorded ones. */
void rp_outcome_before(rp_thread *T, uint32_t fn, MPI_Request *reqs);
/* After the call (live: its request(s) as the call left them, NULL if it
 * completes none): take them back, reconciled with the recorded outcome. */
void rp_outcome_after(rp_thread *T, uint32_t fn, int rc, MPI_Request *live);
/* Threaded replay, persistent requests one thread starts and another
 * completes (persist.c): every event of the rank the thread's cursor
 * passes (own: the thread's), counted; before the call, wait until the
 * events naming its persistent requests before it have run; after it,
 * count it as run. */
void rp_persistent_pass(rp_thread *T, uint32_t fn, const tf_event *ev, int own);
void rp_persistent_before(rp_thread *T);
void rp_persistent_after(rp_thread *T);
/* MPI_Win_test with the recorded outcome: a test the recording saw
 * complete the exposure epoch completes it (PMPI_Win_wait if the call did
 * not); one that completes it earlier than recorded marks the window, and
 * the epoch's remaining MPI_Win_test and MPI_Win_wait calls are then not
 * made (rp_win_epoch_skip), since MPI forbids them. */
int rp_win_test(rp_thread *T);
int rp_win_epoch_skip(rp_thread *T); /* 1: do not make this call (see above) */

/* ---- compute (delay.c, compute.c) ---- */
/* Check the options against the trace: NULL, or why not. */
const char *rp_delay_check(const rp_options *o, const tf_trace_info *info);
/* Seconds to compute before the current event. */
double rp_delay(rp_thread *T);
void rp_draws_free(rp_thread *T);
/* Spend compute time as the application did: live, busy-waiting or
 * sleeping until `seconds` after T's previous call returned; simulated,
 * executing seconds x ref_speed flops on the rank's host, together with
 * the compute of the local calls before it (`now` 0: the call is local,
 * the compute waits for the next one). */
void rp_compute(rp_thread *T, double seconds, int now);
double rp_now(void); /* seconds, monotonic (simulated time under SimGrid) */


#endif
