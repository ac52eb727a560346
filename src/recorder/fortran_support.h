/* fortran_support.h — helpers of the generated Fortran entry points
 * (fortran_support.c; built only where the MPI library's Fortran bindings
 * bypass the C MPI_ symbols, i.e. Open MPI). */
#ifndef TF_RECORDER_FORTRAN_SUPPORT_H
#define TF_RECORDER_FORTRAN_SUPPORT_H

#include <mpi.h>

#define TF_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
void *tf_fortran_buf(void *buf);                  /* Fortran MPI_IN_PLACE / MPI_BOTTOM -> C */
const int *tf_fortran_weights(const MPI_Fint *w); /* MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY */
/* Per-thread scratch converted from Fortran handles; NULL on allocation failure. */
MPI_Request *tf_fortran_scratch_request(const MPI_Fint *f, int n);
MPI_Datatype *tf_fortran_scratch_type(const MPI_Fint *f, int n);
MPI_Status *tf_fortran_scratch_status(int n);

#endif
