/* object_ids.c — symbolic ids for MPI objects (object_ids.h).
 *
 * Traces never hold MPI handle values (they differ between runs, ranks and
 * MPI libraries). Each object gets a symbolic id instead:
 *
 * Communicators: MPI_COMM_WORLD = 1, MPI_COMM_SELF = 2. A communicator made
 *   by a constructor that is collective over its parent (dup, split, create,
 *   cart/graph create, cart_sub, merge, ...) gets
 *       id = hash(parent id, n)   where n counts the parent's children,
 *   which is identical on every member without any communication, because
 *   all members of the parent call its constructors in the same order (the
 *   MPI standard requires it). All the row communicators of one Comm_split
 *   share one id, which is what lets the trace of each rank say "the row
 *   communicator". MPI_Comm_create_group is collective only over the group,
 *   so there the members agree on a sequence number with one PMPI_Allreduce
 *   on the new communicator; MPI_Intercomm_create exchanges each side's
 *   local id over the new intercommunicator and hashes the pair.
 *   Ids are 31-bit values >= 16.
 * Requests: per rank, 1, 2, 3, ... in creation order. The record is dropped
 *   when the request completes (Wait/Test...) or is freed, so a handle value
 *   the MPI library reuses (MPICH does) gets a new id. Live requests can
 *   also share a handle value: MPICH gives every receive from
 *   MPI_PROC_NULL the same builtin handle, and an MPI_Isend that completes
 *   at once gets one shared handle (MPICH's lightweight requests, Open MPI's
 *   empty request). Such requests are equivalent (they are complete at once,
 *   with the same status), so their ids are used oldest first: a call that
 *   names the handle k times uses the k oldest.
 *   Between threads two things happen. A handle value is reused before the
 *   old record is dropped: MPI completes thread A's request inside MPI_Wait
 *   and may give its handle to thread B's MPI_Isend before A's wrapper
 *   forgets it. And several threads complete requests of one shared handle
 *   at once. So a call that completes or frees requests claims the records
 *   it takes snapshots of (completing) until its event is in the trace;
 *   every call takes, of the records of a handle that no other call has
 *   claimed, the oldest its own thread made, else the oldest (find_locked
 *   says why); a new request always queues behind the records its handle has
 *   (never replaces one: a claimed record may stay live, when a test does
 *   not complete it), claimed by the call that made it until that call's
 *   event is in the trace (no other thread's call can mean it before, and
 *   one that took it would be recorded first); and records are forgotten
 *   by id: A then leaves B's record alone. Each
 *   request id is thus created once and completed once, whatever the
 *   threads do (test mpi.mtstress checks it on every run). Which of the
 *   requests that share a handle value a call meant, the handle value does
 *   not say: the trace may swap their ids (between a thread's own
 *   requests; between threads only when a thread completes another's
 *   request and has none of its own with that handle alive).
 * Datatypes and ops: predefined ones by their position in
 *   tracefold_predefined.h; derived/user ones per rank from 1000 in creation
 *   order. Groups: MPI_GROUP_EMPTY = 1, others per rank from 2; matched
 *   messages per rank from 1.
 *
 * Windows: like communicators, id = hash(parent communicator id, n) where
 *   n counts the windows made over that communicator (a separate count, so
 *   windows do not shift the ids of communicators). Their regions (dynamic
 *   windows) are numbered per window in attach order.
 * Files (MPI-IO): id = hash(hash(communicator id, "file"), n) where n
 *   counts the files opened over that communicator, identical on every
 *   member for the reason above (MPI_File_open is collective). A file
 *   handle opened outside tracefold's view gets TF_NULL_HANDLE.
 *
 * Unknown handles (objects made by functions tracefold does not intercept)
 * are registered on first sight so that later events stay consistent.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object_ids.h"

#include "handle_map.h"
#include "tracefold.h"
#include "tracefold_predefined.h"

#define TF_COMM_WORLD_ID 1
#define TF_COMM_SELF_ID 2

/* A direct-mapped cache in front of the datatype and op tables. Most calls
 * look up a datatype or an op, nearly always one of a few (predefined)
 * ones: the slot a multiplicative hash picks for the key answers those
 * without the table's hashing and probing. A slot holds a copy of the
 * table's record (id, bytes) and follows every change of the table: filled
 * by a lookup, set by a put, emptied by a removal, reset at setup and
 * teardown. It is read and written under the tables' lock, as the tables
 * are: a datatype or op that one thread frees while another makes one that
 * MPI gives the same handle is seen exactly as the table sees it. An empty
 * slot holds the key of MPI_DATATYPE_NULL (MPI_OP_NULL), which is never
 * looked up. */
