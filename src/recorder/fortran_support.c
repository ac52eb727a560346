/* fortran_support.c — helpers for the generated Fortran entry points.
 *
 * The entry points (tf_fortran.c: mpi_send_, mpi_send, mpi_send__,
 * MPI_SEND, and mpi_send_f08_ or, with MPICH, mpi_send_f08ts_) convert the
 * Fortran arguments to C, record through the same code as the C wrappers
 * and call the C PMPI_ function. The program's call thus reaches the
 * recorder directly, with the program's own return address, whatever the
 * library's Fortran binding would have done (Open MPI's call PMPI_, MPICH's
 * mpif.h bindings call the C MPI_ functions, MPICH's mpi_f08 bindings call
 * PMPI_ or MPI_), and each call is recorded once: the library's binding is
 * not entered (except, under MPICH's mpi_f08, for a non-contiguous buffer:
 * see tf_lib_call).
 *
 * The Fortran sentinels are the addresses of Fortran variables:
 *   Open MPI: mpi_fortran_in_place_, mpi_fortran_bottom_, ... (common
 *     blocks), and MPI_F_STATUS(ES)_IGNORE;
 *   MPICH, mpif.h and use mpi: the common blocks of mpif.h, /MPIPRIV1/
 *     MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(MPI_STATUS_SIZE),
 *     /MPIPRIV2/ MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1), ..., /MPIFCMB5/
 *     MPI_UNWEIGHTED and /MPIFCMB9/ MPI_WEIGHTS_EMPTY (MPICH's C variables
 *     MPI_F_STATUS_IGNORE etc. are only set once one of MPICH's own
 *     bindings has run, which these entry points bypass);
 *   MPICH, mpi_f08: MPIR_F08_MPI_IN_PLACE, MPIR_F08_MPI_BOTTOM,
 *     MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ (mpi.h) and the module variables
 *     mpi_unweighted and mpi_weights_empty of mpi_f08_link_constants.
 * They are weak references: a C program has none of them (then they are
 * NULL and never match), and they resolve to the one copy the program and
 * the library share.
 */
#define _GNU_SOURCE
#include "fortran_support.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "object_ids.h"
#include "runtime.h"
#include "session.h"
#include "tf_portable.h"
#include "tf_schema.h"
#include "values.h"

/* The Fortran entry points below are MPI entry points: exported from
 * libtracefold.so, which is built with -fvisibility=hidden. */
#define TF_MPI_ENTRY __attribute__((visibility("default")))

#define TF_WEAK __attribute__((weak))

#if TF_F08_MPICH
/* mpif.h: COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and
 * COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE */
extern struct {
  MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE];
} mpipriv1_ TF_WEAK;
extern struct {
  MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE], errcodes_ignore[1];
} mpipriv2_ TF_WEAK;
extern MPI_Fint mpifcmb5_ TF_WEAK; /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_ TF_WEAK; /* MPI_WEIGHTS_EMPTY */
extern MPI_Fint tf_f08_unweighted __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted") TF_WEAK;
extern MPI_Fint tf_f08_weights_empty __asm__("__mpi_f08_link_constants_MOD_mpi_weights_empty") TF_WEAK;
extern void mpirinitf_(void) TF_WEAK; /* MPICH's Fortran start-up: records the addresses above */
#define F_BOTTOM (&mpipriv1_ ? &mpipriv1_.bottom : NULL)
#define F_IN_PLACE (&mpipriv1_ ? &mpipriv1_.in_place : NULL)
#define F_STATUS_IGNORE (&mpipriv1_ ? mpipriv1_.status_ignore : NULL)
#define F_STATUSES_IGNORE (&mpipriv2_ ? mpipriv2_.statuses_ignore : NULL)
#define F_UNWEIGHTED (&mpifcmb5_ ? &mpifcmb5_ : NULL)
#define F_WEIGHTS_EMPTY (&mpifcmb9_ ? &mpifcmb9_ : NULL)
#else
extern MPI_Fint mpi_fortran_in_place_ TF_WEAK;
extern MPI_Fint mpi_fortran_bottom_ TF_WEAK;
extern MPI_Fint mpi_fortran_unweighted_ TF_WEAK;
extern MPI_Fint mpi_fortran_weights_empty_ TF_WEAK;
#define F_BOTTOM (&mpi_fortran_bottom_ ? &mpi_fortran_bottom_ : NULL)
#define F_IN_PLACE (&mpi_fortran_in_place_ ? &mpi_fortran_in_place_ : NULL)
#define F_STATUS_IGNORE MPI_F_STATUS_IGNORE
#define F_STATUSES_IGNORE MPI_F_STATUSES_IGNORE
#define F_UNWEIGHTED (&mpi_fortran_unweighted_ ? &mpi_fortran_unweighted_ : NULL)
#define F_WEIGHTS_EMPTY (&mpi_fortran_weights_empty_ ? &mpi_fortran_weights_empty_ : NULL)
#endif

