/* fortran_support.c — helpers for the generated Fortran entry points.
 *
 * Open MPI's mpif.h / `use mpi` bindings call PMPI_ directly, so Fortran
 * calls never reach the C wrappers; tf_fortran.c provides mpi_xxx_ (and the
 * other name manglings) that convert Fortran handles to C, record through
 * the same code as the C wrappers and call the C PMPI_. With MPICH, whose
 * Fortran bindings call the C MPI_ symbols, these entry points are not
 * built (that would record every Fortran call twice).
 */
#include "fortran_support.h"

#include <stdlib.h>

#include "runtime.h"
#include "session.h"
#include "tf_schema.h"
#include "values.h"

/* The Fortran entry points below are MPI entry points: exported from
 * libtracefold.so, which is built with -fvisibility=hidden. */
#define TF_MPI_ENTRY __attribute__((visibility("default")))

/* Fortran MPI_IN_PLACE and MPI_BOTTOM are addresses of common blocks */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_unweighted_ __attribute__((weak));
extern int mpi_fortran_weights_empty_ __attribute__((weak));

void *tf_fortran_buf(void *buf) {
  if (&mpi_fortran_in_place_ && buf == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (&mpi_fortran_bottom_ && buf == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
  return buf;
}

const int *tf_fortran_weights(const MPI_Fint *w) {
  if (&mpi_fortran_unweighted_ && (const void *)w == (const void *)&mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (&mpi_fortran_weights_empty_ && (const void *)w == (const void *)&mpi_fortran_weights_empty_)
    return MPI_WEIGHTS_EMPTY;
  return (const int *)w;
}

static _Thread_local MPI_Request *reqs;
static _Thread_local int nreqs;
static _Thread_local MPI_Datatype *types;
static _Thread_local int ntypes;
static _Thread_local MPI_Status *sts;
static _Thread_local int nsts;

#define TF_GROW(arr, cap, n)                                                                                    \
  do {                                                                                                         \
    if ((n) > (cap)) {                                                                                         \
      void *p_ = realloc((arr), (size_t)(n) * sizeof *(arr));                                                  \
      if (!p_) return NULL;                                                                                    \
      (arr) = p_;                                                                                              \
      (cap) = (n);                                                                                             \
    }                                                                                                          \
  } while (0)

MPI_Request *tf_fortran_scratch_request(const MPI_Fint *f, int n) {
  TF_GROW(reqs, nreqs, n < 1 ? 1 : n);
  for (int i = 0; i < n; i++) reqs[i] = PMPI_Request_f2c(f[i]);
  return reqs;
}

MPI_Datatype *tf_fortran_scratch_type(const MPI_Fint *f, int n) {
  TF_GROW(types, ntypes, n < 1 ? 1 : n);
  for (int i = 0; i < n; i++) types[i] = PMPI_Type_f2c(f[i]);
  return types;
}

MPI_Status *tf_fortran_scratch_status(int n) {
  TF_GROW(sts, nsts, n < 1 ? 1 : n);
  return sts;
}

/* MPI_INIT / MPI_INIT_THREAD: Open MPI's Fortran versions call PMPI_Init*
 * directly, so the recorder starts here for Fortran programs. Same fields
 * as the C wrappers (mpi.table): MPI_Init none; MPI_Init_thread required,
 * provided. */
static int fortran_init(void *ra, int threaded, int required, int *provided) {
  uint64_t t0 = tf_now_ns();
  int rc = threaded ? PMPI_Init_thread(NULL, NULL, required, provided) : PMPI_Init(NULL, NULL);
  uint64_t t1 = tf_now_ns();
  tf_recorder_start(rc);
  tf_call c;
  if (tf_call_begin(&c, threaded ? TF_FN_MPI_Init_thread : TF_FN_MPI_Init, ra)) {
    if (threaded) tf_put(&c, tf_int_val(required));
    c.t0 = t0;
    c.t1 = t1;
    if (threaded) tf_put(&c, tf_int_val(*provided));
    tf_call_end(&c);
  }
  return rc;
}

#define TF_FORTRAN_INIT(sym)                                                                                    \
  TF_MPI_ENTRY void sym(MPI_Fint *ierr);                                                                       \
  void sym(MPI_Fint *ierr) {                                                                                   \
    int rc = fortran_init(__builtin_return_address(0), 0, 0, NULL);                                            \
    if (ierr) *ierr = rc; /* optional in mpi_f08 */                                                            \
  }
#define TF_FORTRAN_INIT_THREAD(sym)                                                                             \
  TF_MPI_ENTRY void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);                               \
  void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {                                           \
    int p = 0;                                                                                                 \
    int rc = fortran_init(__builtin_return_address(0), 1, *required, &p);                                      \
    if (ierr) *ierr = rc;                                                                                      \
    *provided = p;                                                                                             \
  }
TF_FORTRAN_INIT(mpi_init_)
TF_FORTRAN_INIT(mpi_init)
TF_FORTRAN_INIT(mpi_init__)
TF_FORTRAN_INIT(MPI_INIT)
TF_FORTRAN_INIT(mpi_init_f08_)
TF_FORTRAN_INIT_THREAD(mpi_init_thread_)
TF_FORTRAN_INIT_THREAD(mpi_init_thread)
TF_FORTRAN_INIT_THREAD(mpi_init_thread__)
TF_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
TF_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