#define CACHE_BITS 6
typedef struct cache_slot {
  uint64_t key;
  int64_t id, bytes;
} cache_slot;
typedef struct obj_cache {
  cache_slot slot[1u << CACHE_BITS];
  uint64_t empty; /* the key of an empty slot */
} obj_cache;

static struct {
  tf_handle_map comms, reqs, dtypes, ops, groups, msgs, wins, files;
  obj_cache dtype_cache, op_cache; /* in front of dtypes and ops */
  struct {
    struct tf_region { uint64_t win; const void *base; int64_t number; } *v; /* attached regions */
    size_t n, cap;
  } regions;
  struct {
    tf_obj *v; /* requests whose handle value an older live request has, oldest first */
    size_t n, cap;
  } shared;
  int64_t next_req, next_dtype, next_op, next_group, next_msg;
  int64_t next_group_comm; /* sequence for MPI_Comm_create_group */
} h;

/* MPI handles are ints (MPICH) or pointers (Open MPI): widen to 64 bits. */
#define TF_DEFINE_KEY(fname, T)                                                                                 \
  static uint64_t fname(T v) {                                                                                 \
    uint64_t k = 0;                                                                                            \
    memcpy(&k, &v, sizeof v < sizeof k ? sizeof v : sizeof k);                                                 \
    return k;                                                                                                  \
  }
TF_DEFINE_KEY(key_of_comm, MPI_Comm)
TF_DEFINE_KEY(key_of_dtype, MPI_Datatype)
TF_DEFINE_KEY(key_of_op, MPI_Op)
TF_DEFINE_KEY(key_of_group, MPI_Group)
TF_DEFINE_KEY(key_of_msg, MPI_Message)
TF_DEFINE_KEY(key_of_req, MPI_Request)
TF_DEFINE_KEY(key_of_win, MPI_Win)
TF_DEFINE_KEY(key_of_file, MPI_File)

static cache_slot *cache_at(obj_cache *c, uint64_t key) {
  return &c->slot[(key * 0x9E3779B97F4A7C15ULL) >> (64 - CACHE_BITS)];
}
static void cache_reset(obj_cache *c, uint64_t empty) {
  c->empty = empty;
  for (size_t i = 0; i < sizeof c->slot / sizeof *c->slot; i++) c->slot[i] = (cache_slot){empty, 0, 0};
}
static void cache_set(obj_cache *c, uint64_t key, int64_t id, int64_t bytes) {
  *cache_at(c, key) = (cache_slot){key, id, bytes};
}
static void cache_drop(obj_cache *c, uint64_t key) {
  cache_slot *e = cache_at(c, key);
  if (e->key == key) e->key = c->empty;
}

static int64_t mix_id(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return (int64_t)(16 + (x % (0x7fffffffULL - 16)));
}

static void out_of_memory(void) { tf_recorder_fail("out of memory in object tables"); }

/* ------------------------------------------------------------------ comms */

static tf_comm_info info_of(const tf_obj *o) {
  return (tf_comm_info){o->id, o->rank, o->size, o->remote_size, o->is_inter};
}

static tf_obj *register_comm(MPI_Comm c, int64_t id) {
  tf_obj *o = tf_map_put(&h.comms, key_of_comm(c));
  if (!o) {
    out_of_memory();
    return NULL;
  }
  int rank = 0, size = 0, inter = 0, rsize = 0;
  PMPI_Comm_rank(c, &rank);
  PMPI_Comm_size(c, &size);
  PMPI_Comm_test_inter(c, &inter);
  if (inter) PMPI_Comm_remote_size(c, &rsize);
  o->id = id;
  o->rank = rank;
  o->size = size;
  o->remote_size = rsize;
  o->is_inter = (uint8_t)inter;
  return o;
}

tf_comm_info tf_comm_world; /* object_ids.h */

tf_comm_info tf_comm_lookup(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return tf_comm_world;
  if (comm == MPI_COMM_NULL) return (tf_comm_info){TF_NULL_HANDLE, 0, 0, 0, 0};
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.comms, key_of_comm(comm));
  if (!o) o = register_comm(comm, TF_NULL_HANDLE); /* made outside our view */
  tf_comm_info ci = o ? info_of(o) : (tf_comm_info){TF_NULL_HANDLE, 0, 0, 0, 0};
  tf_unlock_tables();
  return ci;
}