/* ------------------------------------------------- mpif.h and use mpi */

void *tf_fortran_buf(void *buf) {
  if (buf && buf == (void *)F_IN_PLACE) return MPI_IN_PLACE;
  if (buf && buf == (void *)F_BOTTOM) return MPI_BOTTOM;
  return buf;
}

const int *tf_fortran_weights(const MPI_Fint *w) {
  if (w && w == F_UNWEIGHTED) return MPI_UNWEIGHTED;
  if (w && w == F_WEIGHTS_EMPTY) return MPI_WEIGHTS_EMPTY;
  return (const int *)w;
}

int tf_fortran_status_ignore(const MPI_Fint *s) { return s && s == F_STATUS_IGNORE; }
int tf_fortran_statuses_ignore(const MPI_Fint *s) { return s && s == F_STATUSES_IGNORE; }

/* ---------------------------------------------------------------- both */

static _Thread_local MPI_Request *reqs;
static _Thread_local int nreqs;
static _Thread_local MPI_Datatype *types[2];
static _Thread_local int ntypes[2];
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

MPI_Datatype *tf_fortran_scratch_type(const MPI_Fint *f, int n, int slot) {
  TF_GROW(types[slot], ntypes[slot], n < 1 ? 1 : n);
  for (int i = 0; i < n; i++) types[slot][i] = PMPI_Type_f2c(f[i]);
  return types[slot];
}

MPI_Status *tf_fortran_scratch_status(int n) {
  TF_GROW(sts, nsts, n < 1 ? 1 : n);
  return sts;
}

int tf_fortran_coll_size(MPI_Comm comm) {
  int inter = 0, n = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
  if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS) return 0;
  return n;
}

/* -------------------------------------------------- mpi_f08 under MPICH */

#if TF_F08_MPICH
/* MPICH: "The order of these elements must match that in mpif.h,
 * mpi_f08_types.f90" (mpi.h, MPI_Status) */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status is not MPI_Status");
_Static_assert(offsetof(MPI_F08_status, MPI_SOURCE) == offsetof(MPI_Status, MPI_SOURCE) &&
                   offsetof(MPI_F08_status, MPI_TAG) == offsetof(MPI_Status, MPI_TAG) &&
                   offsetof(MPI_F08_status, MPI_ERROR) == offsetof(MPI_Status, MPI_ERROR),
               "MPI_F08_status is not MPI_Status");
/* handles are passed to the library's own mpi_f08 routines as C values */
_Static_assert(sizeof(MPI_Comm) == sizeof(MPI_Fint) && sizeof(MPI_Datatype) == sizeof(MPI_Fint) &&
                   sizeof(MPI_Op) == sizeof(MPI_Fint) && sizeof(MPI_Request) == sizeof(MPI_Fint) &&
                   sizeof(MPI_Message) == sizeof(MPI_Fint),
               "MPICH handles are not MPI_Fint");

