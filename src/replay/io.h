/* io.h — MPI-IO in the replay (io.c): the scratch directory the replayed
 * file calls work in (--io-dir, default a new directory under $TMPDIR
 * removed at the end), recorded file names mapped into it, and --io skip,
 * where no file is touched and each I/O call takes its recorded duration.
 * Uses fields.h, handles.h and scratch.h. */
#ifndef TF_REPLAY_IO_H
#define TF_REPLAY_IO_H
#include "engine.h"

/* Before the first event (collective over MPI_COMM_WORLD, PMPI only):
 * make or check the scratch directory. 0, or -1 with a message in err. */
int rp_io_init(rp_engine *E, char *err, size_t errlen);
/* After the last event, or after rp_io_init failed on some rank, before
 * MPI_Finalize (collective): remove the scratch directory if this engine
 * made it. */
void rp_io_finish(rp_engine *E);
/* Replay the current event, an MPI-IO call: made by call inside the
 * scratch directory (its relative names resolve there), or, with --io
 * skip, not made: the requests and groups it would create are registered
 * as done (MPI_REQUEST_NULL) and a copy of MPI_COMM_WORLD's group, and the
 * call takes its recorded duration. Sets T->last_return. */
int rp_io_call(rp_thread *T, int (*call)(rp_thread *T));
/* A recorded file name (string field i) as the replay opens it, relative
 * to the scratch directory: the recorded name itself when it is a plain
 * file name (no '/', not "." or ".."), so that the replay's own trace
 * records the same name; else the name with every '/' made '_' (and a
 * leading '.' made '_'), which cannot leave the directory. */
const char *rp_io_name(rp_thread *T, int i);
/* Remove dir and the files in it (args.c). */
void rp_remove_dir(const char *dir);
/* String field i as a C string (scratch memory). */
const char *rp_string(rp_thread *T, int i);

#endif