int64_t tf_comm_new(const tf_comm_info *parent, MPI_Comm newcomm, int how, int tag) {
  int64_t id;
  if (how == TF_NEWCOMM_PARENT) {
    /* the parent's child counter lives in its record, found by id
     * (communicators are few and creation is rare) */
    uint64_t n = 0;
    tf_lock_tables();
    for (size_t i = 0; i < h.comms.cap; i++)
      if (h.comms.slots[i].used == 1 && h.comms.slots[i].id == parent->id) {
        n = h.comms.slots[i].children++;
        break;
      }
    tf_unlock_tables();
    id = mix_id((uint64_t)parent->id, n);
  } else if (how == TF_NEWCOMM_GROUP) {
    if (newcomm == MPI_COMM_NULL) return TF_NULL_HANDLE;
    tf_lock_tables();
    long long mine = (long long)h.next_group_comm, agreed = mine;
    tf_unlock_tables();
    PMPI_Allreduce(&mine, &agreed, 1, MPI_LONG_LONG, MPI_MAX, newcomm);
    tf_lock_tables();
    if (agreed + 1 > h.next_group_comm) h.next_group_comm = agreed + 1;
    tf_unlock_tables();
    id = mix_id(mix_id((uint64_t)parent->id, (uint64_t)tag), (uint64_t)agreed + 0x51ed);
  } else { /* TF_NEWCOMM_INTER: hash of both sides' local ids */
    if (newcomm == MPI_COMM_NULL) return TF_NULL_HANDLE;
    long long mine = mix_id((uint64_t)parent->id, (uint64_t)tag), theirs = 0;
    PMPI_Allreduce(&mine, &theirs, 1, MPI_LONG_LONG, MPI_MAX, newcomm);
    long long lo = mine < theirs ? mine : theirs, hi = mine < theirs ? theirs : mine;
    id = mix_id((uint64_t)lo, (uint64_t)hi);
  }
  if (newcomm == MPI_COMM_NULL) return TF_NULL_HANDLE;
  tf_lock_tables();
  register_comm(newcomm, id);
  tf_unlock_tables();
  return id;
}

void tf_comm_forget(MPI_Comm comm) {
  tf_lock_tables();
  tf_map_remove(&h.comms, key_of_comm(comm));
  tf_unlock_tables();
}

/* ---------------------------------------------------------------- windows */

static tf_obj *register_win(MPI_Win w, int64_t id) {
  tf_obj *o = tf_map_put(&h.wins, key_of_win(w));
  if (!o) {
    out_of_memory();
    return NULL;
  }
  int rank = 0, size = 0;
  MPI_Group g = MPI_GROUP_NULL;
  if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
    PMPI_Group_rank(g, &rank);
    PMPI_Group_size(g, &size);
    PMPI_Group_free(&g);
  }
  o->id = id;
  o->rank = rank;
  o->size = size;
  return o;
}

tf_comm_info tf_win_get(MPI_Win win) {
  if (win == MPI_WIN_NULL) return (tf_comm_info){TF_NULL_HANDLE, 0, 0, 0, 0};
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.wins, key_of_win(win));
  if (!o) o = register_win(win, TF_NULL_HANDLE); /* made outside our view */
  tf_comm_info ci = o ? (tf_comm_info){o->id, o->rank, o->size, 0, 0} : (tf_comm_info){TF_NULL_HANDLE, 0, 0, 0, 0};
  tf_unlock_tables();
  return ci;
}

int64_t tf_win_new(const tf_comm_info *parent, MPI_Win win) {
  if (win == MPI_WIN_NULL) return TF_NULL_HANDLE;
  uint64_t n = 0;
  tf_lock_tables();
  for (size_t i = 0; i < h.comms.cap; i++)
    if (h.comms.slots[i].used == 1 && h.comms.slots[i].id == parent->id) {
      n = h.comms.slots[i].windows++;
      break;
    }
  int64_t id = mix_id((uint64_t)mix_id((uint64_t)parent->id, 0x57494eu /* "WIN" */), n);
  register_win(win, id);
  tf_unlock_tables();
  return id;
}

void tf_win_forget(MPI_Win win) {
  uint64_t key = key_of_win(win);
  tf_lock_tables();
  tf_map_remove(&h.wins, key);
  size_t k = 0; /* its regions go with it */
  for (size_t i = 0; i < h.regions.n; i++)
    if (h.regions.v[i].win != key) h.regions.v[k++] = h.regions.v[i];
  h.regions.n = k;
  tf_unlock_tables();
}

