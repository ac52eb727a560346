/* recorder.h — what the generated MPI wrappers (tf_wrappers.c, tf_fortran.c,
 * written by gen/emit_wrappers.py and gen/emit_fortran.py) include:
 * everything they call, and the visibility of what they define.
 *
 *   session.h          lifecycle hooks and the path of one call (recorder.c)
 *   runtime.h          clock, lock, failure latch, tf_put (runtime.c)
 *   object_ids.h       symbolic ids of MPI objects (object_ids.c)
 *   values.h           arguments and statuses as trace values (values.c)
 *   fortran_support.h  Fortran handle and constant conversion (fortran_support.c)
 *
 * Only generated sources include this header: hand-written ones include the
 * headers above that they use (scripts/check_recorder_includes.py checks
 * both this and that the includes between recorder modules have no cycle).
 *
 * Visibility: libtracefold.so is built with -fvisibility=hidden, so that
 * it exports only the MPI entry points it intercepts and the public API of
 * include/tracefold.h (TF_API). Every function a generated file defines
 * after including this header is an MPI entry point (MPI_X, and the
 * Fortran mpi_x_, mpi_x, mpi_x__, MPI_X, mpi_x_f08_, mpi_x_f08ts_) or static,
 * so the rest of such a file is compiled with default visibility. This
 * pragma is deliberately not popped, and is why hand-written sources must
 * not include this header.
 */
#ifndef TF_RECORDER_H
#define TF_RECORDER_H

#include <mpi.h>
#include <stdint.h>

#include "fortran_support.h"
#include "object_ids.h"
#include "runtime.h"
#include "session.h"
#include "tracefold.h"
#include "values.h"

#pragma GCC visibility push(default)

#endif