int tf_f08_status_ignore(const void *s) { return s && s == (const void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ; }
int tf_f08_statuses_ignore(const void *s) { return s && s == (const void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ; }

void tf_f08_status_c2f(const MPI_Status *c, void *f, int i) { memcpy((MPI_F08_status *)f + i, c, sizeof *c); }
void tf_f08_status_f2c(const void *f, MPI_Status *c) { memcpy(c, f, sizeof *c); }

const int *tf_f08_weights(const MPI_Fint *w) {
  if (w && &tf_f08_unweighted && w == &tf_f08_unweighted) return MPI_UNWEIGHTED;
  if (w && &tf_f08_weights_empty && w == &tf_f08_weights_empty) return MPI_WEIGHTS_EMPTY;
  return (const int *)w;
}

/* gfortran's array descriptor (gfortran 8 and later, libgfortran's
 * GFC_ARRAY_DESCRIPTOR): what a Fortran procedure without BIND(C) receives
 * for a TYPE(*), DIMENSION(..) dummy argument. */
typedef struct gfc_dim {
  ptrdiff_t stride; /* in units of span */
  ptrdiff_t lbound, ubound;
} gfc_dim;
typedef struct gfc_desc {
  void *base_addr; /* the first element */
  size_t offset;
  struct {
    size_t elem_len;
    int version;
    signed char rank, type;
    signed short attribute;
  } dtype;
  ptrdiff_t span; /* bytes per unit of stride */
  gfc_dim dim[];
} gfc_desc;

void *tf_f08_buf(const void *desc, int *contiguous) {
  const gfc_desc *d = desc;
  void *base = d->base_addr;
  if (base == (void *)&MPIR_F08_MPI_IN_PLACE) return MPI_IN_PLACE;
  if (base == (void *)&MPIR_F08_MPI_BOTTOM) return MPI_BOTTOM;
  ptrdiff_t next = (ptrdiff_t)d->dtype.elem_len; /* the byte stride of a contiguous next dimension */
  for (int i = 0; i < d->dtype.rank; i++) {
    ptrdiff_t extent = d->dim[i].ubound - d->dim[i].lbound + 1;
    if (extent <= 0) return base; /* no elements */
    if (extent > 1 && d->dim[i].stride * d->span != next) *contiguous = 0;
    next *= extent;
  }
  return base;
}

#endif

/* ------------------------------ the library's own mpi_f08 routine (MPICH) */

tf_lib_fn tf_lib_lookup(const char *name, tf_lib_fn *cache) {
  _Atomic(tf_lib_fn) *c = (_Atomic(tf_lib_fn) *)cache;
  tf_lib_fn fn = atomic_load(c);
  if (!fn) {
    void *sym = dlsym(RTLD_NEXT, name);
    memcpy(&fn, &sym, sizeof fn); /* POSIX: a function's address from dlsym */
    atomic_store(c, fn);
  }
  return fn;
}

typedef void *P;
int tf_lib_call(const tf_lib_pass *pass, int n, void *const *a) {
  MPI_Fint ierr = MPI_ERR_INTERN;
  if (!pass->fn) return ierr;
  P e = &ierr;
  tf_lib_fn f = pass->fn;
  tf_call_suppress(1);
  switch (n) { /* every argument of an mpi_f08 routine is passed by reference */
  case 1: ((void (*)(P, P))f)(a[0], e); break;
  case 2: ((void (*)(P, P, P))f)(a[0], a[1], e); break;
  case 3: ((void (*)(P, P, P, P))f)(a[0], a[1], a[2], e); break;
  case 4: ((void (*)(P, P, P, P, P))f)(a[0], a[1], a[2], a[3], e); break;
  case 5: ((void (*)(P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], e); break;
  case 6: ((void (*)(P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], e); break;
  case 7: ((void (*)(P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], e); break;
  case 8: ((void (*)(P, P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], e); break;
  case 9:
    ((void (*)(P, P, P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], e);
    break;
  case 10:
    ((void (*)(P, P, P, P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], e);
    break;
  case 11:
    ((void (*)(P, P, P, P, P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                                       a[10], e);
    break;
  case 12:
    ((void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                                          a[10], a[11], e);
    break;
  default: break;
  }
  tf_call_suppress(0);
  return ierr;
}

void *tf_f08_status_arg(MPI_Status *s) {
#if TF_F08_MPICH
  if (s == MPI_STATUS_IGNORE) return &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
#endif
  return s;
}

/* ------------------------------------------------------- MPI_OP_CREATE */

/* A Fortran user function takes its arguments by reference, with a Fortran
 * datatype handle: only the library's binding knows how to call it, so the
 * library's own MPI_OP_CREATE (the routine of the same name after
 * libtracefold's) makes the op. Same fields as the C wrapper (mpi.table):
 * commute, then the new op. */
static void fortran_op_create(void *ra, const char *name, tf_lib_fn *lib, void *user_fn, MPI_Fint *commute,
                              MPI_Fint *op, MPI_Fint *ierr) {
  MPI_Fint unused;
  if (!ierr) ierr = &unused; /* optional in mpi_f08 */
  tf_lib_pass pass = {tf_lib_lookup(name, lib), {NULL, NULL}};
  tf_call c;
  if (!tf_call_begin(&c, TF_FN_MPI_Op_create, ra)) {
    *ierr = tf_lib_call(&pass, 3, (void *const[]){user_fn, commute, op});
    return;
  }
  tf_put(&c, tf_int_val(*commute));
  tf_call_clock_start(&c);
  *ierr = tf_lib_call(&pass, 3, (void *const[]){user_fn, commute, op});
  tf_call_clock_stop(&c);
  tf_put(&c, *ierr == MPI_SUCCESS ? tf_op_new(PMPI_Op_f2c(*op)) : TF_NULL_HANDLE);
  tf_call_end(&c);
}

#define TF_FORTRAN_OP_CREATE(sym)                                                                               \
  TF_MPI_ENTRY void sym(void *user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr);                        \
  void sym(void *user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr) {                                    \
    static tf_lib_fn lib;                                                                                      \
    fortran_op_create(__builtin_return_address(0), #sym, &lib, user_fn, commute, op, ierr);                    \
  }
TF_FORTRAN_OP_CREATE(mpi_op_create_)
TF_FORTRAN_OP_CREATE(mpi_op_create)
TF_FORTRAN_OP_CREATE(mpi_op_create__)
TF_FORTRAN_OP_CREATE(MPI_OP_CREATE)
TF_FORTRAN_OP_CREATE(mpi_op_create_f08_)

/* --------------------------------------------- MPI_INIT, MPI_INIT_THREAD */

/* The Fortran MPI_INIT / MPI_INIT_THREAD (every binding): the recorder
 * starts here for Fortran programs, as in the C wrappers. Same fields as
 * the C wrappers (mpi.table): MPI_Init none; MPI_Init_thread required,
 * provided. */
static int fortran_init(void *ra, int threaded, int required, int *provided) {
#if TF_F08_MPICH
  if (mpirinitf_) mpirinitf_(); /* what MPICH's own MPI_INIT does first */
#endif
  uint64_t t0 = tf_now_ns();
  int rc = threaded ? PMPI_Init_thread(NULL, NULL, required, provided) : PMPI_Init(NULL, NULL);
  uint64_t t1 = tf_now_ns();
  tf_recorder_start(rc);
  tf_call c;
  if (tf_call_begin(&c, threaded ? TF_FN_MPI_Init_thread : TF_FN_MPI_Init, ra)) {
    if (threaded) tf_put(&c, tf_portable_thread(required)); /* as the C wrapper (gen/portable.table) */
    c.t0 = t0;
    c.t1 = t1;
    if (threaded) tf_put(&c, tf_portable_thread(*provided));
    tf_call_end(&c);
    tf_call_clock_resume();
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