void tf_win_attach(MPI_Win win, const void *base) {
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.wins, key_of_win(win));
  if (o && h.regions.n == h.regions.cap) {
    size_t cap = h.regions.cap ? 2 * h.regions.cap : 16;
    struct tf_region *v = realloc(h.regions.v, cap * sizeof *v);
    if (v) {
      h.regions.v = v;
      h.regions.cap = cap;
    }
  }
  if (o && h.regions.n < h.regions.cap)
    h.regions.v[h.regions.n++] = (struct tf_region){key_of_win(win), base, (int64_t)++o->children};
  tf_unlock_tables();
}

int64_t tf_win_region(MPI_Win win, const void *base) {
  uint64_t key = key_of_win(win);
  int64_t number = TF_NULL_HANDLE;
  tf_lock_tables();
  for (size_t i = h.regions.n; i-- > 0;)
    if (h.regions.v[i].win == key && h.regions.v[i].base == base) {
      number = h.regions.v[i].number;
      break;
    }
  tf_unlock_tables();
  return number;
}

void tf_win_detach(MPI_Win win, const void *base) {
  uint64_t key = key_of_win(win);
  tf_lock_tables();
  for (size_t i = h.regions.n; i-- > 0;)
    if (h.regions.v[i].win == key && h.regions.v[i].base == base) {
      memmove(&h.regions.v[i], &h.regions.v[i + 1], (h.regions.n - i - 1) * sizeof *h.regions.v);
      h.regions.n--;
      break;
    }
  tf_unlock_tables();
}

/* ------------------------------------------------------------------ files */

tf_file_ref tf_file_get(MPI_File fh) {
  tf_file_ref r = {TF_NULL_HANDLE, {TF_NULL_HANDLE, 0, 0, 0, 0}};
  if (fh == MPI_FILE_NULL) return r;
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.files, key_of_file(fh));
  if (o) r = (tf_file_ref){o->id, {o->comm_id, o->rank, o->size, o->remote_size, o->is_inter}};
  tf_unlock_tables();
  return r;
}

int64_t tf_file_new(const tf_comm_info *comm, MPI_File fh) {
  uint64_t n = 0;
  tf_lock_tables();
  /* the communicator's file counter lives in its record, found by id (as
   * the child counter of tf_comm_new): counted whether or not this rank's
   * open succeeded, as on every other member */
  for (size_t i = 0; i < h.comms.cap; i++)
    if (h.comms.slots[i].used == 1 && h.comms.slots[i].id == comm->id) {
      n = h.comms.slots[i].files++;
      break;
    }
  int64_t id = mix_id((uint64_t)mix_id((uint64_t)comm->id, 0xF11E), n);
  if (fh != MPI_FILE_NULL) {
    tf_obj *o = tf_map_put(&h.files, key_of_file(fh));
    if (o) {
      o->id = id;
      o->comm_id = comm->id;
      o->rank = comm->rank;
      o->size = comm->size;
      o->remote_size = comm->remote_size;
      o->is_inter = (uint8_t)comm->is_inter;
    } else {
      out_of_memory();
    }
  }
  tf_unlock_tables();
  return fh == MPI_FILE_NULL ? TF_NULL_HANDLE : id;
}

void tf_file_forget(MPI_File fh) {
  tf_lock_tables();
  tf_map_remove(&h.files, key_of_file(fh));
  tf_unlock_tables();
}

/* -------------------------------------------------------------- datatypes */

static int64_t type_size(MPI_Datatype t) {
  int s = 0;
  if (PMPI_Type_size(t, &s) != MPI_SUCCESS || s == MPI_UNDEFINED) return TF_UNDEFINED;
  return s;
}

tf_dtype_ref tf_dtype_none(void) { return (tf_dtype_ref){TF_NONE, TF_NONE}; }

/* tf_dtype_get when the cache does not have t: called with the tables'
 * lock held (when it is not nothing, tf_tables_shared), which it releases. */
__attribute__((noinline)) static tf_dtype_ref dtype_get_uncached(MPI_Datatype t, uint64_t key) {
  tf_obj *o = tf_map_find(&h.dtypes, key);
  if (o) {
    tf_dtype_ref r = {o->id, o->bytes};
    cache_set(&h.dtype_cache, key, r.id, r.size);
    tf_unlock_tables();
    return r;
  }
  tf_unlock_tables();
  return tf_dtype_new(t); /* made outside our view (e.g. MPI_Type_match_size) */
}

