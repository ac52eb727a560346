/* fortran_support.h — helpers of the generated Fortran entry points
 * (tf_fortran.c, gen/emit_fortran.py): the MPI library's Fortran constants
 * and sentinels, handle and status conversion, and, for MPICH's mpi_f08,
 * array descriptors and the library's own binding as a fallback.
 *
 * Two Fortran ABIs are served:
 *   mpif.h and `use mpi` (mpi_x_, mpi_x, mpi_x__, MPI_X): every argument by
 *     reference, handles are MPI_Fint, a status is MPI_Fint[MPI_STATUS_SIZE],
 *     choice buffers are plain addresses;
 *   `use mpi_f08`: with Open MPI (mpi_x_f08_) the same ABI; with MPICH
 *     (TF_F08_MPICH) routines without a choice buffer are mpi_x_f08_ (the
 *     same ABI, but a status is an MPI_F08_status) and routines with one
 *     are mpi_x_f08ts_, which take each choice buffer as a gfortran array
 *     descriptor (TYPE(*), DIMENSION(..)).
 */
#ifndef TF_RECORDER_FORTRAN_SUPPORT_H
#define TF_RECORDER_FORTRAN_SUPPORT_H

#include <mpi.h>

#if defined(MPICH_NUMVERSION)
#define TF_F08_MPICH 1
#else
#define TF_F08_MPICH 0
#endif

#define TF_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* ---- mpif.h and use mpi ---- */
void *tf_fortran_buf(void *buf);                   /* MPI_IN_PLACE / MPI_BOTTOM -> C */
const int *tf_fortran_weights(const MPI_Fint *w);  /* MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY -> C */
int tf_fortran_status_ignore(const MPI_Fint *s);   /* s is MPI_STATUS_IGNORE */
int tf_fortran_statuses_ignore(const MPI_Fint *s); /* s is MPI_STATUSES_IGNORE */

/* ---- both ---- */
/* Per-thread scratch converted from Fortran handles, valid until the next
 * call of the same function and slot on the thread (slot 0 or 1: a call with
 * two arrays of datatypes, MPI_Alltoallw); NULL on allocation failure. */
MPI_Request *tf_fortran_scratch_request(const MPI_Fint *f, int n);
MPI_Datatype *tf_fortran_scratch_type(const MPI_Fint *f, int n, int slot);
MPI_Status *tf_fortran_scratch_status(int n);
int tf_fortran_coll_size(MPI_Comm comm); /* size, or remote size of an intercommunicator */

/* ---- mpi_f08 under MPICH ---- */
#if TF_F08_MPICH
/* MPICH before 4.1 returns 0-based indices from its mpi_f08 MPI_Waitany,
 * MPI_Testany, MPI_Waitsome and MPI_Testsome (pmodels/mpich#6270, fixed in
 * 4.1); the entry points return what the library's binding would, so that
 * a program behaves the same with and without tracefold. */
#if MPICH_NUMVERSION < 40100000
#define TF_F08_INDEX_BASE 0
#else
#define TF_F08_INDEX_BASE 1
#endif
int tf_f08_status_ignore(const void *s);   /* MPI_STATUS_IGNORE of mpi_f08 */
int tf_f08_statuses_ignore(const void *s); /* MPI_STATUSES_IGNORE of mpi_f08 */
void tf_f08_status_c2f(const MPI_Status *c, void *f, int i); /* into the i-th MPI_F08_status at f */
void tf_f08_status_f2c(const void *f, MPI_Status *c);
const int *tf_f08_weights(const MPI_Fint *w);
/* The address of the data a choice buffer's descriptor describes, with
 * MPI_IN_PLACE and MPI_BOTTOM of mpi_f08 made C's; *contiguous is cleared
 * when the data are not one contiguous block (a strided section). */
void *tf_f08_buf(const void *desc, int *contiguous);

#endif

/* ---- the library's own Fortran routine ---- */
/* Where only the library's binding can make a call, the entry point records
 * it and has the library's own routine make it, with recording suppressed
 * on the thread (tf_call_suppress), so that the C MPI_ functions that
 * routine may call do not record it again:
 *   MPI_OP_CREATE (fortran_support.c): only the binding can call a Fortran
 *     user function;
 *   MPICH's mpi_f08 with a non-contiguous choice buffer: the library's
 *     mpi_x_f08ts_ builds a datatype from the descriptor. It is given the
 *     original descriptors and, for every other argument, the address of
 *     its C value (MPICH's C handles, Fortran handles and mpi_f08 handles
 *     are the same integers, and its MPI_Status has the Fortran layout); the
 *     call is recorded with the program's own count and datatype. */
typedef void (*tf_lib_fn)(void);
#define TF_LIB_MAXBUFS 3 /* choice buffers of one call, at most (MPI_Compare_and_swap) */
typedef struct tf_lib_pass {
  tf_lib_fn fn;
  void *desc[TF_LIB_MAXBUFS]; /* mpi_x_f08ts_: the descriptors of the call's choice buffers, in order */
} tf_lib_pass;
/* The library's routine `name` (the definition after libtracefold's own),
 * looked up once into *cache; NULL if there is none. */
tf_lib_fn tf_lib_lookup(const char *name, tf_lib_fn *cache);
/* Calls pass->fn with the n arguments (each by reference) and an ierror;
 * returns the ierror (MPI_ERR_INTERN if there is no such routine). */
int tf_lib_call(const tf_lib_pass *pass, int n, void *const *args);
/* A C status argument for such a routine: MPI_STATUS_IGNORE as mpi_f08's */
void *tf_f08_status_arg(MPI_Status *s);

#endif
