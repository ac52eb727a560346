/* session.h — one recording session, MPI_Init to MPI_Finalize
 * (recorder.c): the lifecycle hooks and the path of one call.
 *
 * A wrapper records one event as: tf_call_begin(); tf_put() each parameter
 * value in schema order (pre-call values); tf_call_clock_start();
 * PMPI_X(); tf_call_clock_stop(); tf_put() outcomes; tf_call_end(). Values
 * accumulate in a per-thread buffer (runtime.h); tf_call_end() timestamps
 * the event and hands it to this rank's trace.
 */
#ifndef TF_RECORDER_SESSION_H
#define TF_RECORDER_SESSION_H

#include <stdint.h>

#include "runtime.h"

/* ---- lifecycle ---- */
void tf_recorder_start(int init_rc);    /* after PMPI_Init[_thread] */
void tf_recorder_before_finalize(void); /* before PMPI_Finalize: last MPI use */
void tf_recorder_stop(void);            /* after PMPI_Finalize: close output */
void tf_recorder_abort(void);           /* MPI_Abort: flush what we have */

/* ---- one call ---- */
int tf_call_begin(tf_call *c, uint32_t fn, void *ra); /* 0: do not record */
/* While on (per thread), tf_call_begin records nothing: a Fortran entry
 * point that has recorded a call has the MPI library's own binding make it
 * (fortran_support.c, tf_lib_call), and the C MPI_ functions that binding
 * calls must not record it a second time. */
void tf_call_suppress(int on);
void tf_call_clock_start(tf_call *c);
void tf_call_clock_stop(tf_call *c);
void tf_call_end(tf_call *c);
/* After MPI_Init's event: the next compute delta starts now, so that the
 * recorder's own start-up (after PMPI_Init returned) is not charged to the
 * application. */
void tf_call_clock_resume(void);

#endif