/* tf_dtype_get under MPI_THREAD_MULTIPLE */
__attribute__((noinline)) static tf_dtype_ref dtype_get_locked(MPI_Datatype t, uint64_t key) {
  tf_lock_tables();
  const cache_slot *e = cache_at(&h.dtype_cache, key);
  if (e->key != key) return dtype_get_uncached(t, key);
  tf_dtype_ref r = {e->id, e->bytes};
  tf_unlock_tables();
  return r;
}

tf_dtype_ref tf_dtype_get(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return (tf_dtype_ref){TF_NULL_HANDLE, 0};
  uint64_t key = key_of_dtype(t);
  if (__builtin_expect(tf_tables_shared(), 0)) return dtype_get_locked(t, key);
  const cache_slot *e = cache_at(&h.dtype_cache, key); /* the lock is nothing: no other thread */
  if (__builtin_expect(e->key == key, 1)) return (tf_dtype_ref){e->id, e->bytes};
  return dtype_get_uncached(t, key);
}

tf_dtype_ref tf_dtype_new(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return (tf_dtype_ref){TF_NULL_HANDLE, 0};
  int64_t size = type_size(t);
  uint64_t key = key_of_dtype(t);
  tf_lock_tables();
  tf_obj *o = tf_map_put(&h.dtypes, key);
  int64_t id = h.next_dtype++;
  if (o) {
    o->id = id;
    o->bytes = size;
    cache_set(&h.dtype_cache, key, id, size);
  } else {
    cache_drop(&h.dtype_cache, key);
  }
  tf_unlock_tables();
  if (!o) out_of_memory();
  return (tf_dtype_ref){id, size};
}

void tf_dtype_forget(MPI_Datatype t) {
  uint64_t key = key_of_dtype(t);
  tf_lock_tables();
  tf_map_remove(&h.dtypes, key);
  cache_drop(&h.dtype_cache, key);
  tf_unlock_tables();
}

/* ------------------------------------------------------ ops, groups, msgs */

/* The id of key in m, registered with the next id on first sight; the
 * cache c (or NULL) in front of m follows. Under the tables' lock; *oom set
 * when out of memory. */
static int64_t simple_get_locked(tf_handle_map *m, obj_cache *c, uint64_t key, int64_t *next, int *oom) {
  tf_obj *o = tf_map_find(m, key);
  int64_t id;
  if (o) {
    id = o->id;
  } else {
    o = tf_map_put_new(m, key);
    id = (*next)++;
    if (o) o->id = id;
  }
  *oom = !o;
  if (c && o) cache_set(c, key, id, 0);
  else if (c) cache_drop(c, key);
  return id;
}

static int64_t simple_get(tf_handle_map *m, uint64_t key, int64_t *next) {
  int oom;
  tf_lock_tables();
  int64_t id = simple_get_locked(m, NULL, key, next, &oom);
  tf_unlock_tables();
  if (oom) out_of_memory();
  return id;
}

static int64_t simple_new(tf_handle_map *m, obj_cache *c, uint64_t key, int64_t *next) {
  tf_lock_tables();
  tf_obj *o = tf_map_put(m, key);
  int64_t id = (*next)++;
  if (o) o->id = id;
  if (c && o) cache_set(c, key, id, 0);
  else if (c) cache_drop(c, key);
  tf_unlock_tables();
  if (!o) out_of_memory();
  return id;
}

static void simple_forget(tf_handle_map *m, obj_cache *c, uint64_t key) {
  tf_lock_tables();
  tf_map_remove(m, key);
  if (c) cache_drop(c, key);
  tf_unlock_tables();
}

/* tf_op_get when the cache does not have key: called with the tables'
 * lock held (when it is not nothing, tf_tables_shared), which it releases. */
__attribute__((noinline)) static int64_t op_get_uncached(uint64_t key) {
  int oom;
  int64_t id = simple_get_locked(&h.ops, &h.op_cache, key, &h.next_op, &oom);
  tf_unlock_tables();
  if (oom) out_of_memory();
  return id;
}

/* tf_op_get under MPI_THREAD_MULTIPLE */
__attribute__((noinline)) static int64_t op_get_locked(uint64_t key) {
  tf_lock_tables();
  const cache_slot *e = cache_at(&h.op_cache, key);
  if (e->key != key) return op_get_uncached(key);
  int64_t id = e->id;
  tf_unlock_tables();
  return id;
}

