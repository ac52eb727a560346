/* handle_map.h — open-addressing hash map from an MPI handle (as uint64) to
 * the recorder's record of that object.
 *
 * MPI handles are ints (MPICH) or pointers (Open MPI); both fit in 64 bits.
 * A handle value can be reused by the MPI library once the object is freed
 * or the request completed, so records are removed at that moment and the
 * next object with the same value gets a fresh record (and a fresh id).
 * Linear probing; a removal shifts the entries after it back (no
 * tombstones: request handles come and go on every call, and tombstones
 * would lengthen every probe until the next rehash), so a removal moves
 * other records: pointers from tf_map_find/put are valid until the next
 * put or remove. Grows at 50% load. Not thread-safe.
 */
#ifndef TF_HANDLE_MAP_H
#define TF_HANDLE_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_obj {
  uint64_t key;
  int64_t id;
  int64_t comm_id;      /* communicator the object belongs to */
  int64_t bytes;        /* datatypes: size in bytes, or TF_UNDEFINED */
  int32_t rank, size, remote_size;
  uint8_t is_inter, kind, persistent, used;
  uint8_t completing;   /* requests: a completion call holds a snapshot of it (object_ids.c) */
  uintptr_t maker;      /* requests: the thread that made it (object_ids.c, thread_tag) */
  uint64_t children;    /* communicators: how many created from this one; windows: regions attached */
  uint64_t windows;     /* communicators: how many windows created over this one */
  uint64_t files;       /* communicators: how many files opened over this one (MPI_File_open) */
} tf_obj;

typedef struct tf_handle_map {
  tf_obj *slots;        /* used: 0 empty, 1 live */
  size_t cap, live;
} tf_handle_map;

tf_obj *tf_map_find(tf_handle_map *m, uint64_t key);
/* Insert or overwrite; NULL on allocation failure. */
tf_obj *tf_map_put(tf_handle_map *m, uint64_t key);
/* Insert a key the map does not have (the caller has just looked); NULL on
 * allocation failure. */
tf_obj *tf_map_put_new(tf_handle_map *m, uint64_t key);
void tf_map_remove(tf_handle_map *m, uint64_t key);
/* Remove the record o that tf_map_find/put returned (no put or remove since). */
void tf_map_remove_at(tf_handle_map *m, tf_obj *o);
void tf_map_free(tf_handle_map *m);

#endif
