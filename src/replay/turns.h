/* turns.h — threaded replay: the recorded order of the events that name one
 * persistent request (turns.c).
 *
 * A persistent request may be made by one thread, started by another,
 * completed by a third, started again... MPI forbids starting it while it
 * is active, so these events must keep their recorded order, and only
 * they: holding back whole threads would tie blocking calls the program
 * ran side by side. Each replaying thread walks every event of its rank
 * (its own and the others', replay.c), so it counts, per persistent
 * request, the events naming it: the count before one of its own events is
 * that event's turn on the request. Before the call the thread waits until
 * the request's namings done by all threads reach the turn; after it, the
 * request's count advances (handles.c keeps it with the request).
 */
#ifndef TF_REPLAY_TURNS_H
#define TF_REPLAY_TURNS_H

#include "engine.h"

/* Every event the thread's cursor passes, in the rank's order (own: the
 * thread's own event, whose turns the next rp_turns_wait takes). */
void rp_turns_walk(rp_thread *T, const tf_event *ev, int own);
/* Before the call of the thread's own event: wait for its turns. */
void rp_turns_wait(rp_thread *T);
/* After it: the requests it named advance. */
void rp_turns_done(rp_thread *T);
void rp_turns_free(rp_thread *T);

#endif