int64_t tf_op_get(MPI_Op op) {
  if (op == MPI_OP_NULL) return TF_NULL_HANDLE;
  uint64_t key = key_of_op(op);
  if (__builtin_expect(tf_tables_shared(), 0)) return op_get_locked(key);
  const cache_slot *e = cache_at(&h.op_cache, key); /* the lock is nothing: no other thread */
  if (__builtin_expect(e->key == key, 1)) return e->id;
  return op_get_uncached(key);
}
int64_t tf_op_new(MPI_Op op) { return simple_new(&h.ops, &h.op_cache, key_of_op(op), &h.next_op); }
void tf_op_forget(MPI_Op op) { simple_forget(&h.ops, &h.op_cache, key_of_op(op)); }
int64_t tf_group_get(MPI_Group g) {
  if (g == MPI_GROUP_NULL) return TF_NULL_HANDLE;
  if (g == MPI_GROUP_EMPTY) return 1;
  return simple_get(&h.groups, key_of_group(g), &h.next_group);
}
int64_t tf_group_new(MPI_Group g) {
  if (g == MPI_GROUP_NULL) return TF_NULL_HANDLE;
  if (g == MPI_GROUP_EMPTY) return 1;
  return simple_new(&h.groups, NULL, key_of_group(g), &h.next_group);
}
void tf_group_forget(MPI_Group g) { simple_forget(&h.groups, NULL, key_of_group(g)); }

int64_t tf_msg_new(MPI_Message m, const tf_comm_info *ci) {
  if (m == MPI_MESSAGE_NO_PROC) return TF_PROC_NULL;
  if (m == MPI_MESSAGE_NULL) return TF_NULL_HANDLE;
  tf_lock_tables();
  tf_obj *o = tf_map_put(&h.msgs, key_of_msg(m));
  int64_t id = h.next_msg++;
  if (o) {
    o->id = id;
    o->comm_id = ci->id;
    o->rank = ci->rank;
    o->size = ci->size;
    o->remote_size = ci->remote_size;
    o->is_inter = (uint8_t)ci->is_inter;
  }
  tf_unlock_tables();
  if (!o) out_of_memory();
  return id;
}

tf_msg_snap tf_msg_take(MPI_Message m) {
  tf_msg_snap s = {TF_NULL_HANDLE, {TF_NULL_HANDLE, 0, 0, 0, 0}};
  if (m == MPI_MESSAGE_NO_PROC) {
    s.id = TF_PROC_NULL;
    return s;
  }
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.msgs, key_of_msg(m));
  if (o) {
    s.id = o->id;
    s.ci = (tf_comm_info){o->comm_id, o->rank, o->size, o->remote_size, o->is_inter};
    tf_map_remove_at(&h.msgs, o);
  }
  tf_unlock_tables();
  return s;
}

/* --------------------------------------------------------------- requests */

/* The calling thread, as the address of a variable of its own (unique
 * among the threads alive). */
static _Thread_local char thread_mark;
static uintptr_t thread_tag(void) { return (uintptr_t)&thread_mark; }

static void fill_req(tf_obj *o, int64_t id, int kind, int persistent, const tf_comm_info *ci) {
  o->id = id;
  o->kind = (uint8_t)kind;
  o->persistent = (uint8_t)persistent;
  o->comm_id = ci->id;
  o->rank = ci->rank;
  o->size = ci->size;
  o->remote_size = ci->remote_size;
  o->is_inter = (uint8_t)ci->is_inter;
}

int64_t tf_req_new(MPI_Request r, int kind, int persistent, const tf_comm_info *ci) {
  if (r == MPI_REQUEST_NULL) return TF_NULL_HANDLE;
  uint64_t key = key_of_req(r);
  tf_lock_tables();
  int64_t id = h.next_req++;
  tf_obj *o = tf_map_find(&h.reqs, key);
  if (o) { /* a live request has this handle too (shared, or completing meanwhile): this one queues behind it */
    if (h.shared.n == h.shared.cap) {
      size_t cap = h.shared.cap ? 2 * h.shared.cap : 16;
      tf_obj *v = realloc(h.shared.v, cap * sizeof *v);
      if (v) {
        h.shared.v = v;
        h.shared.cap = cap;
      }
    }
    o = h.shared.n < h.shared.cap ? &h.shared.v[h.shared.n++] : NULL;
    if (o) memset(o, 0, sizeof *o);
  } else {
    o = tf_map_put_new(&h.reqs, key);
  }
  if (o) {
    o->key = key;
    fill_req(o, id, kind, persistent, ci);
    o->maker = thread_tag();
    o->completing = 1; /* its call's own until tf_req_published */
  }
  tf_unlock_tables();
  if (!o) out_of_memory();
  return id;
}

