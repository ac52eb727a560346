/* values.h — how MPI arguments and outcomes become trace values: ranks as
 * offsets from the caller, MPI's special values as TF_* specials, payload
 * bytes, request ids and statuses put into the call being recorded.
 */
#ifndef TF_RECORDER_VALUES_H
#define TF_RECORDER_VALUES_H

#include <mpi.h>
#include <stdint.h>

#include "object_ids.h"
#include "runtime.h"
#include "tracefold.h"

/* ---- ranks, tags, integers ---- */
int64_t tf_peer(const tf_comm_info *ci, int rank);  /* offset or special */
int64_t tf_root_val(int root);
int64_t tf_tag_val(int tag);
int64_t tf_int_val(int v);                          /* MPI_UNDEFINED -> TF_UNDEFINED */
int64_t tf_assert_val(int assert_bits);            /* MPI_MODE_* bits -> TF_MODE_* bits (others kept above) */
int64_t tf_lock_type_val(int lock_type);            /* MPI_LOCK_* -> TF_LOCK_* */
int tf_is_root(const tf_comm_info *ci, int root);
int tf_coll_size(const tf_comm_info *ci);
int64_t tf_sum_ints(const int *v, int n);

/* ---- topologies ---- */
typedef struct tf_degrees {
  int in, out;
} tf_degrees;
tf_degrees tf_neighbor_degrees(MPI_Comm comm);
int tf_cartdim(MPI_Comm comm); /* dimensions of comm's Cartesian topology (0: none) */

/* ---- payload bytes ---- */
/* count elements of a datatype of `size` bytes; UNDEFINED when the
 * datatype's size is (MPI_Type_size gave MPI_UNDEFINED) */
static inline int64_t tf_bytes(int64_t count, int64_t size) { return size < 0 ? TF_UNDEFINED : count * size; }
int64_t tf_bytes_w(const int *counts, const MPI_Datatype *types, int n);

/* ---- requests and statuses, put into the call ---- */
void tf_put_req_ids(tf_call *c, const tf_req_snap *snaps, int n);
/* statuses: matched source (offset), tag and bytes, or "-" when not a receive */
void tf_put_status(tf_call *c, const tf_comm_info *ci, const MPI_Status *st, int completed);
void tf_put_req_status(tf_call *c, const tf_req_snap *s, const MPI_Status *st, int completed);
void tf_put_req_statuses(tf_call *c, const tf_req_snap *snaps, int n, const MPI_Status *sts, int completed);
void tf_put_some_statuses(tf_call *c, const tf_req_snap *snaps, int outcount, const int *indices,
                          const MPI_Status *sts);

/* ---- MPI-IO ---- */
/* a string as an array of its characters (NULL: empty) */
void tf_put_string(tf_call *c, const char *s);
/* the bytes an I/O call read or wrote (MPI_Get_count in bytes), or "-" */
void tf_put_io_status(tf_call *c, const MPI_Status *st, int completed);

#endif
