/* flat_writer.h — writes a flat (reference) trace file, one per rank.
 *
 * Internal to tracefold (used by the recorder and by tests that fabricate
 * traces). The layout is specified in doc/FORMAT.md, "Flat trace". Events
 * are encoded into a memory buffer that is flushed to the file whenever it
 * passes 1 MiB, so memory stays bounded however long the run.
 * Not thread-safe: the caller serialises, except for
 * tf_file_writer_write_out (deferred writers, below).
 */
#ifndef TF_FLAT_WRITER_H
#define TF_FLAT_WRITER_H

#include "tracefold.h"

typedef struct tf_file_writer tf_file_writer;

/* Create `path` and write the header. info->funcs must outlive the writer:
 * it checks every event against that table. The file is written as `path.part`
 * and renamed to `path` once complete, so a process killed while writing
 * leaves no file under the final name. info->funcs/nfuncs give the function
 * table; nevents/callsites are ignored. NULL on failure (message in err). */
tf_file_writer *tf_file_writer_open(const char *path, tf_file_kind kind, const tf_file_info *info, char *err,
                                    size_t errlen);

/* The same, but the file is only created when the buffer is first flushed
 * (at 1 MiB) or at close: a short trace that is merged at MPI_Finalize
 * never touches the file system per rank. */
tf_file_writer *tf_file_writer_open_lazy(const char *path, tf_file_kind kind, const tf_file_info *info, char *err,
                                         size_t errlen);

/* The index in the file of function `fn` of info->funcs. A compressed
 * file (version 4) holds only the functions it uses: the first call for fn
 * declares it (a function record, doc/FORMAT.md 2.1), and later indices
 * follow in order of first use; a flat file holds the whole table in its
 * header, so the index is fn. -2 when fn is outside the table; -1 when the
 * record could not be buffered (nothing written) or an earlier flush failed. */
int64_t tf_file_writer_function(tf_file_writer *w, uint32_t fn);

/* Deferred: from now on a full buffer is not written by the call that
 * fills it but handed out whole to a queue; tf_file_writer_write_out
 * writes the queue. So a caller that serialises the writer under a lock
 * (the recorder) writes to disk after releasing it: a slow or blocked file
 * system holds up only the thread that writes, not the others' calls.
 * Write errors are then seen by the calls after the write (-1,
 * tf_file_writer_error). Close and finish write the queue first; a
 * snapshot's writer calls tf_file_writer_write_out(w, 1) before
 * tf_file_snapshot_write, which copies the flushed bytes from the file. */
void tf_file_writer_defer(tf_file_writer *w);
/* The caller checks every event's values against the same function table
 * with the same splitter (tf_event_fields) before tf_file_writer_event
 * (the recorder does, in tf_call_end): the writer does not split them a
 * second time. */
void tf_file_writer_checked(tf_file_writer *w);
/* A deferred writer has buffers waiting (read under the caller's lock). */
int tf_file_writer_pending(tf_file_writer *w);
/* Write the waiting buffers in order; safe to call without the caller's
 * lock, from any thread, while another thread uses the writer. wait = 0:
 * if another thread is writing, return at once (it writes these too);
 * wait = 1: return only when everything handed out so far is written (a
 * snapshot copies it from the file). NULL or not deferred: nothing. */
void tf_file_writer_write_out(tf_file_writer *w, int wait);

/* Declare call site `index` (indices are dense, in order of first use).
 * Like tf_file_writer_event: 0 on success; -1 when the record could not be
 * buffered (it is then left out whole) or an earlier flush failed; -2 (and
 * nothing written) when index is not the next one. */
int tf_file_writer_callsite(tf_file_writer *w, uint32_t index, uint64_t sig, const char *module, uint64_t offset);

/* One event: 0 on success; -1 when it could not be buffered (out of
 * memory; left out whole) or a flush failed (tf_file_writer_error); -2,
 * and nothing written, when the reader would refuse it: a function outside
 * the table, a call site not declared, or values that do not fit the
 * function's fields (tf_event_fields). So the writer never writes what its
 * readers reject. */
int tf_file_writer_event(tf_file_writer *w, uint32_t fn, uint32_t thread, uint32_t callsite_index,
                          uint64_t compute_ns, uint64_t duration_ns, uint32_t nvals, const int64_t *vals);

/* Compressed files: one segment record, the encoded nodes of `nevents` events. */
int tf_file_writer_segment(tf_file_writer *w, const uint8_t *nodes, size_t len, uint64_t nevents);

/* Record that `n` calls were not recorded (after an internal failure). */
void tf_file_writer_lost(tf_file_writer *w, uint64_t n);

/* Mark the file partial: the run stopped without MPI_Finalize (TF_PARTIAL_*). */
void tf_file_writer_partial(tf_file_writer *w, uint32_t reason);

/* Write the end record and checksum, close the file, free the writer.
 * Returns TF_OK or the first error met while writing (message in err). */
tf_status tf_file_writer_close(tf_file_writer *w, char *err, size_t errlen);
/* The same, with the errno of the failure in *eno (0 when it worked). */
tf_status tf_file_writer_close_errno(tf_file_writer *w, char *err, size_t errlen, int *eno);

/* errno of the writer's first failure (ENOMEM when its buffer could not
 * grow), 0 if none. */
int tf_file_writer_error(const tf_file_writer *w);

/* Give up: close and remove what was written (path.part), free w. The
 * final name is untouched. NULL: nothing. */
void tf_file_writer_abandon(tf_file_writer *w);

/* A snapshot: the complete file the writer would make if it ended now
 * with one more segment (seg, seglen bytes of nodes for segevents events;
 * none if seglen is 0), a lost record (if lost), a partial record (if
 * partial), the end record and the checksum, taken without changing the
 * writer. The bytes it flushed (prefix of them, in part) are copied from
 * its file when the snapshot is written; the rest is in data. */
typedef struct tf_file_snapshot {
  char *part;      /* the writer's file, NULL when nothing was flushed */
  uint64_t prefix; /* bytes to copy from it */
  uint8_t *data;   /* the rest of the file */
  size_t len;
} tf_file_snapshot;
/* 0, or -1 (out of memory, or the writer has failed). Cheap: no I/O. */
int tf_file_writer_snapshot(const tf_file_writer *w, const uint8_t *seg, size_t seglen, uint64_t segevents,
                            uint64_t lost, uint32_t partial, tf_file_snapshot *out);
/* Write a snapshot to `path` atomically (path.ckpt, then renamed over
 * path). 0, or the errno of the first failure (path.ckpt removed, path
 * untouched). While it runs, the writer may go on (it only appends to
 * its file), but must not be closed. */
int tf_file_snapshot_write(const tf_file_snapshot *s, const char *path);
void tf_file_snapshot_free(tf_file_snapshot *s);

/* Finish the file and hand over its bytes (malloc'ed) instead of closing
 * it: if it was never flushed, no file is created (*on_disk = 0);
 * otherwise the file is completed and read back (*on_disk = 1). Frees w. */
tf_status tf_file_writer_finish_mem(tf_file_writer *w, uint8_t **data, size_t *len, int *on_disk, char *err,
                                    size_t errlen);

#endif