static void unclaim(MPI_Request r, int64_t id);
void tf_req_published(MPI_Request r, int64_t id) { unclaim(r, id); }

static tf_req_snap snap_of(MPI_Request r, const tf_obj *o) {
  return (tf_req_snap){r, o->id, o->kind, o->persistent, {o->comm_id, o->rank, o->size, o->remote_size, o->is_inter}, 0};
}

/* The record a call that names handle r means: of the live requests with
 * that handle that no completion call in progress has claimed (the one in
 * the map, then those waiting in h.shared, oldest first), the oldest the
 * calling thread made, else the oldest; if every one is claimed, the
 * oldest. Registered on first sight; NULL for MPI_REQUEST_NULL and when out
 * of memory.
 * Why the caller's own first: requests that share a handle are equivalent
 * (complete at once), so any of them is a correct answer for the call, but
 * the trace then says which thread's request the call completed. Another
 * thread's id would tie the two threads where the program did not (a
 * replay's wait on it waits until that thread has made it: test
 * replay.mtstress hung so); the caller's own is the one a thread that
 * completes its own requests meant. A thread completing requests another
 * thread handed it (and none of its own with that handle alive) still
 * gets the oldest, which the handing made before it. */
static tf_obj *find_locked(MPI_Request r) {
  if (r == MPI_REQUEST_NULL) return NULL;
  uint64_t key = key_of_req(r);
  tf_obj *o = tf_map_find(&h.reqs, key);
  if (!o) {
    if ((o = tf_map_put_new(&h.reqs, key))) o->id = h.next_req++; /* made outside our view: give it an id now */
    return o;
  }
  uintptr_t me = thread_tag();
  tf_obj *oldest = o->completing ? NULL : o;
  if (oldest && oldest->maker == me) return oldest;
  for (size_t i = 0; i < h.shared.n; i++) {
    tf_obj *s = &h.shared.v[i];
    if (s->key != key || s->completing) continue;
    if (s->maker == me) return s;
    if (!oldest) oldest = s;
  }
  return oldest ? oldest : o;
}

static tf_req_snap snap_locked(MPI_Request r, int completing) {
  tf_obj *o = find_locked(r);
  if (!o) return (tf_req_snap){r, TF_NULL_HANDLE, 0, 0, {TF_NULL_HANDLE, 0, 0, 0, 0}, 0};
  if (completing) o->completing = 1;
  return snap_of(r, o);
}

tf_req_snap tf_req_get(MPI_Request r, int completing) {
  tf_lock_tables();
  tf_req_snap s = snap_locked(r, completing);
  tf_unlock_tables();
  return s;
}

tf_req_snap *tf_req_get_all(tf_call *c, const MPI_Request *rs, int n, int completing) {
  if (n <= 0) return NULL;
  tf_req_snap *snaps = tf_call_scratch(c, TF_SCRATCH_SNAPS, (size_t)n * sizeof *snaps);
  if (!snaps) return NULL;
  tf_lock_tables();
  /* a handle named twice is two requests that share it: each mention claims the next */
  for (int i = 0; i < n; i++) snaps[i] = snap_locked(rs[i], completing);
  tf_unlock_tables();
  return snaps;
}

void tf_req_completed(tf_req_snap *s) {
  if (s->id == TF_NULL_HANDLE || s->persistent) return;
  tf_req_forget(s);
}

/* The index in h.shared of the request with handle key and id, or h.shared.n. */
static size_t shared_index(uint64_t key, int64_t id) {
  size_t i = 0;
  while (i < h.shared.n && (h.shared.v[i].key != key || h.shared.v[i].id != id)) i++;
  return i;
}

