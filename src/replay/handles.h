/* handles.h — recorded object ids -> the replay's live communicators,
 * datatypes, ops, groups, requests and messages (handles.c). Uses
 * fields.h and scratch.h. */
#ifndef TF_REPLAY_HANDLES_H
#define TF_REPLAY_HANDLES_H

#include "engine.h"

int rp_handles_init(rp_engine *E);
void rp_handles_free(rp_engine *E);
MPI_Comm rp_comm(rp_thread *T, int i);
int rp_comm_rank(MPI_Comm c); /* the caller's rank in c (PMPI) */
int rp_coll_size(MPI_Comm c);  /* the processes a collective on c reaches: its size, remote size if inter */
int rp_local_size(MPI_Comm c); /* its (local group's) size */
int rp_neighbors(MPI_Comm c, int out); /* in-degree (out 0) or out-degree (1) of c's topology; 0 without one */
void rp_comm_new(rp_thread *T, int i, MPI_Comm c);
void rp_comm_forget(rp_thread *T, int i);
MPI_Datatype rp_dtype(rp_thread *T, int i);
MPI_Datatype *rp_dtypes(rp_thread *T, int i);
MPI_Datatype *rp_dtypes_kept(rp_thread *T, int i); /* kept until the request the call makes completes */
rp_typespan rp_dtype_span(rp_thread *T, int64_t id); /* datatype id's extent and true bounds */
void rp_dtype_new(rp_thread *T, int i, MPI_Datatype d);
void rp_dtype_back(rp_thread *T, int i, MPI_Datatype d);
void rp_dtype_forget(rp_thread *T, int i);
MPI_Op rp_op(rp_thread *T, int i);
void rp_op_new(rp_thread *T, int i, MPI_Op o);
void rp_op_forget(rp_thread *T, int i);
int *rp_unweighted(void); /* MPI_UNWEIGHTED (skipped graph weights) */
void rp_user_function(void *in, void *inout, int *len, MPI_Datatype *dt);
MPI_Group rp_group(rp_thread *T, int i);
void rp_group_new(rp_thread *T, int i, MPI_Group g);
void rp_group_forget(rp_thread *T, int i);
MPI_File rp_file(rp_thread *T, int i);          /* MPI-IO files, opened under their recorded ids */
void rp_file_new(rp_thread *T, int i, MPI_File f);
void rp_file_forget(rp_thread *T, int i);
MPI_Message rp_msg(rp_thread *T, int i);
void rp_msg_new(rp_thread *T, int i, MPI_Message m);
/* The message a probe's recorded message id gets: m, or one an earlier poll
 * took that the recording did not (outcome.c); MPI_MESSAGE_NULL when the
 * recording matched none (recorded 0) and m is held. */
MPI_Message rp_msg_matched(rp_thread *T, int recorded, MPI_Message m);
void rp_msg_forget(rp_thread *T, int i);
/* Windows: win_i is the event's window field. A window's memory (exposed
 * by MPI_Win_create or attached to a dynamic window) is the engine's, from
 * rp_win_mem, freed with the window or when detached. Regions are known by
 * their number on the window (1, 2, ... in attach order, as recorded). */
MPI_Win rp_win(rp_thread *T, int i);
int rp_win_peer(rp_thread *T, int win_i, int i); /* field i: an offset from the caller's rank in the window */
void rp_win_new(rp_thread *T, int i, MPI_Win w, void *mem);
void rp_win_forget(rp_thread *T, int i);
void rp_win_attached(rp_thread *T, int win_i, void *mem);
void *rp_win_region(rp_thread *T, int win_i, int i);
int rp_win_over(rp_thread *T, int i);                /* its exposure epoch completed earlier than recorded */
void rp_win_set_over(rp_thread *T, int i, int over);
void rp_win_detached(rp_thread *T, int win_i, int i);
MPI_Request rp_req(rp_thread *T, int i);
MPI_Request *rp_reqs(rp_thread *T, int i);
void rp_req_new(rp_thread *T, int i, MPI_Request r);
void rp_req_back(rp_thread *T, int i, MPI_Request r);  /* after the call: its state (NULL: gone) */
void rp_reqs_back(rp_thread *T, int i, const MPI_Request *r);
void rp_req_forget(rp_thread *T, int i);
/* The live request of a recorded id (NULL if unknown); *persistent, *done. */
rp_obj *rp_req_obj(rp_engine *E, int64_t id);
void rp_req_drop(rp_engine *E, rp_obj *o); /* delete a request found by rp_req_obj (lock held) */
void rp_req_completed(rp_obj *o);           /* its operation is over: free what it kept (lock held) */
/* Every communicator, datatype, op and group the current event uses exists. */
int rp_objects_ready(rp_thread *T);
void rp_lock(rp_engine *E);
void rp_unlock(rp_engine *E);

#endif