void tf_req_forget(tf_req_snap *s) {
  if (s->handle == MPI_REQUEST_NULL) return;
  uint64_t key = key_of_req(s->handle);
  /* from here on no record has the snapshot's id (ids are never reused):
   * tf_req_settled would find none */
  s->forgotten = 1;
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.reqs, key);
  if (!o || o->id != s->id) { /* not the one in the map: a waiting one, or replaced already (nothing) */
    size_t i = shared_index(key, s->id);
    if (i < h.shared.n) {
      memmove(&h.shared.v[i], &h.shared.v[i + 1], (h.shared.n - i - 1) * sizeof *h.shared.v);
      h.shared.n--;
    }
    tf_unlock_tables();
    return;
  }
  tf_map_remove_at(&h.reqs, o);
  for (size_t i = 0; i < h.shared.n; i++) { /* the next oldest with this handle takes its place */
    if (h.shared.v[i].key != key) continue;
    tf_obj *o = tf_map_put_new(&h.reqs, key);
    if (o) fill_req(o, h.shared.v[i].id, h.shared.v[i].kind, h.shared.v[i].persistent,
                    &(tf_comm_info){h.shared.v[i].comm_id, h.shared.v[i].rank, h.shared.v[i].size,
                                    h.shared.v[i].remote_size, h.shared.v[i].is_inter});
    if (o) o->completing = h.shared.v[i].completing, o->maker = h.shared.v[i].maker;
    memmove(&h.shared.v[i], &h.shared.v[i + 1], (h.shared.n - i - 1) * sizeof *h.shared.v);
    h.shared.n--;
    break;
  }
  tf_unlock_tables();
}

/* The record of request id with handle r (the map's, or one waiting in
 * h.shared) is no longer claimed. */
static void unclaim(MPI_Request r, int64_t id) {
  if (r == MPI_REQUEST_NULL || id == TF_NULL_HANDLE) return;
  uint64_t key = key_of_req(r);
  tf_lock_tables();
  tf_obj *o = tf_map_find(&h.reqs, key);
  if (o && o->id == id) o->completing = 0;
  size_t i = shared_index(key, id);
  if (i < h.shared.n) h.shared.v[i].completing = 0;
  tf_unlock_tables();
}

void tf_req_settled(const tf_req_snap *s) {
  if (!s->forgotten) unclaim(s->handle, s->id);
}

/* ------------------------------------------------------------------ setup */

int tf_object_ids_init(void) {
  memset(&h, 0, sizeof h);
  h.next_req = 1;
  h.next_dtype = TF_DTYPE_DERIVED_BASE;
  h.next_op = TF_OP_USER_BASE;
  h.next_group = 2; /* 1 is MPI_GROUP_EMPTY */
  h.next_msg = 1;
  cache_reset(&h.dtype_cache, key_of_dtype(MPI_DATATYPE_NULL));
  cache_reset(&h.op_cache, key_of_op(MPI_OP_NULL));
  tf_obj *w = register_comm(MPI_COMM_WORLD, TF_COMM_WORLD_ID);
  tf_obj *s = register_comm(MPI_COMM_SELF, TF_COMM_SELF_ID);
  if (!w || !s) return -1;
  tf_comm_world = info_of(w);
  int64_t id = 1;
#define TF_ADD_DTYPE(name)                                                                                      \
  if ((name) != MPI_DATATYPE_NULL && !tf_map_find(&h.dtypes, key_of_dtype(name))) {                              \
    tf_obj *o = tf_map_put(&h.dtypes, key_of_dtype(name));                                                       \
    if (!o) return -1;                                                                                         \
    o->id = id;                                                                                                \
    o->bytes = type_size(name);                                                                        \
  }                                                                                                            \
  id++;
  TF_PREDEFINED_DTYPES(TF_ADD_DTYPE)
  id = 1;
#define TF_ADD_OP(name)                                                                                         \
  if ((name) != MPI_OP_NULL && !tf_map_find(&h.ops, key_of_op(name))) {                                       \
    tf_obj *o = tf_map_put(&h.ops, key_of_op(name));                                                          \
    if (!o) return -1;                                                                                         \
    o->id = id;                                                                                                \
  }                                                                                                            \
  id++;
  TF_PREDEFINED_OPS(TF_ADD_OP)
  return 0;
}

void tf_object_ids_free(void) {
  tf_map_free(&h.comms);
  tf_map_free(&h.reqs);
  tf_map_free(&h.dtypes);
  tf_map_free(&h.ops);
  cache_reset(&h.dtype_cache, h.dtype_cache.empty);
  cache_reset(&h.op_cache, h.op_cache.empty);
  tf_map_free(&h.groups);
  tf_map_free(&h.msgs);
  tf_map_free(&h.wins);
  free(h.regions.v);
  h.regions.v = NULL;
  h.regions.n = h.regions.cap = 0;
  tf_map_free(&h.files);
  free(h.shared.v);
  h.shared.v = NULL;
  h.shared.n = h.shared.cap = 0;
}
